import { randomBytes } from 'node:crypto';
import { findDrift } from '../src/modules/aggregates/aggregates.service';
import { Db } from '../src/database/db.service';
import { BURNED } from '../src/modules/follow/sui/sui-transaction';
import { eventually, FollowClient, HoldingRow, SyncRow, TransactionRow } from './support/follow-client';
import { FollowerProcess, killedMidCatchUp } from './support/follower-process';
import { SUI_TYPE, SuiStandIn } from './support/sui-node-stand-in';
import { DATABASES, DatabaseKind, freshDatabase, startTestApp, TestApp } from './support/test-app';
import { expectAnnouncedOnce, hook, WebhookClient, WebhookReceiver } from './support/webhook-receiver';

/**
 * The Sui follower against a stand-in of a full node's gRPC API (test/support/sui-node-stand-in.ts):
 * no Sui node or Move VM runs here, so the stand-in models the ledger (coin balances, balance
 * changes net of gas, sponsored gas) and answers with `@mysten/sui`'s own protocol messages, as
 * gRPC-web. Read through chaintags' API, on both databases. Every wait polls a condition.
 */

function followEnv(node: SuiStandIn, extra: Record<string, string> = {}): Record<string, string> {
  return { FOLLOW_INTERVAL_MS: '100', RPC_URL_SUI: node.url, NETWORK_SUI: 'localnet', ...extra };
}

const account = (): string => `0x${randomBytes(32).toString('hex')}`;

class SuiClient extends FollowClient {
  async sync(): Promise<SyncRow> {
    return (await this.get<SyncRow[]>('/v2/sync')).find((row) => row.chain === 'sui')!;
  }

  /** Waits until the follower has committed the stand-in's newest checkpoint. */
  atHead(node: SuiStandIn): Promise<SyncRow> {
    return eventually('the Sui follower to reach the head', async () => {
      const row = await this.sync();
      return row.status === 'synced' && row.indexed_block === String(node.checkpoint()) ? row : undefined;
    });
  }

  list(address: string): Promise<TransactionRow[]> {
    return this.everyTransaction(`chain=sui&address=${address}`);
  }

  override holdings(address: string): Promise<HoldingRow[]> {
    return this.get<HoldingRow[]>(`/v2/token-holdings?chain=sui&address=${address}&per_page=100`);
  }
}

describe.each(DATABASES)('following Sui through a full node’s gRPC API, on %s', (kind: DatabaseKind) => {
  let node: SuiStandIn;
  let db: { url: string; drop: () => Promise<void> };
  let t: TestApp;
  let api: SuiClient;
  let receiver: WebhookReceiver;
  const alice = account(); // tracked
  const bob = account(); // tracked
  const carol = account(); // not tracked

  const expectNoDrift = async (): Promise<void> => {
    expect(await findDrift(t.app.get(Db))).toEqual([]);
  };
  /** chaintags' balance of `coinType` (`0`: SUI) against the node's (no holding: 0). */
  const expectBalance = async (owner: string, coinType = '0'): Promise<void> => {
    const held = node.sealedBalance(owner, coinType === '0' ? SUI_TYPE : coinType);
    expect((await api.balance(owner, coinType)) ?? '0').toBe(held.toString());
  };

  beforeAll(async () => {
    node = await SuiStandIn.start();
    [db, receiver] = await Promise.all([freshDatabase(kind), WebhookReceiver.start()]);
    t = await startTestApp({
      databaseUrl: db.url,
      env: followEnv(node, { WEBHOOK_ALLOW_PRIVATE_URLS: 'on', WEBHOOK_RETRY_SECONDS: '1,1,1' }),
    });
    api = new SuiClient(t);
    await api.tag('sui_wallets', [alice, bob]);
    await api.atHead(node);
    node.fund(alice, 50_000_000n);
    node.fund(carol, 90_000_000n);
    node.seal();
    await api.atHead(node);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    await db?.drop();
    await node?.stop();
  });

  it('lists sui in /v2/sync, synced with no confirmations; a funding with nobody paying is a mint', async () => {
    expect(await api.sync()).toMatchObject({
      status: 'synced',
      indexed_block: String(node.checkpoint()),
      confirmations: 0,
      error: null,
    });
    const funded = (await api.list(alice)).filter((row) => row.value === '50000000');
    expect(funded).toMatchObject([{ from_address: '0', to_address: alice, token_address: '0', chain: 'sui' }]);
    await expectBalance(alice);
  });

  it('records SUI in, out and between tracked addresses once each, gas no transfer, balances the node’s', async () => {
    const received = node.transfer({
      sender: carol,
      legs: [{ from: carol, to: alice, coinType: SUI_TYPE, amount: 700n }],
    });
    const between = node.transfer({
      sender: alice,
      legs: [{ from: alice, to: bob, coinType: SUI_TYPE, amount: 300n }],
    });
    const sent = node.transfer({ sender: alice, legs: [{ from: alice, to: carol, coinType: SUI_TYPE, amount: 20n }] });
    node.seal();
    await api.atHead(node);
    const rows = new Map((await api.list(alice)).map((row) => [row.id, row]));
    expect(rows.get(`sui:${received}:0`)).toMatchObject({
      token_address: '0',
      from_address: carol,
      to_address: alice,
      value: '700',
      tx_hash: received,
      block_number: String(node.checkpoint()),
    });
    expect(rows.get(`sui:${sent}:0`)).toMatchObject({ from_address: alice, to_address: carol, value: '20' });
    const toBob = (await api.list(bob)).filter((row) => row.tx_hash === between);
    expect(toBob.map((row) => [row.id, row.from_address, row.value])).toEqual([[`sui:${between}:0`, alice, '300']]);
    // No transfer to the burn address for gas.
    expect([...rows.values()].filter((row) => row.to_address === BURNED)).toEqual([]);
    await expectBalance(alice);
    await expectBalance(bob);
    await expectNoDrift();
  });

  it('discovers a coin from its metadata and records it by coin type', async () => {
    const coin = node.createCoin({ name: 'Stand-in Dollar', symbol: 'SUSD', decimals: 6 });
    node.mint({ sender: carol, to: carol, coinType: coin, amount: 1_000_000n });
    const paid = node.transfer({ sender: carol, legs: [{ from: carol, to: alice, coinType: coin, amount: 250_000n }] });
    node.seal();
    await api.atHead(node);
    const moved = (await api.list(alice)).filter((row) => row.tx_hash === paid);
    expect(moved).toMatchObject([{ id: `sui:${paid}:0`, token_address: coin, from_address: carol, value: '250000' }]);
    await expectBalance(alice, coin);
    const slug = `sui-${coin
      .slice(2)
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')}`;
    const tokens =
      await api.get<{ id: string; name: string; symbol: string; deployments: { decimals: number }[] }[]>(
        '/v2/tokens?per_page=100',
      );
    expect(tokens.find((token) => token.id === slug)).toMatchObject({
      name: 'Stand-in Dollar',
      symbol: 'SUSD',
      deployments: [{ chain: 'sui', address: coin, decimals: 6 }],
    });
  });

  it('pays several in one transaction, burns to the zero address, and reads a sponsor’s gas', async () => {
    const coin = node.createCoin({ name: 'Second', symbol: 'SEC', decimals: 2 });
    node.fund(bob, 1_000_000n);
    node.mint({ sender: carol, to: bob, coinType: coin, amount: 500n });
    const split = node.transfer({
      sender: alice,
      gasOwner: bob,
      legs: [
        { from: alice, to: bob, coinType: SUI_TYPE, amount: 1_000n },
        { from: alice, to: carol, coinType: SUI_TYPE, amount: 2_000n },
      ],
    });
    const burnt = node.burn({ sender: bob, from: bob, coinType: coin, amount: 120n });
    node.seal();
    await api.atHead(node);
    const ofAlice = (await api.list(alice)).filter((row) => row.tx_hash === split);
    expect(ofAlice.map((row) => [row.to_address, row.value]).sort()).toEqual(
      [
        [bob, '1000'],
        [carol, '2000'],
      ].sort(),
    );
    expect((await api.list(bob)).find((row) => row.tx_hash === burnt)).toMatchObject({
      from_address: bob,
      to_address: BURNED,
      value: '120',
      token_address: coin,
    });
    // bob paid alice's gas: his SUI is read again, and it is the node's.
    await expectBalance(bob);
    await expectBalance(alice);
    await expectBalance(bob, coin);
    await expectNoDrift();
  });

  it('asks again when the node answers UNAVAILABLE, with nothing missed', async () => {
    const paid = node.transfer({ sender: carol, legs: [{ from: carol, to: bob, coinType: SUI_TYPE, amount: 55n }] });
    node.seal();
    const failedBefore = node.calls.filter((call) => call.code === 14).length;
    node.failNext(2);
    await api.atHead(node);
    expect(node.calls.filter((call) => call.code === 14).length - failedBefore).toBe(2);
    expect((await api.list(bob)).filter((row) => row.tx_hash === paid)).toHaveLength(1);
    expect((await api.sync()).error).toBeNull();
  });

  it('records nothing of a failed transaction but its gas', async () => {
    const before = new Set((await api.list(alice)).map((row) => row.id));
    node.fail({ sender: alice });
    node.seal();
    await api.atHead(node);
    expect((await api.list(alice)).filter((row) => !before.has(row.id))).toEqual([]);
    await expectBalance(alice);
  });

  it('takes in an address tracked later with every coin it holds, and follows it from then on', async () => {
    const dave = account();
    const coin = node.createCoin({ name: 'Third', symbol: 'THR', decimals: 3 });
    node.mint({ sender: carol, to: dave, coinType: coin, amount: 77n });
    const early = node.transfer({
      sender: carol,
      legs: [{ from: carol, to: dave, coinType: SUI_TYPE, amount: 9_999n }],
    });
    node.seal();
    await api.atHead(node);
    await api.tag('tracked_later', [dave]);
    await eventually('dave taken in', async () => ((await api.balance(dave, coin)) === '77' ? true : undefined));
    await expectBalance(dave);
    const late = node.transfer({ sender: carol, legs: [{ from: carol, to: dave, coinType: SUI_TYPE, amount: 1n }] });
    node.seal();
    await api.atHead(node);
    const rows = await api.list(dave);
    expect(rows.map((row) => row.tx_hash)).toEqual([late]);
    expect(rows.some((row) => row.tx_hash === early)).toBe(false);
    await expectBalance(dave);
    await expectNoDrift();
  });

  it('announces each transfer of tagged wallets to a webhook once, as /v2/transactions shows it, and nothing before an address was tagged', async () => {
    // The later tag exists before the webhook names it; erin joins it once the webhook listens.
    await api.tag('sui_later', [account()]);
    const webhooks = new WebhookClient(t, t.keys.alice);
    const { id: webhook } = await hook(webhooks, receiver, '/sui', {
      tags: ['sui_wallets', 'sui_later'],
      chains: ['sui'],
    });
    const erin = account();
    const dan = account(); // never tracked
    const into = node.transfer({ sender: carol, legs: [{ from: carol, to: alice, coinType: SUI_TYPE, amount: 41n }] });
    const between = node.transfer({
      sender: alice,
      legs: [{ from: alice, to: bob, coinType: SUI_TYPE, amount: 42n }],
    });
    node.transfer({ sender: carol, legs: [{ from: carol, to: dan, coinType: SUI_TYPE, amount: 43n }] });
    const early = node.transfer({ sender: carol, legs: [{ from: carol, to: erin, coinType: SUI_TYPE, amount: 44n }] });
    node.seal();
    await api.atHead(node);
    await api.tag('sui_later', [erin]);
    await eventually('erin taken in', async () => ((await api.balance(erin)) === '44' ? true : undefined));
    const live = node.transfer({ sender: carol, legs: [{ from: carol, to: erin, coinType: SUI_TYPE, amount: 45n }] });
    node.seal();
    await api.atHead(node);

    const byDigest = async (owner: string, digest: string): Promise<TransactionRow> =>
      (await api.list(owner)).find((row) => row.tx_hash === digest)!;
    const expected = [
      { transaction: await byDigest(alice, into), tags: ['sui_wallets'] },
      { transaction: await byDigest(bob, between), tags: ['sui_wallets'] },
      { transaction: await byDigest(erin, live), tags: ['sui_later'] },
    ];
    expect(expected.map((entry) => entry.transaction.value).sort()).toEqual(['41', '42', '45']);
    expect((await api.list(erin)).some((row) => row.tx_hash === early)).toBe(false);
    await expectAnnouncedOnce(webhooks, receiver, { id: webhook, path: '/sui' }, expected);
  });
});

describe.each(DATABASES)('a Sui follower process killed mid-catch-up, on %s', (kind: DatabaseKind) => {
  let node: SuiStandIn;
  let db: { url: string; drop: () => Promise<void> };
  let t: TestApp;
  const workers: FollowerProcess[] = [];

  beforeAll(async () => {
    node = await SuiStandIn.start();
    db = await freshDatabase(kind);
    t = await startTestApp({ databaseUrl: db.url });
  });

  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.kill()));
    await t?.close();
    await db?.drop();
    await node?.stop();
  });

  it('resumes where it committed after SIGKILL: every payment once, the kept stats exact, no URL in its log', async () => {
    const api = new SuiClient(t);
    const payer = account();
    const payee = account();
    await api.tag('killed', [payee]);
    node.fund(payer, 10n ** 12n);
    node.seal();
    const digests: string[] = [];
    for (let index = 0; index < 150; index++) {
      digests.push(
        node.transfer({
          sender: payer,
          legs: [{ from: payer, to: payee, coinType: SUI_TYPE, amount: 1_000n + BigInt(index) }],
        }),
      );
      node.seal();
    }
    const { victim, survivor } = await killedMidCatchUp({
      databaseUrl: db.url,
      env: { ...followEnv(node, { FOLLOW_INTERVAL_MS: '50', FOLLOW_LEASE_SECONDS: '2' }), LOG_LEVEL: 'debug' },
      workers,
      indexed: async () => (await api.sync()).indexed_block,
      head: () => node.checkpoint(),
      slow: (delayMs) => {
        node.delayMs = delayMs;
      },
    });
    const payments = (await api.list(payee)).filter((row) => row.from_address === payer);
    expect(payments.map((row) => row.tx_hash).sort()).toEqual([...digests].sort());
    expect(new Set(payments.map((row) => row.id)).size).toBe(payments.length);
    expect((await api.balance(payee)) ?? '0').toBe(node.sealedBalance(payee, SUI_TYPE).toString());
    expect(await findDrift(t.app.get(Db))).toEqual([]);
    expect(survivor.log()).toContain('sui');
    // The RPC URL (where a provider's key rides) is never logged.
    expect(victim.log()).not.toContain(node.url);
    expect(survivor.log()).not.toContain(node.url);
  });
});

describe.each(DATABASES)('a Sui node on another network, or pruned, on %s', (kind: DatabaseKind) => {
  let node: SuiStandIn;
  let db: { url: string; drop: () => Promise<void> };
  let t: TestApp | undefined;

  beforeAll(async () => {
    node = await SuiStandIn.start();
    db = await freshDatabase(kind);
  });

  afterAll(async () => {
    await t?.close();
    await db?.drop();
    await node?.stop();
  });

  /** The chain's error once it matches `pattern` (an earlier process's may still be shown first). */
  const errorOf = async (api: SuiClient, pattern: RegExp): Promise<SyncRow> =>
    eventually(`an error matching ${pattern}`, async () => {
      const found = await api.sync();
      return found.status === 'error' && pattern.test(found.error ?? '') ? found : undefined;
    });

  it('writes nothing for a node that is not on mainnet, then says which setting a pruned start needs', async () => {
    const someone = account();
    node.fund(someone, 1_000_000n);
    node.sealEmpty(5);
    t = await startTestApp({ databaseUrl: db.url, env: followEnv(node, { NETWORK_SUI: 'mainnet' }) });
    let api = new SuiClient(t);
    await api.tag('wrong_network', [someone]);
    let row = await errorOf(api, /^NETWORK_SUI is mainnet, but the node is on localnet: nothing is written/);
    expect(row.error).not.toContain('127.0.0.1');
    expect(row.indexed_block).toBeNull();
    await t.close();

    node.prune(4);
    t = await startTestApp({ databaseUrl: db.url, env: followEnv(node) });
    api = new SuiClient(t);
    row = await errorOf(
      api,
      /^checkpoint 0 is pruned on the node \(its oldest is 4\): START_BLOCK_SUI must be at or above/,
    );
    expect(row.indexed_block).toBeNull();
    await t.close();

    t = await startTestApp({ databaseUrl: db.url, env: followEnv(node, { START_BLOCK_SUI: '4' }) });
    api = new SuiClient(t);
    const later = node.transfer({
      sender: someone,
      legs: [{ from: someone, to: account(), coinType: SUI_TYPE, amount: 10n }],
    });
    node.seal();
    await api.atHead(node);
    expect((await api.list(someone)).map((entry) => entry.tx_hash)).toEqual([later]);
    expect((await api.balance(someone)) ?? '0').toBe(node.sealedBalance(someone, SUI_TYPE).toString());
  });
});
