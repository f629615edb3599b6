import { version as packageVersion } from '../package.json';
import { randomUUID } from 'node:crypto';
import { Address } from 'viem';
import { Db } from '../src/database/db.service';
import { sql } from '../src/database/sql';
import { IngestService } from '../src/modules/ingest/ingest.service';
import { Anvil, startAnvil } from './support/anvil';
import { ndjson, priceLine, transaction, transactionLine } from './support/factories';
import { deployTestToken, mint } from './support/test-token';
import { eventually, FollowClient, randomAddress, TransactionRow } from './support/follow-client';
import { DATABASES, DatabaseKind, freshDatabase, newKey, startTestApp, TestApp } from './support/test-app';
import { untilWaitingForLock, whileRowsLocked } from './support/row-locks';
import { startServerProcess } from './support/server-process';
import {
  DeliveryAnswer,
  expectAnnouncedOnce,
  hook,
  WebhookAnswer,
  WebhookClient,
  WebhookReceiver,
} from './support/webhook-receiver';

/**
 * Webhooks (contract §14) against a real node (anvil) and a receiver in the test that verifies
 * every delivery with the `standardwebhooks` package, on both databases.
 */

const ETHER = 10n ** 18n;
/** Ether as an event names it. */
const ETHER_TOKEN = { id: 'ethereum', symbol: 'ETH', decimals: 18 };
const RETRY_FAST = '1,1,1';
const SERVICE_ENV = {
  CONFIRMATIONS_ETHEREUM: '0',
  FOLLOW_INTERVAL_MS: '100',
  WEBHOOK_ALLOW_PRIVATE_URLS: 'on',
  WEBHOOK_RETRY_SECONDS: RETRY_FAST,
};

function lower(address: Address): Address {
  return address.toLowerCase() as Address;
}

describe.each(DATABASES)('webhooks on %s', (kind: DatabaseKind) => {
  let anvil: Anvil;
  let db: { url: string; drop: () => Promise<void> };
  let t: TestApp;
  let api: FollowClient;
  let alice: WebhookClient;
  let bob: WebhookClient;
  let receiver: WebhookReceiver;
  const logs: string[] = [];
  const secrets: string[] = [];
  const keys = { alice: newKey(), bob: newKey() };

  beforeAll(async () => {
    [anvil, db, receiver] = await Promise.all([startAnvil(), freshDatabase(kind), WebhookReceiver.start()]);
    t = await startTestApp({
      databaseUrl: db.url,
      keys,
      env: { RPC_URL_ETHEREUM: anvil.url, ...SERVICE_ENV },
      logDestination: { write: (line: string) => void logs.push(line) },
    });
    api = new FollowClient(t);
    alice = new WebhookClient(t, keys.alice);
    bob = new WebhookClient(t, keys.bob);
  });

  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    await db?.drop();
    await anvil?.stop();
  });

  /** Tags as bob (FollowClient speaks as alice). */
  async function tagAsBob(tag: string, addresses: readonly string[]): Promise<void> {
    await t
      .http()
      .post(`/v2/tags/${tag}`)
      .set('X-API-Key', keys.bob)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(addresses))
      .expect(200);
  }

  async function pay(from: number, to: Address, ether: bigint): Promise<`0x${string}`> {
    const hash = await anvil.walletClient(from).sendTransaction({ to, value: ether * ETHER });
    await anvil.publicClient.waitForTransactionReceipt({ hash });
    return hash;
  }

  describe('the routes', () => {
    it('creates a webhook with a Standard Webhooks secret shown once, and validates strictly', async () => {
      await api.tag('route_tags', [randomAddress()]);
      const created = await alice.create({
        url: 'http://127.0.0.1:9/hook',
        tags: ['route_tags', '0', 'route_tags'],
        chains: ['base', 'ethereum'],
        description: 'first',
      });
      secrets.push(created.secret!);
      expect(created).toMatchObject({
        url: 'http://127.0.0.1:9/hook',
        tags: ['0', 'route_tags'],
        chains: ['ethereum', 'base'],
        events: ['transaction.confirmed', 'transaction.removed'],
        description: 'first',
        min_value_usd: null,
        tokens: null,
        status: 'active',
      });
      expect(created.id).toMatch(/^wh_[A-Za-z0-9_-]{16}$/);
      expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
      expect(Buffer.from(created.secret!.slice('whsec_'.length), 'base64').length).toBeGreaterThanOrEqual(24);
      const shown = await alice.get(created.id);
      expect(shown).toEqual({ ...created, secret: undefined });
      expect(Object.keys(shown)).not.toContain('secret');

      const list = await t.http().get('/v2/webhooks').set('X-API-Key', keys.alice).expect(200);
      expect(JSON.stringify(list.body)).not.toContain(created.secret!);

      const bad = async (body: unknown, status: number, code: string) => {
        const response = await t
          .http()
          .post('/v2/webhooks')
          .set('X-API-Key', keys.alice)
          .set('Content-Type', 'application/json')
          .send(JSON.stringify(body));
        expect({ status: response.status, code: (response.body as { code: string }).code }).toEqual({ status, code });
      };
      await bad([], 400, 'INVALID_BODY');
      await bad({ tags: ['route_tags'] }, 400, 'INVALID_BODY');
      await bad({ url: 'http://127.0.0.1:9/', tags: ['route_tags'], extra: 1 }, 400, 'INVALID_BODY');
      await bad({ url: 'http://127.0.0.1:9/', tags: [] }, 400, 'INVALID_BODY');
      await bad(
        { url: 'http://127.0.0.1:9/', tags: Array.from({ length: 51 }, (_, i) => `tag_${i}x`) },
        400,
        'INVALID_BODY',
      );
      await bad({ url: 'http://127.0.0.1:9/', tags: ['route_tags'], chains: ['mars'] }, 400, 'INVALID_BODY');
      await bad({ url: 'http://127.0.0.1:9/', tags: ['route_tags'], chains: [] }, 400, 'INVALID_BODY');
      await bad({ url: 'http://127.0.0.1:9/', tags: ['route_tags'], events: ['webhook.ping'] }, 400, 'INVALID_BODY');
      await bad({ url: 'http://127.0.0.1:9/', tags: ['route_tags'], description: 5 }, 400, 'INVALID_BODY');
      await bad({ url: 'ftp://127.0.0.1/', tags: ['route_tags'] }, 400, 'INVALID_WEBHOOK_URL');
      await bad({ url: 'not a url', tags: ['route_tags'] }, 400, 'INVALID_WEBHOOK_URL');
      // U+0000, which PostgreSQL's text cannot hold, and the other control characters.
      await bad({ url: 'http://127.0.0.1:9/a\u0000b', tags: ['route_tags'] }, 400, 'INVALID_WEBHOOK_URL');
      await bad({ url: 'http://127.0.0.1:9/a\nb', tags: ['route_tags'] }, 400, 'INVALID_WEBHOOK_URL');
      await bad({ url: 'http://127.0.0.1:9/', tags: ['route_tags'], description: 'a\u0000b' }, 400, 'INVALID_BODY');
      // A description is one line of at most 500 characters, as a tag's is.
      await bad({ url: 'http://127.0.0.1:9/', tags: ['route_tags'], description: 'one\ntwo' }, 400, 'INVALID_BODY');
      await bad(
        { url: 'http://127.0.0.1:9/', tags: ['route_tags'], description: 'a'.repeat(501) },
        400,
        'INVALID_BODY',
      );
      const foxes = '🦊'.repeat(500);
      expect((await alice.patch(created.id, { description: foxes })).description).toBe(foxes);
      expect((await alice.patch(created.id, { description: 'x\ty' }, 400)).code).toBe('INVALID_BODY');
      expect((await alice.get(created.id)).description).toBe(foxes);
      expect((await alice.patch(created.id, { description: '' })).description).toBeNull();
      expect((await alice.patch(created.id, { description: 'first' })).description).toBe('first');
      // A minimum value is a number of USD from 0 to 10^12, or null.
      for (const minimum of [-1, '100', 1e13, true, [5], { usd: 5 }]) {
        await bad({ url: 'http://127.0.0.1:9/', tags: ['route_tags'], min_value_usd: minimum }, 400, 'INVALID_BODY');
      }
      expect((await alice.patch(created.id, { min_value_usd: 2500.75 })).min_value_usd).toBe(2500.75);
      expect((await alice.patch(created.id, { min_value_usd: 1e-7 })).min_value_usd).toBe(1e-7);
      expect((await alice.patch(created.id, { min_value_usd: 1e12 })).min_value_usd).toBe(1e12);
      expect((await alice.patch(created.id, { min_value_usd: 'lots' }, 400)).code).toBe('INVALID_BODY');
      expect((await alice.get(created.id)).min_value_usd).toBe(1e12);
      expect((await alice.patch(created.id, { min_value_usd: null })).min_value_usd).toBeNull();
      // Tokens are ids of tokens chaintags knows, each once, sorted; null for every token.
      for (const tokens of [
        [],
        ['Not An Id'],
        ['no-such-token'],
        'tether',
        [5],
        Array.from({ length: 51 }, () => 'tether'),
      ]) {
        await bad({ url: 'http://127.0.0.1:9/', tags: ['route_tags'], tokens }, 400, 'INVALID_BODY');
      }
      expect((await alice.patch(created.id, { tokens: ['usd-coin', 'tether', 'tether'] })).tokens).toEqual([
        'tether',
        'usd-coin',
      ]);
      const unknownToken = await alice.patch(created.id, { tokens: ['tether', 'no-such-token'] }, 400);
      expect(unknownToken.code).toBe('INVALID_BODY');
      // Five unknown ids are named at most, the others counted.
      const manyUnknown = Array.from({ length: 7 }, (_, index) => `no-such-token-${index}`);
      const many = (await alice.patch(created.id, { tokens: manyUnknown }, 400)) as { message?: string };
      expect(many.message).toBe(
        'unknown token "no-such-token-0", "no-such-token-1", "no-such-token-2", "no-such-token-3", "no-such-token-4", ' +
          '2 more (GET /v2/tokens lists them)',
      );
      expect((await alice.get(created.id)).tokens).toEqual(['tether', 'usd-coin']);
      expect((await alice.patch(created.id, { tokens: null })).tokens).toBeNull();
      await bad({ url: 'http://127.0.0.1:9/', tags: ['Bad Tag'] }, 400, 'INVALID_TAG');
      await bad({ url: 'http://127.0.0.1:9/', tags: ['never_made'] }, 404, 'TAG_NOT_FOUND');
      // Bob's account has no tag route_tags: tags are the account's own.
      const bobs = await t
        .http()
        .post('/v2/webhooks')
        .set('X-API-Key', keys.bob)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ url: 'http://127.0.0.1:9/', tags: ['route_tags'] }));
      expect(bobs.status).toBe(404);
      const unsupported = await t
        .http()
        .post('/v2/webhooks')
        .set('X-API-Key', keys.alice)
        .set('Content-Type', 'text/plain')
        .send('{}');
      expect(unsupported.status).toBe(415);
      await t.http().post('/v2/webhooks').set('Content-Type', 'application/json').send('{}').expect(401);
    });

    it("answers another account's webhook as one that does not exist, on every route", async () => {
      const created = await alice.create({ url: 'http://127.0.0.1:9/other', tags: ['0'] });
      secrets.push(created.secret!);
      const expectMissing = (response: { status: number; body: unknown }) => {
        expect(response.status).toBe(404);
        expect((response.body as { code: string }).code).toBe('WEBHOOK_NOT_FOUND');
      };
      const json = (request: ReturnType<ReturnType<TestApp['http']>['patch']>) =>
        request.set('X-API-Key', keys.bob).set('Content-Type', 'application/json').send('{"description":"mine"}');
      expectMissing(await t.http().get(`/v2/webhooks/${created.id}`).set('X-API-Key', keys.bob));
      expectMissing(await json(t.http().patch(`/v2/webhooks/${created.id}`)));
      expectMissing(await t.http().delete(`/v2/webhooks/${created.id}`).set('X-API-Key', keys.bob));
      expectMissing(await t.http().post(`/v2/webhooks/${created.id}/rotate-secret`).set('X-API-Key', keys.bob));
      expectMissing(await t.http().post(`/v2/webhooks/${created.id}/ping`).set('X-API-Key', keys.bob));
      expectMissing(await t.http().get(`/v2/webhooks/${created.id}/deliveries`).set('X-API-Key', keys.bob));
      const ping = await alice.ping(created.id);
      expectMissing(await t.http().get(`/v2/webhooks/${created.id}/deliveries/${ping}`).set('X-API-Key', keys.bob));
      await t.http().get(`/v2/webhooks/${created.id}/deliveries/${ping}`).set('X-API-Key', keys.alice).expect(200);
      expectMissing(await t.http().get('/v2/webhooks/wh_nothing').set('X-API-Key', keys.alice));
      const bobList = await t.http().get('/v2/webhooks').set('X-API-Key', keys.bob).expect(200);
      expect(bobList.body).toEqual([]);
      // Still alice's, unchanged.
      expect((await alice.get(created.id)).description).toBeNull();
    });

    it('changes, pages and deletes webhooks; 20 per account at most', async () => {
      const existing = (
        (await t.http().get('/v2/webhooks?per_page=100').set('X-API-Key', keys.alice).expect(200))
          .body as WebhookAnswer[]
      ).length;
      const made: WebhookAnswer[] = [];
      for (let i = existing; i < 20; i++)
        made.push(await alice.create({ url: `http://127.0.0.1:9/n${i}`, tags: ['0'] }));
      const over = await alice.create({ url: 'http://127.0.0.1:9/over', tags: ['0'] }, 422);
      expect(over.code).toBe('WEBHOOK_LIMIT_EXCEEDED');

      const page = await t.http().get('/v2/webhooks?per_page=5&page=2').set('X-API-Key', keys.alice).expect(200);
      expect((page.body as unknown[]).length).toBe(5);
      expect(page.headers.link).toContain('rel="last"');
      const past = await t.http().get('/v2/webhooks?per_page=5&page=9').set('X-API-Key', keys.alice).expect(200);
      expect(past.body).toEqual([]);
      expect(/[?&]page=(\d+)[^>]*>;\s*rel="prev"/.exec(past.headers.link ?? '')?.[1]).toBe('4');
      await t.http().get('/v2/webhooks?limit=5').set('X-API-Key', keys.alice).expect(400);

      const target = made[0]!;
      const changed = await alice.patch(target.id, {
        url: 'https://127.0.0.1:9/changed',
        events: ['transaction.removed'],
        chains: null,
        description: 'changed',
        status: 'paused',
      });
      expect(changed).toMatchObject({
        url: 'https://127.0.0.1:9/changed',
        events: ['transaction.removed'],
        chains: null,
        description: 'changed',
        status: 'paused',
      });
      expect((await alice.patch(target.id, { status: 'disabled' }, 400)).code).toBe('INVALID_BODY');
      expect((await alice.patch(target.id, { url: 'gopher://x' }, 400)).code).toBe('INVALID_WEBHOOK_URL');
      expect((await alice.patch(target.id, { secret: 'whsec_x' }, 400)).code).toBe('INVALID_BODY');

      for (const webhook of made) {
        await t.http().delete(`/v2/webhooks/${webhook.id}`).set('X-API-Key', keys.alice).expect(204);
      }
      await t.http().get(`/v2/webhooks/${target.id}`).set('X-API-Key', keys.alice).expect(404);
    });

    it('creates one webhook per Idempotency-Key: a retry answers it, another request with the key is refused', async () => {
      const send = (key: string | undefined, body: string, apiKey = keys.alice) => {
        const request = t.http().post('/v2/webhooks').set('X-API-Key', apiKey).set('Content-Type', 'application/json');
        return (key === undefined ? request : request.set('Idempotency-Key', key)).send(body);
      };
      const webhooks = async (apiKey: string) =>
        (await t.http().get('/v2/webhooks?per_page=100').set('X-API-Key', apiKey).expect(200)).body as WebhookAnswer[];
      const before = (await webhooks(keys.alice)).length;
      const key = randomUUID();
      const body = JSON.stringify({ url: 'http://127.0.0.1:9/once', tags: ['0', 'idempotent'] });
      await api.tag('idempotent', [randomAddress()]);

      const first = await send(key, body);
      expect(first.status).toBe(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const created = first.body as WebhookAnswer;
      secrets.push(created.secret!);
      // The same request spelled otherwise: the fields in another order, the default events written out.
      const again = await send(
        key,
        '{ "events": ["transaction.removed", "transaction.confirmed"], "tags": ["idempotent", "0", "0"],\n "url": "http://127.0.0.1:9/once" }',
      );
      expect({ status: again.status, replayed: again.headers['idempotent-replayed'] }).toEqual({
        status: 201,
        replayed: 'true',
      });
      expect(again.body).toEqual(created);
      expect((await webhooks(keys.alice)).length).toBe(before + 1);

      // Another request with the key creates nothing.
      for (const other of [
        { url: 'http://127.0.0.1:9/other', tags: ['0', 'idempotent'] },
        { url: 'http://127.0.0.1:9/once', tags: ['0'] },
        { url: 'http://127.0.0.1:9/once', tags: ['0', 'idempotent'], chains: ['ethereum'] },
        { url: 'http://127.0.0.1:9/once', tags: ['0', 'idempotent'], description: 'x' },
      ]) {
        const refused = await send(key, JSON.stringify(other));
        expect({ status: refused.status, code: (refused.body as { code: string }).code }).toEqual({
          status: 400,
          code: 'BAD_REQUEST',
        });
        expect((refused.body as { message: string }).message).toContain(created.id);
      }
      // A malformed key is refused before anything else.
      for (const bad of ['', 'k'.repeat(256), 'two words', 'caf\u00e9']) {
        const refused = await send(bad, body);
        expect({ bad, status: refused.status, code: (refused.body as { code: string }).code }).toEqual({
          bad,
          status: 400,
          code: 'BAD_REQUEST',
        });
      }
      expect((await send('k'.repeat(255), '{"url": 1}')).body).toMatchObject({ code: 'INVALID_BODY' });
      expect((await webhooks(keys.alice)).length).toBe(before + 1);

      // The replay is the webhook as it stands: after a rotation, the secret that signs now.
      const rotated = await t.http().post(`/v2/webhooks/${created.id}/rotate-secret`).set('X-API-Key', keys.alice);
      const secret = (rotated.body as WebhookAnswer).secret!;
      secrets.push(secret);
      expect(((await send(key, body)).body as WebhookAnswer).secret).toBe(secret);

      // Keys are the account's own: bob's request with alice's key creates bob's webhook.
      await tagAsBob('idempotent', [randomAddress()]);
      const bobs = await send(key, body, keys.bob);
      expect({ status: bobs.status, replayed: bobs.headers['idempotent-replayed'] }).toEqual({
        status: 201,
        replayed: undefined,
      });
      secrets.push((bobs.body as WebhookAnswer).secret!);
      expect((bobs.body as WebhookAnswer).id).not.toBe(created.id);

      // Sent at once with one key, the requests create one webhook and all answer it.
      const once = randomUUID();
      const answers = await Promise.all(Array.from({ length: 8 }, () => send(once, body)));
      expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(201));
      expect(new Set(answers.map((answer) => (answer.body as WebhookAnswer).id)).size).toBe(1);
      expect(answers.filter((answer) => answer.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
      secrets.push((answers[0]!.body as WebhookAnswer).secret!);
      expect((await webhooks(keys.alice)).length).toBe(before + 2);

      // The key goes with the webhook it created: sent after a delete, it creates another.
      await t.http().delete(`/v2/webhooks/${created.id}`).set('X-API-Key', keys.alice).expect(204);
      const afterDelete = await send(key, body);
      expect(afterDelete.status).toBe(201);
      expect(afterDelete.headers['idempotent-replayed']).toBeUndefined();
      secrets.push((afterDelete.body as WebhookAnswer).secret!);
      expect((afterDelete.body as WebhookAnswer).id).not.toBe(created.id);

      for (const [apiKey, answer] of [
        [keys.alice, afterDelete],
        [keys.alice, answers[0]!],
        [keys.bob, bobs],
      ] as const) {
        await t
          .http()
          .delete(`/v2/webhooks/${(answer.body as WebhookAnswer).id}`)
          .set('X-API-Key', apiKey)
          .expect(204);
      }
    });
  });

  describe('delivery', () => {
    it('announces a transfer to the webhooks of the tags its addresses carry, per account, with the transaction as /v2/transactions shows it', async () => {
      const hot = anvil.accounts[1]!.address;
      const outsider = randomAddress();
      const bobs = randomAddress();
      const untagged = randomAddress();
      await api.tag('hot_wallets', [hot]);
      await api.tag('cold_wallets', [bobs]);
      await api.tag('0', [untagged]);
      await tagAsBob('bob_watch', [bobs]);
      const priced = await t.app
        .get(IngestService)
        .import([ndjson([priceLine('ethereum', '3000.25', new Date(Date.now() - 60_000).toISOString())])]);
      expect(priced.committed).toBe(true);
      await api.synced(anvil);

      const hotHook = await hook(alice, receiver, '/scope/hot', { tags: ['hot_wallets'], chains: ['ethereum'] });
      const baseOnly = await hook(alice, receiver, '/scope/base', {
        tags: ['hot_wallets', 'cold_wallets'],
        chains: ['base'],
      });
      const coldHook = await hook(alice, receiver, '/scope/cold', { tags: ['cold_wallets', 'hot_wallets'] });
      const untaggedHook = await hook(alice, receiver, '/scope/untagged', { tags: ['0'] });
      const bobHook = await hook(bob, receiver, '/scope/bob', { tags: ['bob_watch'] });
      const removedOnly = await hook(alice, receiver, '/scope/removed-only', {
        tags: ['hot_wallets'],
        events: ['transaction.removed'],
      });

      const toOutsider = await pay(1, outsider, 1n);
      const toBobs = await pay(1, bobs, 2n);
      const toUntagged = await pay(2, untagged, 3n);
      await api.synced(anvil);

      const arrived = (path: string, count: number) =>
        eventually(`${count} deliveries at ${path}`, () =>
          Promise.resolve(receiver.at(path).length >= count ? receiver.at(path) : undefined),
        );
      const hot2 = await arrived('/scope/hot', 2);
      const cold2 = await arrived('/scope/cold', 2);
      const bob1 = await arrived('/scope/bob', 1);
      const untagged1 = await arrived('/scope/untagged', 1);

      const shown = async (hash: string, address: string) =>
        (await api.transactions(address)).find((row: TransactionRow) => row.tx_hash === hash)!;
      for (const request of [...hot2, ...cold2, ...bob1, ...untagged1]) {
        expect(request.verified).toBeDefined();
        expect(request.verified!.type).toBe('transaction.confirmed');
        expect(new Date(request.verified!.timestamp).toISOString()).toBe(request.verified!.timestamp);
      }
      const byHash = (requests: typeof hot2) =>
        new Map(
          requests.map((request) => [request.verified!.data.transaction!.tx_hash as string, request.verified!.data]),
        );
      const hotData = byHash(hot2);
      expect([...hotData.keys()].sort()).toEqual([toOutsider, toBobs].sort());
      // Each event names the transfer's token, and its worth in USD at the newest price.
      expect(hotData.get(toOutsider)).toEqual({
        transaction: await shown(toOutsider, outsider),
        tags: ['hot_wallets'],
        token: ETHER_TOKEN,
        value_usd: 3000.25,
      });
      expect(hotData.get(toBobs)).toEqual({
        transaction: await shown(toBobs, bobs),
        tags: ['hot_wallets'],
        token: ETHER_TOKEN,
        value_usd: 6000.5,
      });
      const coldData = byHash(cold2);
      // The webhook's tags that the sender or recipient carries, sorted.
      expect(coldData.get(toBobs)).toEqual({
        transaction: await shown(toBobs, bobs),
        tags: ['cold_wallets', 'hot_wallets'],
        token: ETHER_TOKEN,
        value_usd: 6000.5,
      });
      expect(coldData.get(toOutsider)!.tags).toEqual(['hot_wallets']);
      expect(byHash(bob1).get(toBobs)).toEqual({
        transaction: await shown(toBobs, bobs),
        tags: ['bob_watch'],
        token: ETHER_TOKEN,
        value_usd: 6000.5,
      });
      expect(bob1).toHaveLength(1);
      expect(byHash(untagged1).get(toUntagged)).toEqual({
        transaction: await shown(toUntagged, untagged),
        tags: ['0'],
        token: ETHER_TOKEN,
        value_usd: 9000.75,
      });

      // Not on the webhook's chains, not among its events: nothing recorded, nothing sent.
      expect(await alice.deliveries(baseOnly.id)).toEqual([]);
      expect(await alice.deliveries(removedOnly.id)).toEqual([]);
      expect(receiver.at('/scope/base')).toEqual([]);

      // The delivery log, newest first.
      const log = await eventually('the log to show both delivered', async () => {
        const rows = await alice.deliveries(hotHook.id);
        return rows.length === 2 && rows.every((row) => row.status === 'delivered') ? rows : undefined;
      });
      expect(log[0]).toMatchObject({
        event_type: 'transaction.confirmed',
        attempts: 1,
        response_status: 200,
        error: null,
        next_attempt_at: null,
      });
      expect(log.map((row) => row.id).sort()).toEqual(hot2.map((request) => request.id).sort());
      expect(log[0]!.created_at >= log[1]!.created_at).toBe(true);
      void bobHook;
      void untaggedHook;
      void coldHook;
    });

    it('announces to a webhook with min_value_usd or tokens only the transfers worth that much, or of those tokens', async () => {
      const whale = randomAddress();
      await api.tag('whale_watch', [whale]);
      const token = await deployTestToken(anvil, { name: 'Unpriced', symbol: 'UNP', decimals: 6 });
      await api.synced(anvil);
      const at = new Date(Date.now() - 60_000).toISOString();
      expect((await t.app.get(IngestService).import([ndjson([priceLine('ethereum', 2000, at)])])).committed).toBe(true);
      const large = await hook(alice, receiver, '/minimum/large', { tags: ['whale_watch'], min_value_usd: 4000 });
      const any = await hook(alice, receiver, '/minimum/any', { tags: ['whale_watch'] });
      const zero = await hook(alice, receiver, '/minimum/zero', { tags: ['whale_watch'], min_value_usd: 0 });
      const etherOnly = await hook(alice, receiver, '/minimum/ether', { tags: ['whale_watch'], tokens: ['ethereum'] });
      expect(large.min_value_usd).toBe(4000);

      const small = await pay(1, whale, 1n); // 2,000 USD
      const exact = await pay(1, whale, 2n); // 4,000 USD: at least the minimum
      const unpriced = (await mint(anvil, { token, to: whale, amount: 10n ** 15n })).transactionHash;
      await api.synced(anvil);
      const shown = new Map((await api.transactions(whale)).map((row) => [row.tx_hash, row]));
      expect(shown.size).toBe(3);
      // The unpriced token is named as GET /v2/tokens shows what the follower discovered; no value.
      const worth = new Map<string, { token?: typeof ETHER_TOKEN; value_usd: number | null }>([
        [small, { token: ETHER_TOKEN, value_usd: 2000 }],
        [exact, { token: ETHER_TOKEN, value_usd: 4000 }],
        [unpriced, { value_usd: null }],
      ]);
      const announced = (webhook: WebhookAnswer, path: string, hashes: string[]) =>
        expectAnnouncedOnce(
          alice,
          receiver,
          { id: webhook.id, path },
          hashes.map((hash) => ({ transaction: shown.get(hash)!, tags: ['whale_watch'], ...worth.get(hash) })),
        );
      await announced(any, '/minimum/any', [small, exact, unpriced]);
      await announced(zero, '/minimum/zero', [small, exact, unpriced]);
      await announced(large, '/minimum/large', [exact]);
      await announced(etherOnly, '/minimum/ether', [small, exact]);
      // A webhook on the token the follower discovered hears of its transfers only.
      const discovered = (await alice.tokenOf('ethereum', token.toLowerCase()))!.id;
      const mintsOnly = await hook(alice, receiver, '/minimum/discovered', {
        tags: ['whale_watch'],
        tokens: [discovered],
        min_value_usd: null,
      });
      expect(mintsOnly.tokens).toEqual([discovered]);
      await pay(1, whale, 1n);
      const later = (await mint(anvil, { token, to: whale, amount: 5n })).transactionHash;
      await api.synced(anvil);
      const relisted = new Map((await api.transactions(whale)).map((row) => [row.tx_hash, row]));
      await expectAnnouncedOnce(alice, receiver, { id: mintsOnly.id, path: '/minimum/discovered' }, [
        { transaction: relisted.get(later)!, tags: ['whale_watch'], value_usd: null },
      ]);
      // An account has at most 20 webhooks: the tests after this one make theirs.
      for (const webhook of [large, any, zero, etherOnly, mintsOnly]) {
        await t.http().delete(`/v2/webhooks/${webhook.id}`).set('X-API-Key', keys.alice).expect(204);
      }
    });

    it('does not announce history found by a backfill', async () => {
      const late = randomAddress();
      const earlier = await pay(3, late, 1n);
      await api.synced(anvil);
      await api.tag('late_comer', [randomAddress()]);
      const lateHook = await hook(alice, receiver, '/backfill', { tags: ['late_comer'] });
      await api.tag('late_comer', [late]);
      await eventually('the backfill to find the earlier payment', async () =>
        (await api.transactions(late)).some((row) => row.tx_hash === earlier) ? true : undefined,
      );
      await api.synced(anvil);
      const later = await pay(3, late, 2n);
      await eventually('the live payment to arrive', () =>
        Promise.resolve(receiver.at('/backfill').length > 0 ? true : undefined),
      );
      await api.synced(anvil);
      const hashes = receiver.at('/backfill').map((request) => request.verified?.data.transaction?.tx_hash);
      expect(hashes).toEqual([later]);
      expect(await alice.deliveries(lateHook.id)).toHaveLength(1);
    });

    it('does not announce imported data', async () => {
      const imported = transaction({ chain: 'ethereum' });
      await api.tag('imported_tag', [imported.to.input]);
      const made = await hook(alice, receiver, '/imported', { tags: ['imported_tag'] });
      const report = await t.app.get(IngestService).import([ndjson([transactionLine(imported)])]);
      expect(report.committed).toBe(true);
      expect((await api.transactions(imported.to.canonical)).map((row) => row.id)).toEqual([imported.id]);
      // A live transfer after it is announced: the dispatcher has had its chance at the import too.
      const later = await pay(3, imported.to.canonical as Address, 1n);
      const requests = await eventually('the live transfer', () =>
        Promise.resolve(receiver.at('/imported').length > 0 ? receiver.at('/imported') : undefined),
      );
      await api.synced(anvil);
      expect(requests.map((request) => request.verified?.data.transaction?.tx_hash)).toEqual([later]);
      expect(await alice.deliveries(made.id)).toHaveLength(1);
    });

    it('retries on the schedule with one webhook-id, then records the delivery', async () => {
      const payee = randomAddress();
      await api.tag('retry_me', [payee]);
      const retried = await hook(alice, receiver, '/retry', { tags: ['retry_me'] });
      receiver.behave('/retry', (_request, index) => (index < 2 ? 500 : 204));
      await pay(4, payee, 1n);
      const requests = await eventually('three attempts', () =>
        Promise.resolve(receiver.at('/retry').length >= 3 ? receiver.at('/retry') : undefined),
      );
      expect(new Set(requests.map((request) => request.id)).size).toBe(1);
      expect(requests.every((request) => request.verified !== undefined)).toBe(true);
      expect(new Set(requests.map((request) => request.raw)).size).toBe(1);
      // The schedule is 1 s between attempts here.
      expect(requests[1]!.at - requests[0]!.at).toBeGreaterThanOrEqual(900);
      const [row] = await eventually('the delivery to be recorded', async () => {
        const rows = await alice.deliveries(retried.id);
        return rows[0]?.status === 'delivered' ? rows : undefined;
      });
      expect(row).toMatchObject({ id: requests[0]!.id, attempts: 3, response_status: 204, status: 'delivered' });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(receiver.at('/retry')).toHaveLength(3);
    });

    it('pings on request, and signs with the new secret only after rotate-secret', async () => {
      const pinged = await hook(alice, receiver, '/ping', { tags: ['0'] });
      const id = await alice.ping(pinged.id);
      const [first] = await eventually('the ping', () =>
        Promise.resolve(receiver.at('/ping').length >= 1 ? receiver.at('/ping') : undefined),
      );
      expect(first!.id).toBe(id);
      expect(first!.verified).toMatchObject({ type: 'webhook.ping', data: { webhook_id: pinged.id } });
      expect(first!.userAgent).toBe(`chaintags-webhooks/${packageVersion}`);

      const rotated = (
        await t.http().post(`/v2/webhooks/${pinged.id}/rotate-secret`).set('X-API-Key', keys.alice).expect(200)
      ).body as WebhookAnswer;
      expect(rotated.secret).toMatch(/^whsec_/);
      expect(rotated.secret).not.toBe(pinged.secret);
      expect(rotated.id).toBe(pinged.id);
      await alice.ping(pinged.id);
      const second = await eventually('the second ping', () => Promise.resolve(receiver.at('/ping')[1]));
      // The receiver still holds the old secret: the signature no longer verifies with it.
      expect(second.verified).toBeUndefined();
      receiver.secret('/ping', rotated.secret!);
      await alice.ping(pinged.id);
      const third = await eventually('the third ping', () => Promise.resolve(receiver.at('/ping')[2]));
      expect(third.verified?.type).toBe('webhook.ping');
      secrets.push(pinged.secret!, rotated.secret!);
    });

    it('delivers nothing while paused and after delete', async () => {
      const payee = randomAddress();
      await api.tag('paused_tag', [payee]);
      const paused = await hook(alice, receiver, '/paused', { tags: ['paused_tag'] });
      await alice.patch(paused.id, { status: 'paused' });
      await pay(5, payee, 1n);
      await api.synced(anvil);
      expect(await alice.deliveries(paused.id)).toEqual([]);
      await alice.patch(paused.id, { status: 'active' });
      const resumed = await pay(5, payee, 2n);
      const [request] = await eventually('a delivery once active again', () =>
        Promise.resolve(receiver.at('/paused').length > 0 ? receiver.at('/paused') : undefined),
      );
      expect(request!.verified?.data.transaction?.tx_hash).toBe(resumed);

      // A delivery being retried stops when its webhook is deleted.
      const deleted = await hook(alice, receiver, '/deleted', { tags: ['paused_tag'] });
      receiver.behave('/deleted', () => 503);
      await pay(5, payee, 3n);
      await eventually('a first attempt', () => Promise.resolve(receiver.at('/deleted').length > 0 ? true : undefined));
      await t.http().delete(`/v2/webhooks/${deleted.id}`).set('X-API-Key', keys.alice).expect(204);
      const attempts = receiver.at('/deleted').length;
      await new Promise((resolve) => setTimeout(resolve, 2500));
      expect(receiver.at('/deleted')).toHaveLength(attempts);
    });

    if (kind === 'postgres') {
      it('announces nothing to a webhook deleted while a commit announces to it, and the commit goes through', async () => {
        const db = t.app.get(Db);
        const payee = randomAddress();
        await api.tag('deleted_meanwhile', [payee]);
        await api.synced(anvil);
        const doomed = await hook(alice, receiver, '/deleted-meanwhile', { tags: ['deleted_meanwhile'] });
        const seen = logs.length;
        // The deletion is under way when the follower's commit finds the webhook listening; the commit
        // waits for it.
        const paid = await whileRowsLocked(db, sql`DELETE FROM webhooks WHERE id = ${doomed.id}`, async () => {
          const hash = await pay(7, payee, 1n);
          await untilWaitingForLock(db);
          return hash;
        });
        await api.synced(anvil);
        const rows = await api.get<TransactionRow[]>(`/v2/transactions?address=${payee}&chain=ethereum`);
        expect(rows.map((row) => row.tx_hash)).toEqual([paid]);
        // The first commit went through: no turn failed on the event of a deleted webhook.
        const failed = logs
          .slice(seen)
          .filter((line) => line.includes('"Follow ethereum"') && line.includes('"level":50'));
        expect(failed).toEqual([]);
        expect(receiver.at('/deleted-meanwhile')).toEqual([]);
        const ping = await t.http().post(`/v2/webhooks/${doomed.id}/ping`).set('X-API-Key', keys.alice);
        expect([ping.status, (ping.body as { code: string }).code]).toEqual([404, 'WEBHOOK_NOT_FOUND']);
      });

      it('answers WEBHOOK_NOT_FOUND to a redelivery that found the webhook before it was deleted', async () => {
        const db = t.app.get(Db);
        await api.tag('redelivered_meanwhile', [randomAddress()]);
        const doomed = await hook(alice, receiver, '/redelivered-meanwhile', { tags: ['redelivered_meanwhile'] });
        await t.http().post(`/v2/webhooks/${doomed.id}/ping`).set('X-API-Key', keys.alice).expect(202);
        const [ping] = await eventually('the ping delivered', async () => {
          const rows = await alice.deliveries(doomed.id);
          return rows[0]?.status === 'delivered' ? rows : undefined;
        });
        // The redelivery has found the webhook when its deletion, under way, commits.
        const { redelivering } = await whileRowsLocked(
          db,
          sql`DELETE FROM webhooks WHERE id = ${doomed.id}`,
          async () => {
            const redelivering = t
              .http()
              .post(`/v2/webhooks/${doomed.id}/redeliver`)
              .set('X-API-Key', keys.alice)
              .send({ deliveries: [ping!.id] })
              .then((answer) => answer);
            await untilWaitingForLock(db);
            return { redelivering };
          },
        );
        const answer = await redelivering;
        expect([answer.status, (answer.body as { code: string }).code]).toEqual([404, 'WEBHOOK_NOT_FOUND']);
        expect(receiver.at('/redelivered-meanwhile')).toHaveLength(1);
      });
    }

    it('fails a delivery after the last retry, disables the webhook, and restarts it on PATCH status active', async () => {
      const payee = randomAddress();
      await api.tag('always_down', [payee]);
      const down = await hook(alice, receiver, '/down', { tags: ['always_down'] });
      receiver.behave('/down', () => 500);
      await pay(6, payee, 1n);
      const disabled = await eventually('the webhook to be disabled', async () => {
        const webhook = await alice.get(down.id);
        return webhook.status === 'disabled' ? webhook : undefined;
      });
      expect(disabled.status).toBe('disabled');
      const [failed] = await alice.deliveries(down.id);
      // One attempt and a retry per entry of WEBHOOK_RETRY_SECONDS.
      expect(failed).toMatchObject({ status: 'failed', attempts: 4, response_status: 500, next_attempt_at: null });
      expect(receiver.at('/down')).toHaveLength(4);

      receiver.behave('/down', () => 200);
      await alice.patch(down.id, { status: 'active' });
      const after = await pay(6, payee, 2n);
      const delivered = await eventually('a delivery after the restart', () =>
        Promise.resolve(receiver.at('/down').find((request) => request.verified?.data.transaction?.tx_hash === after)),
      );
      expect(delivered.answered).toBe(200);
    });

    it('sends deliveries again on redeliver: the failed ones since an instant, or the ones named', async () => {
      const payee = randomAddress();
      await api.tag('was_down', [payee]);
      const down = await hook(alice, receiver, '/was-down', { tags: ['was_down'] });
      receiver.behave('/was-down', () => 500);
      const since = new Date(Date.now() - 1000).toISOString();
      const hash = await pay(6, payee, 1n);
      await eventually('the webhook to be disabled', async () =>
        (await alice.get(down.id)).status === 'disabled' ? true : undefined,
      );
      const [failed] = await alice.deliveries(down.id);
      expect(failed).toMatchObject({ status: 'failed', attempts: 4 });
      const log = async (status: string) =>
        (
          (await t.http().get(`/v2/webhooks/${down.id}/deliveries?status=${status}`).set('X-API-Key', keys.alice))
            .body as DeliveryAnswer[]
        ).map((row) => row.id);
      expect(await log('failed')).toEqual([failed!.id]);
      expect(await log('delivered')).toEqual([]);
      // The delivery alone: its log entry, and the payload every attempt posted.
      const one = async (deliveryId: string, id = down.id) =>
        t.http().get(`/v2/webhooks/${id}/deliveries/${deliveryId}`).set('X-API-Key', keys.alice);
      const attempts = receiver.at('/was-down');
      expect(new Set(attempts.map((request) => request.raw)).size).toBe(1);
      const shown = await one(failed!.id);
      expect({ status: shown.status, body: shown.body as unknown }).toEqual({
        status: 200,
        body: { ...failed, payload: JSON.parse(attempts[0]!.raw) as unknown },
      });
      expect(
        (shown.body as { payload: { data: { transaction: { tx_hash: string } } } }).payload.data.transaction.tx_hash,
      ).toBe(hash);
      const other = await hook(alice, receiver, '/was-down-other', { tags: ['was_down'] });
      const otherPing = await alice.ping(other.id);
      for (const [deliveryId, id] of [
        [otherPing, down.id], // another webhook's
        [failed!.id, other.id],
        ['evt_AAAAAAAAAAAAAAAAAAAAAA', down.id],
        ['evt_unknown', down.id],
        ['%FF', down.id],
        ['e'.repeat(5000), down.id],
      ] as const) {
        const missing = await one(deliveryId, id);
        const { code, message } = missing.body as { code: string; message: string };
        expect({ deliveryId, status: missing.status, code, short: message.length < 300 }).toEqual({
          deliveryId,
          status: 404,
          code: 'DELIVERY_NOT_FOUND',
          short: true,
        });
      }
      expect((await one(otherPing, other.id)).status).toBe(200);
      await t.http().delete(`/v2/webhooks/${other.id}`).set('X-API-Key', keys.alice).expect(204);
      const bogus = await t.http().get(`/v2/webhooks/${down.id}/deliveries?status=lost`).set('X-API-Key', keys.alice);
      expect({ status: bogus.status, code: (bogus.body as { code: string }).code }).toEqual({
        status: 400,
        code: 'INVALID_QUERY',
      });
      const redeliver = (body: string, key = keys.alice, id = down.id) =>
        t
          .http()
          .post(`/v2/webhooks/${id}/redeliver`)
          .set('X-API-Key', key)
          .set('Content-Type', 'application/json')
          .send(body);

      for (const bad of [
        '{}',
        '[]',
        JSON.stringify({ since: 'yesterday' }),
        JSON.stringify({ since, deliveries: [failed!.id] }),
        JSON.stringify({ deliveries: [] }),
        JSON.stringify({ deliveries: [7] }),
        JSON.stringify({ deliveries: Array.from({ length: 101 }, (_, i) => `evt_${i}`) }),
        JSON.stringify({ since, status: 'failed' }),
      ]) {
        const refused = await redeliver(bad);
        expect({ bad, status: refused.status, code: (refused.body as { code: string }).code }).toEqual({
          bad,
          status: 400,
          code: 'INVALID_BODY',
        });
      }
      expect((await redeliver(JSON.stringify({ since }), keys.bob)).status).toBe(404);
      expect((await redeliver(JSON.stringify({ since }), keys.alice, 'wh_nothing')).status).toBe(404);
      const later = new Date(Date.now() + 60_000).toISOString();
      expect((await redeliver(JSON.stringify({ since: later }))).body).toEqual({ redelivered: 0 });
      expect((await alice.deliveries(down.id))[0]).toMatchObject({ status: 'failed', attempts: 4 });

      // The receiver is back. Pending again, the delivery waits for the webhook to be active.
      receiver.behave('/was-down', () => 200);
      const again = await redeliver(JSON.stringify({ since }));
      expect({ status: again.status, body: again.body as unknown }).toEqual({ status: 202, body: { redelivered: 1 } });
      expect((await alice.deliveries(down.id))[0]).toMatchObject({ id: failed!.id, status: 'pending' });
      expect([await log('pending'), await log('failed')]).toEqual([[failed!.id], []]);
      await alice.patch(down.id, { status: 'active' });
      const [delivered] = await eventually('the delivery sent again', async () => {
        const rows = await alice.deliveries(down.id);
        return rows[0]?.status === 'delivered' ? rows : undefined;
      });
      expect(delivered).toMatchObject({ id: failed!.id, attempts: 5, response_status: 200, error: null });
      const sent = receiver.at('/was-down');
      expect(sent).toHaveLength(5);
      expect(new Set(sent.map((request) => request.id))).toEqual(new Set([failed!.id]));
      expect(sent[4]!.verified?.data.transaction?.tx_hash).toBe(hash);
      expect(sent[4]!.raw).toBe(sent[0]!.raw);

      // Named: a delivered one is sent once more; unknown ids change nothing.
      const named = await redeliver(JSON.stringify({ deliveries: [failed!.id, failed!.id, 'evt_unknown'] }));
      expect(named.body).toEqual({ redelivered: 1 });
      await eventually('the named delivery sent again', () =>
        Promise.resolve(receiver.at('/was-down').length === 6 ? true : undefined),
      );
      expect(
        await eventually('its attempt recorded', async () => {
          const [row] = await alice.deliveries(down.id);
          return row?.status === 'delivered' && row.attempts === 6 ? row : undefined;
        }),
      ).toMatchObject({ id: failed!.id });
    });

    it('keeps delivering to others while one receiver never answers and another answers 10 MB', async () => {
      const payee = randomAddress();
      await api.tag('slow_and_fast', [payee]);
      await hook(alice, receiver, '/hang', { tags: ['slow_and_fast'] });
      await hook(alice, receiver, '/huge', { tags: ['slow_and_fast'] });
      const fast = await hook(alice, receiver, '/fast', { tags: ['slow_and_fast'] });
      receiver.behave('/hang', () => 'hang');
      receiver.behave('/huge', () => 'huge');
      const started = Date.now();
      await pay(7, payee, 1n);
      await eventually('the fast receiver', () => Promise.resolve(receiver.at('/fast').length > 0 ? true : undefined));
      expect(Date.now() - started).toBeLessThan(5000);
      const [huge] = await eventually('the 10 MB answer to count as delivered', async () => {
        const webhooks = (await t.http().get('/v2/webhooks?per_page=100').set('X-API-Key', keys.alice).expect(200))
          .body as WebhookAnswer[];
        const id = webhooks.find((webhook) => webhook.url.endsWith('/huge'))!.id;
        const rows = await alice.deliveries(id);
        return rows[0]?.status === 'delivered' ? rows : undefined;
      });
      expect(huge!.response_status).toBe(200);
      expect((await alice.deliveries(fast.id))[0]!.status).toBe('delivered');
      // The receiver that never answers: the attempt ends after 10 s and is retried.
      const webhooks = (await t.http().get('/v2/webhooks?per_page=100').set('X-API-Key', keys.alice).expect(200))
        .body as WebhookAnswer[];
      const hangId = webhooks.find((webhook) => webhook.url.endsWith('/hang'))!.id;
      const [timedOut] = await eventually(
        'the attempt to time out',
        async () => {
          const rows = await alice.deliveries(hangId);
          return rows[0]?.error !== null && rows[0] !== undefined ? rows : undefined;
        },
        20_000,
      );
      expect(timedOut).toMatchObject({
        status: 'pending',
        attempts: 1,
        response_status: null,
        error: 'no answer within 10 s',
      });
      expect(Date.parse(timedOut!.last_attempt_at!) - started).toBeGreaterThanOrEqual(9_500);
      await alice.patch(hangId, { status: 'paused' });
    }, 40_000);

    it('does not follow redirects: a 3xx is a failed attempt', async () => {
      const payee = randomAddress();
      await api.tag('redirected', [payee]);
      const moved = await hook(alice, receiver, '/moved', { tags: ['redirected'] });
      receiver.behave('/moved', (_request, index) => (index === 0 ? 302 : 200));
      await pay(7, payee, 1n);
      const [row] = await eventually('the retry after the redirect', async () => {
        const rows = await alice.deliveries(moved.id);
        return rows[0]?.status === 'delivered' ? rows : undefined;
      });
      expect(row).toMatchObject({ attempts: 2, response_status: 200 });
      expect(receiver.at('/moved')).toHaveLength(2);
      expect(receiver.at('/moved/redirected')).toEqual([]);
    });

    it('decides by the tags as they stand when a transfer is recorded', async () => {
      const payee = randomAddress();
      await api.tag('untag_me', [payee, randomAddress()]);
      const made = await hook(alice, receiver, '/untagged-later', { tags: ['untag_me'] });
      const before = await pay(7, payee, 1n);
      await eventually('the first delivery', () =>
        Promise.resolve(receiver.at('/untagged-later').length > 0 ? true : undefined),
      );
      await t
        .http()
        .delete('/v2/tags/untag_me/addresses')
        .set('X-API-Key', keys.alice)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify([payee]))
        .expect(200);
      await pay(7, payee, 2n);
      await api.synced(anvil);
      const rows = await alice.deliveries(made.id);
      expect(rows).toHaveLength(1);
      expect(receiver.at('/untagged-later').map((request) => request.verified?.data.transaction?.tx_hash)).toEqual([
        before,
      ]);
    });

    it('announces transaction.removed when a reorganisation undoes an announced transfer', async () => {
      const payer = anvil.accounts[8]!.address;
      const payee = randomAddress();
      await api.tag('reorg_watch', [payee]);
      await api.synced(anvil);
      const reorgHook = await hook(alice, receiver, '/reorg', { tags: ['reorg_watch'] });
      const orphan = await pay(8, payee, 3n);
      await eventually('the confirmed event', () =>
        Promise.resolve(receiver.at('/reorg').length >= 1 ? true : undefined),
      );
      await anvil.reorg(1, [{ transaction: { from: payer, to: payee, value: 5n * ETHER }, block: 0 }]);
      const head = await anvil.publicClient.getBlock({ includeTransactions: true });
      const replacement = head.transactions[0]!;
      const requests = await eventually('removed and the replacement confirmed', () =>
        Promise.resolve(receiver.at('/reorg').length >= 3 ? receiver.at('/reorg') : undefined),
      );
      const events = requests.map((request) => ({
        type: request.verified!.type,
        hash: request.verified!.data.transaction!.tx_hash,
      }));
      expect(events).toEqual(
        expect.arrayContaining([
          { type: 'transaction.confirmed', hash: orphan },
          { type: 'transaction.removed', hash: orphan },
          { type: 'transaction.confirmed', hash: replacement.hash },
        ]),
      );
      expect(events).toHaveLength(3);
      const removed = requests.find((request) => request.verified!.type === 'transaction.removed')!;
      const confirmed = requests.find((request) => request.verified!.data.transaction!.tx_hash === orphan)!;
      // The removed transfer as it was announced.
      expect(removed.verified!.data).toEqual(confirmed.verified!.data);
      expect(removed.id).not.toBe(confirmed.id);
      // The undone transfer's confirmation is not sent again; its removal may be.
      const again = await t
        .http()
        .post(`/v2/webhooks/${reorgHook.id}/redeliver`)
        .set('X-API-Key', keys.alice)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ deliveries: [confirmed.id, removed.id] }));
      expect({ status: again.status, body: again.body as unknown }).toEqual({ status: 202, body: { redelivered: 1 } });
      const rows = await eventually('the removal sent again', async () => {
        const log = await alice.deliveries(reorgHook.id);
        return log.find((row) => row.id === removed.id && row.status === 'delivered' && row.attempts === 2)
          ? log
          : undefined;
      });
      expect(rows.find((row) => row.id === confirmed.id)).toMatchObject({ status: 'delivered', attempts: 1 });
      expect(receiver.at('/reorg').filter((request) => request.id === confirmed.id)).toHaveLength(1);
      void lower;
    });

    it('delivers every event after a SIGKILL while the receiver was down', async () => {
      const crashDb = await freshDatabase(kind);
      const down = await WebhookReceiver.start();
      const port = down.port;
      await down.close();
      const env = {
        ...SERVICE_ENV,
        DATABASE_URL: crashDb.url,
        API_KEYS: `alice:${keys.alice}`,
        RPC_URL_ETHEREUM: anvil.url,
        // The killed process's leases (its chain's and the dispatcher's) lapse after this.
        FOLLOW_LEASE_SECONDS: '3',
      };
      let server = await startServerProcess(env);
      try {
        const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
          const response = await fetch(`${server.url}${path}`, {
            method,
            headers: { 'x-api-key': keys.alice, 'content-type': 'application/json' },
            body: body === undefined ? undefined : JSON.stringify(body),
          });
          if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
          return response.json();
        };
        const payee = randomAddress();
        await call('POST', '/v2/tags/crash_watch', [payee]);
        const made = (await call('POST', '/v2/webhooks', {
          url: `http://127.0.0.1:${port}/crash`,
          tags: ['crash_watch'],
        })) as WebhookAnswer;
        const hashes = [await pay(9, payee, 1n), await pay(9, payee, 2n), await pay(9, payee, 3n)];
        await eventually('three attempted deliveries', async () => {
          const rows = (await call('GET', `/v2/webhooks/${made.id}/deliveries`)) as DeliveryAnswer[];
          return rows.length === 3 && rows.every((row) => row.attempts > 0 && row.status === 'pending')
            ? rows
            : undefined;
        });
        await server.kill();

        const up = await WebhookReceiver.start(port);
        up.secret('/crash', made.secret!);
        try {
          server = await startServerProcess(env);
          const received = await eventually('every event after the restart', () =>
            Promise.resolve(up.at('/crash').length >= 3 ? up.at('/crash') : undefined),
          );
          expect(received.every((request) => request.verified !== undefined)).toBe(true);
          expect(received.map((request) => request.verified!.data.transaction!.tx_hash).sort()).toEqual(
            [...hashes].sort(),
          );
          expect(new Set(received.map((request) => request.id)).size).toBe(3);
        } finally {
          await up.close();
        }
      } finally {
        await server.kill();
        await crashDb.drop();
      }
    }, 120_000);

    it('counts deliveries on /metrics, and shows no secret in metrics, logs or other answers', async () => {
      const metrics = (await t.http().get('/metrics').expect(200)).text;
      expect(metrics).toMatch(/^chaintags_webhook_deliveries_total\{outcome="delivered"\} [1-9]\d*$/m);
      expect(metrics).toMatch(/^chaintags_webhook_deliveries_total\{outcome="failed"\} [1-9]\d*$/m);
      expect(metrics).toMatch(/^chaintags_webhook_attempts_total\{outcome="http_error"\} [1-9]\d*$/m);
      expect(metrics).toMatch(/^chaintags_webhook_pending_deliveries \d+$/m);
      expect(metrics).toMatch(/^chaintags_webhook_oldest_pending_seconds [\d.e+-]+$/m);
      const everything = [
        metrics,
        logs.join('\n'),
        JSON.stringify((await t.http().get('/v2/webhooks?per_page=100').set('X-API-Key', keys.alice)).body),
      ].join('\n');
      expect(secrets.length).toBeGreaterThan(0);
      for (const secret of secrets) {
        expect(everything).not.toContain(secret);
        expect(everything).not.toContain(secret.slice('whsec_'.length));
      }
    });
  });
});

describe.each(DATABASES)('webhook URL safety on %s', (kind: DatabaseKind) => {
  let db: { url: string; drop: () => Promise<void> };
  let receiver: WebhookReceiver;
  const keys = { alice: newKey(), bob: newKey() };

  beforeAll(async () => {
    [db, receiver] = await Promise.all([freshDatabase(kind), WebhookReceiver.start()]);
  });

  afterAll(async () => {
    await receiver?.close();
    await db?.drop();
  });

  it('refuses internal addresses at creation and again at delivery unless WEBHOOK_ALLOW_PRIVATE_URLS=on', async () => {
    // Made while private URLs were allowed...
    const open = await startTestApp({
      databaseUrl: db.url,
      keys,
      env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'on', FOLLOW: 'off' },
    });
    const made = await new WebhookClient(open, keys.alice).create({ url: receiver.url('/inside'), tags: ['0'] });
    await open.close();

    const t = await startTestApp({ databaseUrl: db.url, keys, env: { FOLLOW: 'off', WEBHOOK_RETRY_SECONDS: '1' } });
    try {
      const client = new WebhookClient(t, keys.alice);
      for (const url of [
        receiver.url('/refused'),
        'http://localhost:9/',
        'http://[::1]:9/',
        'http://10.0.0.8/',
        'http://169.254.169.254/latest/meta-data',
        'http://[::ffff:127.0.0.1]/',
        'http://0x7f000001/',
      ]) {
        const refused = await client.create({ url, tags: ['0'] }, 400);
        expect({ url, code: refused.code }).toEqual({ url, code: 'INVALID_WEBHOOK_URL' });
      }
      expect((await client.patch(made.id, { url: 'http://127.0.0.2/' }, 400)).code).toBe('INVALID_WEBHOOK_URL');

      // ...it is refused at delivery now: nothing reaches the receiver, the log says why.
      await client.ping(made.id);
      const [row] = await eventually('the refused attempt', async () => {
        const rows = await client.deliveries(made.id);
        return rows[0] !== undefined && rows[0].attempts > 0 ? rows : undefined;
      });
      expect(row!.error).toMatch(/internal address/);
      expect(row!.response_status).toBeNull();
      expect(receiver.received).toEqual([]);
    } finally {
      await t.close();
    }
  });
});

describe('two dispatchers on one PostgreSQL', () => {
  let db: { url: string; drop: () => Promise<void> };
  let receiver: WebhookReceiver;
  const keys = { alice: newKey(), bob: newKey() };

  beforeAll(async () => {
    [db, receiver] = await Promise.all([freshDatabase('postgres'), WebhookReceiver.start()]);
  });

  afterAll(async () => {
    await receiver?.close();
    await db?.drop();
  });

  it('deliver each event once when answered, and hand over when one stops', async () => {
    const env = { WEBHOOK_ALLOW_PRIVATE_URLS: 'on', FOLLOW: 'off' };
    const first = await startTestApp({ databaseUrl: db.url, keys, env });
    const second = await startTestApp({ databaseUrl: db.url, keys, env });
    try {
      const one = new WebhookClient(first, keys.alice);
      const two = new WebhookClient(second, keys.alice);
      const made = await hook(one, receiver, '/twice', { tags: ['0'] });
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) ids.push(await (i % 2 === 0 ? one : two).ping(made.id));
      await eventually('every ping', () => Promise.resolve(receiver.at('/twice').length >= 20 ? true : undefined));
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(
        receiver
          .at('/twice')
          .map((request) => request.id)
          .sort(),
      ).toEqual([...ids].sort());

      // Whichever holds the lease stops; the other takes over.
      await first.close();
      const later = await two.ping(made.id);
      const arrived = await eventually(
        'a ping after the hand-over',
        () => Promise.resolve(receiver.at('/twice').find((request) => request.id === later)),
        40_000,
      );
      expect(arrived.verified?.type).toBe('webhook.ping');
      expect(receiver.at('/twice')).toHaveLength(21);
    } finally {
      await second.close();
      await first.close().catch(() => undefined);
    }
  });
});
