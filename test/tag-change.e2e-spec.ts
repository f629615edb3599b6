import { Db } from '../src/database/db.service';
import { sql } from '../src/database/sql';
import { findDrift } from '../src/modules/aggregates/aggregates.service';
import { evmAddresses } from './support/addresses';
import { asKey, importLines, tagAddresses } from './support/fixtures';
import { compareBinary, evmAddress, holdingLine, transaction, transactionLine } from './support/factories';
import { untilWaitingForLock, whileRowsLocked } from './support/row-locks';
import { asText, DATABASES, startOnFreshDatabase, TestApp } from './support/test-app';

/**
 * `PATCH /v2/tags/:tag`: a tag gets a new name and keeps everything else: members, kept stats,
 * timestamps, its description and the webhooks that listen to it; or a description, or both. The history records what the rename does to each
 * name (every member removed from the old one, added to the new one), so that each name's history
 * still replays to its members. On PostgreSQL, changes of the tag sent while it is renamed take
 * effect before it or, finding the old name gone, as if it had come first.
 */
describe.each(DATABASES)('changing a tag on %s', (kind) => {
  let t: TestApp;

  beforeAll(async () => {
    // Webhooks to a loopback address, which no delivery reaches in these tests.
    t = await startOnFreshDatabase(kind, { env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'on' } });
  });

  afterAll(async () => {
    await t.close();
  });

  const as = (key: string) => asKey(t, key);
  const alice = () => as(t.keys.alice);
  const bob = () => as(t.keys.bob);

  async function history(tag: string): Promise<{ action: string; address: string; key: string }[]> {
    const { body } = await alice().get(`/v2/tags/${tag}/history?per_page=100`).expect(200);
    return (body as { action: string; address: string; key: string }[]).map(({ action, address, key }) => ({
      action,
      address,
      key,
    }));
  }

  /** The members a name's history leaves, replayed oldest first. */
  async function replayed(tag: string): Promise<string[]> {
    const members = new Set<string>();
    for (const entry of (await history(tag)).reverse()) {
      if (entry.action === 'added') members.add(entry.address);
      else members.delete(entry.address);
    }
    return [...members].sort(compareBinary);
  }

  async function members(tag: string): Promise<string[]> {
    const { body } = await alice().get(`/v2/tags/${tag}/addresses?per_page=100`).expect(200);
    return (body as { address: string }[]).map((row) => row.address).sort(compareBinary);
  }

  it('keeps the members, stats, timestamps and webhooks, and records each member leaving the old name and joining the new', async () => {
    const [wa, wb, wc, wother] = ['a', 'b', 'c', 'other'].map((seed) => evmAddress(`rename-${seed}`)) as [
      ReturnType<typeof evmAddress>,
      ReturnType<typeof evmAddress>,
      ReturnType<typeof evmAddress>,
      ReturnType<typeof evmAddress>,
    ];
    const [a, b, c, other] = [wa, wb, wc, wother].map((address) => address.canonical) as [
      string,
      string,
      string,
      string,
    ];
    await importLines(t, [
      holdingLine({
        chain: 'ethereum',
        address: wa,
        token_address: '0',
        balance: '5000000000000000000',
        updated_at: '2024-06-01T00:00:00.000Z',
      }),
      transactionLine(transaction({ id: 'rename-1', chain: 'ethereum', from: wa, to: wb })),
      transactionLine(transaction({ id: 'rename-2', chain: 'base', from: wc, to: wother })),
    ]);
    await tagAddresses(t, t.keys.alice, 'rename_old_name', [a, b, c]).expect(200);
    await tagAddresses(t, t.keys.alice, 'rename_neighbour', [a]).expect(200);
    await alice().del('/v2/tags/rename_old_name/addresses', [c]).expect(200);
    await tagAddresses(t, t.keys.alice, 'rename_old_name', [c]).expect(200);
    const webhook = await alice()
      .post('/v2/webhooks', { url: 'http://127.0.0.1:9/hook', tags: ['rename_old_name', 'rename_neighbour'] })
      .expect(201);
    // A webhook of both names: the new one a deleted tag's, which the webhook keeps by name.
    await tagAddresses(t, t.keys.alice, 'rename_new_name', [other]).expect(200);
    const both = await alice()
      .post('/v2/webhooks', { url: 'http://127.0.0.1:9/both', tags: ['rename_old_name', 'rename_new_name'] })
      .expect(201);
    await alice().del('/v2/tags/rename_new_name').expect(204);
    const earlier = await history('rename_new_name');
    const before = (await alice().get('/v2/tags?per_page=100').expect(200)).body.find(
      (row: { tag: string }) => row.tag === 'rename_old_name',
    );
    const stats = (await alice().get('/v2/tags/rename_old_name').expect(200)).body.stats;
    const oldHistory = await history('rename_old_name');

    const renamed = await alice().patch('/v2/tags/rename_old_name', { name: 'rename_new_name' }).expect(200);
    expect(renamed.body).toEqual({ ...before, tag: 'rename_new_name' });

    await alice().get('/v2/tags/rename_old_name').expect(404);
    expect((await alice().get('/v2/tags/rename_new_name').expect(200)).body).toEqual({ tag: 'rename_new_name', stats });
    const names = (await alice().get('/v2/tags?per_page=100').expect(200)).body.map((row: { tag: string }) => row.tag);
    expect(names).toContain('rename_new_name');
    expect(names).not.toContain('rename_old_name');
    expect(await members('rename_new_name')).toEqual([a, b, c].sort(compareBinary));
    expect((await alice().get(`/v2/addresses/${a}`).expect(200)).body.tags).toEqual([
      'rename_neighbour',
      'rename_new_name',
    ]);
    const exported = (await alice().get('/v2/export/tags').buffer(true).parse(asText).expect(200)).body as string;
    expect(exported).toContain('"rename_new_name"');
    expect(exported).not.toContain('rename_old_name');

    // Each name's history: the old one's entries as they were, then every member removed; the new
    // one's, every member added, by the key that renamed it, at one instant.
    const prefix = t.keys.alice.slice(0, 12);
    const leaving = [a, b, c].sort(compareBinary).map((address) => ({ action: 'removed', address, key: prefix }));
    const joining = [a, b, c].sort(compareBinary).map((address) => ({ action: 'added', address, key: prefix }));
    const sorted = (entries: { address: string }[]) => [...entries].sort((x, y) => compareBinary(x.address, y.address));
    const oldNow = await history('rename_old_name');
    expect(oldNow.slice(3)).toEqual(oldHistory);
    expect(sorted(oldNow.slice(0, 3))).toEqual(leaving);
    const newNow = await history('rename_new_name');
    expect(newNow.slice(3)).toEqual(earlier);
    expect(sorted(newNow.slice(0, 3))).toEqual(joining);
    expect(await replayed('rename_old_name')).toEqual([]);
    expect(await replayed('rename_new_name')).toEqual(await members('rename_new_name'));

    // The webhooks listen to the new name; one that listened to both names keeps one.
    const shown = await alice().get(`/v2/webhooks/${webhook.body.id}`).expect(200);
    expect([...shown.body.tags].sort()).toEqual(['rename_neighbour', 'rename_new_name']);
    expect((await alice().get(`/v2/webhooks/${both.body.id}`).expect(200)).body.tags).toEqual(['rename_new_name']);

    // The old name is free again: a POST to it creates a new tag, whose history continues the name's.
    await tagAddresses(t, t.keys.alice, 'rename_old_name', [other]).expect(200);
    expect(await replayed('rename_old_name')).toEqual([other]);
    expect(await findDrift(t.app.get(Db))).toEqual([]);
  });

  it('answers the same name with the tag unchanged, and records nothing', async () => {
    const [a] = evmAddresses(1) as [string];
    await tagAddresses(t, t.keys.alice, 'rename_same', [a]).expect(200);
    const entries = await history('rename_same');
    const { body } = await alice().patch('/v2/tags/rename_same', { name: 'rename_same' }).expect(200);
    expect(body).toMatchObject({ tag: 'rename_same', address_count: 1 });
    expect(await history('rename_same')).toEqual(entries);
  });

  it('refuses a name the account has, the reserved 0 either way, bad names and bodies, and another account’s tag', async () => {
    const [a, b] = evmAddresses(2) as [string, string];
    await tagAddresses(t, t.keys.alice, 'rename_taken_a', [a]).expect(200);
    await tagAddresses(t, t.keys.alice, 'rename_taken_b', [b]).expect(200);
    await tagAddresses(t, t.keys.bob, 'rename_bobs_tag', [b]).expect(200);
    const refused = (response: { status: number; body: { code: string } }, status: number, code: string) =>
      expect({ status: response.status, code: response.body.code }).toEqual({ status, code });

    refused(await alice().patch('/v2/tags/rename_taken_a', { name: 'rename_taken_b' }), 409, 'TAG_EXISTS');
    refused(await alice().patch('/v2/tags/0', { name: 'rename_zero' }), 400, 'INVALID_TAG');
    refused(await alice().patch('/v2/tags/rename_taken_a', { name: '0' }), 400, 'INVALID_TAG');
    refused(await alice().patch('/v2/tags/rename_taken_a', { name: 'Bad-Name' }), 400, 'INVALID_TAG');
    refused(await alice().patch('/v2/tags/rename_taken_a', { name: 'abc' }), 400, 'INVALID_TAG');
    refused(await alice().patch('/v2/tags/BAD', { name: 'rename_fine' }), 400, 'INVALID_TAG');
    refused(await alice().patch('/v2/tags/rename_taken_a', ['rename_fine']), 400, 'INVALID_BODY');
    refused(await alice().patch('/v2/tags/rename_taken_a', { name: 5 }), 400, 'INVALID_BODY');
    refused(await alice().patch('/v2/tags/rename_taken_a', {}), 400, 'INVALID_BODY');
    refused(await alice().patch('/v2/tags/rename_taken_a', { name: 'rename_fine', x: 1 }), 400, 'INVALID_BODY');
    refused(await alice().patch('/v2/tags/rename_missing', { name: 'rename_fine' }), 404, 'TAG_NOT_FOUND');
    refused(await alice().patch('/v2/tags/rename_bobs_tag', { name: 'rename_fine' }), 404, 'TAG_NOT_FOUND');
    const plain = await t
      .http()
      .patch('/v2/tags/rename_taken_a')
      .set('X-API-Key', t.keys.alice)
      .set('Content-Type', 'text/plain')
      .send('{"name":"rename_fine"}');
    refused(plain, 415, 'UNSUPPORTED_MEDIA_TYPE');

    // Nothing changed; a name another account has is free in this one.
    expect(await members('rename_taken_a')).toEqual([a]);
    await alice().get('/v2/tags/rename_fine').expect(404);
    await alice().patch('/v2/tags/rename_taken_a', { name: 'rename_bobs_tag' }).expect(200);
    expect((await bob().get(`/v2/addresses/${b}`).expect(200)).body.tags).toEqual(['rename_bobs_tag']);
    expect((await alice().get(`/v2/addresses/${a}`).expect(200)).body.tags).toEqual(['rename_bobs_tag']);
  });

  it('describes a tag, and keeps the description through a rename until it is removed', async () => {
    const [a] = evmAddresses(1) as [string];
    await tagAddresses(t, t.keys.alice, 'described_tag', [a]).expect(200);
    const listed = async (tag: string) =>
      ((await alice().get('/v2/tags?per_page=100').expect(200)).body as { tag: string }[]).find(
        (row) => row.tag === tag,
      );
    const before = await listed('described_tag');
    expect(before).toMatchObject({ description: null });
    const entries = await history('described_tag');

    const text = 'Hot wallets of the exchanges we settle with — from their proof-of-reserves lists 😀';
    const described = await alice().patch('/v2/tags/described_tag', { description: text }).expect(200);
    expect(described.body).toEqual({ ...before, description: text });
    expect(await listed('described_tag')).toEqual({ ...before, description: text });
    expect(await history('described_tag')).toEqual(entries);

    const renamed = await alice().patch('/v2/tags/described_tag', { name: 'described_again' }).expect(200);
    expect(renamed.body).toEqual({ ...before, tag: 'described_again', description: text });
    const both = await alice()
      .patch('/v2/tags/described_again', { name: 'described_tag', description: 'Settlement wallets' })
      .expect(200);
    expect(both.body).toEqual({ ...before, description: 'Settlement wallets' });
    for (const none of [null, '']) {
      await alice().patch('/v2/tags/described_tag', { description: 'something' }).expect(200);
      const cleared = await alice().patch('/v2/tags/described_tag', { description: none }).expect(200);
      expect(cleared.body).toEqual(before);
    }
    // Characters, not UTF-16 units: 500 of a character outside the BMP fit.
    await alice()
      .patch('/v2/tags/described_tag', { description: '😀'.repeat(500) })
      .expect(200);
    expect((await listed('described_tag'))!).toMatchObject({ description: '😀'.repeat(500) });
  });

  it('refuses a description that is too long, holds control characters or is not text, and changes nothing', async () => {
    await tagAddresses(t, t.keys.alice, 'described_refused', evmAddresses(1)).expect(200);
    await alice().patch('/v2/tags/described_refused', { description: 'kept' }).expect(200);
    for (const description of [
      'x'.repeat(501),
      '😀'.repeat(501),
      'two\nlines',
      'a\tb',
      'nul\u0000',
      'c1\u0085',
      5,
      ['x'],
      {},
    ]) {
      const response = await alice().patch('/v2/tags/described_refused', { description });
      expect({ description, status: response.status, code: response.body.code }).toEqual({
        description,
        status: 400,
        code: 'INVALID_BODY',
      });
      expect(response.body.details).toEqual([
        { field: 'description', message: expect.stringContaining('description') },
      ]);
    }
    const missing = await alice().patch('/v2/tags/described_missing', { description: 'x' });
    expect([missing.status, missing.body.code]).toEqual([404, 'TAG_NOT_FOUND']);
    const reserved = await alice().patch('/v2/tags/0', { description: 'x' });
    expect([reserved.status, reserved.body.code]).toEqual([400, 'INVALID_TAG']);
    const bobs = await bob().patch('/v2/tags/described_refused', { description: 'x' });
    expect([bobs.status, bobs.body.code]).toEqual([404, 'TAG_NOT_FOUND']);
    const { body } = await alice().get('/v2/tags?per_page=100').expect(200);
    expect((body as { tag: string }[]).find((row) => row.tag === 'described_refused')).toMatchObject({
      description: 'kept',
    });
  });

  if (kind === 'postgres') {
    it('lets a POST to the tag that is under way go first, then renames the tag with its new member', async () => {
      const db = t.app.get(Db);
      const [member, blocker] = evmAddresses(2) as [string, string];
      await tagAddresses(t, t.keys.alice, 'rename_race_post', [member]).expect(200);
      await alice().post('/v2/tags/0', [blocker]).expect(200);
      // The POST holds the account's tracked set and waits for the blocker's row; the rename waits
      // for the set.
      const { post, rename } = await whileRowsLocked(
        db,
        sql`SELECT address FROM tracked_addresses WHERE address = ${blocker} FOR UPDATE`,
        async () => {
          const post = alice()
            .post('/v2/tags/rename_race_post', [blocker])
            .then((answer) => answer);
          await untilWaitingForLock(db);
          const rename = alice()
            .patch('/v2/tags/rename_race_post', { name: 'rename_race_posted' })
            .then((answer) => answer);
          await untilWaitingForLock(db, 15_000, 2);
          return { post, rename };
        },
      );
      expect((await post).status).toBe(200);
      expect((await post).body[0].tags).toEqual(['rename_race_post']);
      expect((await rename).body).toMatchObject({ tag: 'rename_race_posted', address_count: 2 });
      expect(await members('rename_race_posted')).toEqual([member, blocker].sort(compareBinary));
      expect(await replayed('rename_race_posted')).toEqual([member, blocker].sort(compareBinary));
      expect(await replayed('rename_race_post')).toEqual([]);
      expect(await findDrift(db)).toEqual([]);
    });

    it('answers TAG_NOT_FOUND to a removal that found the tag before it was renamed', async () => {
      const db = t.app.get(Db);
      const [blocker, member] = evmAddresses(2).sort(compareBinary) as [string, string];
      await alice().post('/v2/tags/0', [blocker]).expect(200);
      await tagAddresses(t, t.keys.alice, 'rename_race_removal', [member]).expect(200);
      // The removal finds the tag and waits for the blocker's tracked row, the first in address
      // order; meanwhile the tag is renamed.
      const { removing } = await whileRowsLocked(
        db,
        sql`SELECT address FROM tracked_addresses WHERE address = ${blocker} FOR UPDATE`,
        async () => {
          const removing = alice()
            .del('/v2/tags/rename_race_removal/addresses', [blocker, member])
            .then((answer) => answer);
          await untilWaitingForLock(db);
          await alice().patch('/v2/tags/rename_race_removal', { name: 'rename_race_removed' }).expect(200);
          return { removing };
        },
      );
      // Only the order rename, removal fits: the removal finds no tag of its name.
      const removal = await removing;
      expect([removal.status, removal.body.code]).toEqual([404, 'TAG_NOT_FOUND']);
      expect(await members('rename_race_removed')).toEqual([member]);
      expect(await replayed('rename_race_removed')).toEqual([member]);
      expect(await replayed('rename_race_removal')).toEqual([]);
      expect(await findDrift(db)).toEqual([]);
    });

    it('answers TAG_NOT_FOUND to a deletion that found the tag before it was renamed', async () => {
      const db = t.app.get(Db);
      const [member] = evmAddresses(1) as [string];
      await tagAddresses(t, t.keys.alice, 'rename_race_delete', [member]).expect(200);
      // The deletion finds the tag and its member, and waits for the member's tracked row, which a
      // rename does not take; meanwhile the tag is renamed.
      const { deleting } = await whileRowsLocked(
        db,
        sql`SELECT address FROM tracked_addresses WHERE address = ${member} FOR UPDATE`,
        async () => {
          const deleting = alice()
            .del('/v2/tags/rename_race_delete')
            .then((answer) => answer);
          await untilWaitingForLock(db);
          await alice().patch('/v2/tags/rename_race_delete', { name: 'rename_race_deleted' }).expect(200);
          return { deleting };
        },
      );
      const deletion = await deleting;
      expect([deletion.status, deletion.body.code]).toEqual([404, 'TAG_NOT_FOUND']);
      expect(await members('rename_race_deleted')).toEqual([member]);
      expect(await replayed('rename_race_deleted')).toEqual([member]);
      expect(await findDrift(db)).toEqual([]);
    });

    it('answers TAG_NOT_FOUND to a webhook that named the tag while it was renamed, and creates none', async () => {
      const db = t.app.get(Db);
      await tagAddresses(t, t.keys.alice, 'rename_race_hook', evmAddresses(1)).expect(200);
      const webhooks = async (): Promise<number> =>
        (await alice().get('/v2/webhooks?per_page=100').expect(200)).body.length as number;
      const before = await webhooks();
      // The creation has found the tag's name well formed and waits for the account's row (the
      // cap's lock); meanwhile the tag is renamed.
      const { creating } = await whileRowsLocked(
        db,
        sql`SELECT id FROM accounts WHERE name = ${'alice'} FOR UPDATE`,
        async () => {
          const creating = alice()
            .post('/v2/webhooks', { url: 'http://127.0.0.1:9/race', tags: ['rename_race_hook'] })
            .then((answer) => answer);
          await untilWaitingForLock(db);
          await alice().patch('/v2/tags/rename_race_hook', { name: 'rename_race_hooked' }).expect(200);
          return { creating };
        },
      );
      // Only the order rename, creation fits: no tag of the old name is left to listen to.
      const creation = await creating;
      expect([creation.status, creation.body.code]).toEqual([404, 'TAG_NOT_FOUND']);
      expect(await webhooks()).toBe(before);
    });

    it('answers TAG_NOT_FOUND to a webhook change that named the tag while it was renamed, and changes nothing', async () => {
      const db = t.app.get(Db);
      await tagAddresses(t, t.keys.alice, 'rename_race_kept', evmAddresses(1)).expect(200);
      await tagAddresses(t, t.keys.alice, 'rename_race_change', evmAddresses(1)).expect(200);
      const created = await alice()
        .post('/v2/webhooks', { url: 'http://127.0.0.1:9/change', tags: ['rename_race_kept'] })
        .expect(201);
      const id = created.body.id as string;
      // The change waits for the webhook's row; meanwhile the tag it names is renamed.
      const { changing } = await whileRowsLocked(
        db,
        sql`SELECT id FROM webhooks WHERE id = ${id} FOR UPDATE`,
        async () => {
          const changing = alice()
            .patch(`/v2/webhooks/${id}`, { tags: ['rename_race_change'], description: 'changed' })
            .then((answer) => answer);
          await untilWaitingForLock(db);
          await alice().patch('/v2/tags/rename_race_change', { name: 'rename_race_changed' }).expect(200);
          return { changing };
        },
      );
      const change = await changing;
      expect([change.status, change.body.code]).toEqual([404, 'TAG_NOT_FOUND']);
      expect((await alice().get(`/v2/webhooks/${id}`).expect(200)).body).toMatchObject({
        tags: ['rename_race_kept'],
        description: null,
      });
    });
  }
});
