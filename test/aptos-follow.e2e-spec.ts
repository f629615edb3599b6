import { randomBytes } from 'node:crypto';
import { findDrift } from '../src/modules/aggregates/aggregates.service';
import { Db } from '../src/database/db.service';
import { APT_METADATA } from '../src/modules/follow/aptos/aptos-shapes';
import { BURNED } from '../src/modules/follow/aptos/aptos-transaction';
import type { NodeCheck } from '../src/modules/follow/follow.service';
import { AptosStandIn } from './support/aptos-node-stand-in';
import { runCli } from './support/cli';
import { eventually, FollowClient, HoldingRow, SyncRow, TransactionRow } from './support/follow-client';
import { FollowerProcess, killedMidCatchUp } from './support/follower-process';
import { DATABASES, DatabaseKind, freshDatabase, startTestApp, TestApp } from './support/test-app';
import { expectAnnouncedOnce, hook, WebhookClient, WebhookReceiver } from './support/webhook-receiver';

/**
 * The Aptos follower against a stand-in of the Aptos node API (test/support/aptos-node-stand-in.ts):
 * no Aptos node or Move VM runs here, so the stand-in models the ledger (primary fungible stores,
 * coin events, gas burned without an event) and answers in the API's documented shapes. Read
 * through chaintags' API, on both databases. Every wait polls a condition.
 */

const API_KEY = 'aptos-stand-in-key-5c1e';

function followEnv(node: AptosStandIn, extra: Record<string, string> = {}): Record<string, string> {
  return {
    FOLLOW_INTERVAL_MS: '100',
    RPC_URL_APTOS: `${node.url}?api_key=${API_KEY}`,
    NETWORK_APTOS: 'localnet',
    ...extra,
  };
}

const account = (): string => `0x${randomBytes(32).toString('hex')}`;

class AptosClient extends FollowClient {
  async sync(): Promise<SyncRow> {
    return (await this.get<SyncRow[]>('/v2/sync')).find((row) => row.chain === 'aptos')!;
  }

  /** Waits until the follower has committed the stand-in's newest block. */
  atHead(node: AptosStandIn): Promise<SyncRow> {
    return eventually('the Aptos follower to reach the head', async () => {
      const row = await this.sync();
      return row.status === 'synced' && row.indexed_block === String(node.height()) ? row : undefined;
    });
  }

  list(address: string): Promise<TransactionRow[]> {
    return this.everyTransaction(`chain=aptos&address=${address}`);
  }

  override holdings(address: string): Promise<HoldingRow[]> {
    return this.get<HoldingRow[]>(`/v2/token-holdings?chain=aptos&address=${address}&per_page=100`);
  }
}

describe.each(DATABASES)('following Aptos through its node API, on %s', (kind: DatabaseKind) => {
  let node: AptosStandIn;
  let db: { url: string; drop: () => Promise<void> };
  let t: TestApp;
  let api: AptosClient;
  let receiver: WebhookReceiver;
  const alice = account(); // tracked
  const bob = account(); // tracked
  const carol = account(); // not tracked

  const expectNoDrift = async (): Promise<void> => {
    expect(await findDrift(t.app.get(Db))).toEqual([]);
  };
  /** chaintags' balance of `token` against the node's (no holding: 0). */
  const expectBalance = async (owner: string, token = '0'): Promise<void> => {
    const asset = token === '0' ? APT_METADATA : token;
    expect((await api.balance(owner, token)) ?? '0').toBe(node.balance(owner, asset).toString());
  };

  beforeAll(async () => {
    // Pages of three transactions: most blocks below are completed from /v1/transactions.
    node = await AptosStandIn.start({ apiKey: API_KEY, pageSize: 3 });
    [db, receiver] = await Promise.all([freshDatabase(kind), WebhookReceiver.start()]);
    t = await startTestApp({
      databaseUrl: db.url,
      env: followEnv(node, { WEBHOOK_ALLOW_PRIVATE_URLS: 'on', WEBHOOK_RETRY_SECONDS: '1,1,1' }),
    });
    api = new AptosClient(t);
    await api.tag('aptos_wallets', [alice, bob]);
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

  it('lists aptos in /v2/sync, synced with no confirmations, the key sent as a Bearer token and shown nowhere', async () => {
    const row = await api.sync();
    expect(row).toMatchObject({
      status: 'synced',
      indexed_block: String(node.height()),
      confirmations: 0,
      error: null,
    });
    expect(JSON.stringify(await api.get<SyncRow[]>('/v2/sync'))).not.toContain(API_KEY);
    expect(node.calls.length).toBeGreaterThan(0);
    expect(node.calls.every((call) => call.authorization === `Bearer ${API_KEY}` && !('api_key' in call.query))).toBe(
      true,
    );
    // The faucet's deposit has no withdrawal beside it: a mint.
    const funded = (await api.list(alice)).filter((entry) => entry.value === '50000000');
    expect(funded).toMatchObject([{ from_address: '0', to_address: alice, token_address: '0' }]);
    await expectBalance(alice);
  });

  it('answers follow --check with the node’s height beside the block indexed, the key shown nowhere', async () => {
    const checked = await runCli(db.url, ['follow', '--check'], undefined, { env: followEnv(node) });
    const height = String(node.height());
    expect({ code: checked.code, chains: (JSON.parse(checked.stdout) as { chains: NodeCheck[] }).chains }).toEqual({
      code: 0,
      chains: [{ chain: 'aptos', ok: true, head: height, indexed: height, behind: '0', error: null }],
    });
    expect(checked.stderr).toBe(`aptos: ok, head ${height}, indexed ${height} (0 behind the node)\n`);
    expect(checked.stdout + checked.stderr).not.toContain(API_KEY);
  });

  it('records APT in, out and between tracked accounts once each, with balances the node gives (gas included)', async () => {
    const received = node.transfer({
      sender: carol,
      legs: [{ from: carol, to: alice, asset: APT_METADATA, amount: 700n }],
    });
    const between = node.transfer({
      sender: alice,
      legs: [{ from: alice, to: bob, asset: APT_METADATA, amount: 300n }],
    });
    const sent = node.transfer({ sender: alice, legs: [{ from: alice, to: carol, asset: APT_METADATA, amount: 20n }] });
    node.seal();
    await api.atHead(node);
    const rows = new Map((await api.list(alice)).map((row) => [row.id, row]));
    const block = String(node.height());
    expect(rows.get(`aptos:${received}:0`)).toMatchObject({
      chain: 'aptos',
      token_address: '0',
      from_address: carol,
      to_address: alice,
      value: '700',
      tx_hash: received,
      block_number: block,
    });
    expect(rows.get(`aptos:${sent}:0`)).toMatchObject({ from_address: alice, to_address: carol, value: '20' });
    const toBob = (await api.list(bob)).filter((row) => row.tx_hash === between);
    expect(toBob.map((row) => [row.id, row.from_address, row.value])).toEqual([[`aptos:${between}:0`, alice, '300']]);
    expect(rows.get(`aptos:${between}:0`)).toEqual(toBob[0]);
    // Gas is no transfer: alice's balance is the node's, below what her transfers alone leave.
    await expectBalance(alice);
    await expectBalance(bob);
    await expectNoDrift();
  });

  it('discovers a fungible asset, and finds its owner through the node when the write set does not show it', async () => {
    const asset = node.createAsset({ name: 'Stand-in Dollar', symbol: 'SUSD', decimals: 6 });
    node.mint({ sender: carol, to: carol, asset: asset.address, amount: 1_000_000n });
    node.seal();
    // Committed before the transfer is read, so that no earlier transaction of its range shows carol's store.
    await api.atHead(node);
    const hash = node.transfer({
      sender: carol,
      legs: [{ from: carol, to: alice, asset: asset.address, amount: 250_000n }],
      omitObjectCore: true,
    });
    node.seal();
    await api.atHead(node);
    const moved = (await api.list(alice)).filter((row) => row.token_address === asset.address);
    expect(moved).toMatchObject([{ id: `aptos:${hash}:0`, from_address: carol, to_address: alice, value: '250000' }]);
    // Asked of carol's store before the transfer, and of alice's, which the transfer made, at it.
    const asked = (owner: string) =>
      node.calls.filter((call) => call.path.startsWith(`/v1/accounts/${node.storeOf(owner, asset.address)}/resource/`));
    expect(asked(carol).length).toBeGreaterThan(0);
    expect(asked(alice).length).toBeGreaterThan(0);
    await expectBalance(alice, asset.address);
    const tokens =
      await api.get<{ id: string; name: string; symbol: string; deployments: { decimals: number }[] }[]>(
        '/v2/tokens?per_page=100',
      );
    expect(tokens.find((token) => token.id === `aptos-${asset.address}`)).toMatchObject({
      name: 'Stand-in Dollar',
      symbol: 'SUSD',
      deployments: [{ chain: 'aptos', address: asset.address, decimals: 6 }],
    });
    const holding = (await api.holdings(alice)).find((row) => row.token_address === asset.address);
    expect(holding).toMatchObject({ token_symbol: 'SUSD', token_decimals: 6, balance: '250000' });
    await expectNoDrift();
  });

  it('pays several in one transaction as a transfer to each; a mint comes from 0 and a burn goes to the zero address', async () => {
    const asset = node.createAsset({ name: 'Second', symbol: 'SEC', decimals: 2 });
    const split = node.transfer({
      sender: alice,
      legs: [
        { from: alice, to: bob, asset: APT_METADATA, amount: 1_000n },
        { from: alice, to: carol, asset: APT_METADATA, amount: 2_000n },
      ],
    });
    const minted = node.mint({ sender: carol, to: bob, asset: asset.address, amount: 500n });
    const burnt = node.burn({ sender: bob, from: bob, asset: asset.address, amount: 120n });
    node.seal();
    await api.atHead(node);
    const ofAlice = (await api.list(alice)).filter((row) => row.tx_hash === split);
    expect(ofAlice.map((row) => [row.id, row.to_address, row.value]).sort()).toEqual([
      [`aptos:${split}:0`, bob, '1000'],
      [`aptos:${split}:1`, carol, '2000'],
    ]);
    const ofBob = await api.list(bob);
    expect(ofBob.find((row) => row.tx_hash === minted)).toMatchObject({
      from_address: '0',
      to_address: bob,
      value: '500',
    });
    expect(ofBob.find((row) => row.tx_hash === burnt)).toMatchObject({
      from_address: bob,
      to_address: BURNED,
      value: '120',
    });
    await expectBalance(bob, asset.address);
    await expectNoDrift();
  });

  it('records nothing of a failed transaction but its gas, and reads APT moved as a coin', async () => {
    const before = new Set((await api.list(alice)).map((row) => row.id));
    node.fail({ sender: alice, fee: 5_000n });
    const coin = node.coinTransfer({ sender: carol, from: carol, to: bob, amount: 4_321n });
    node.seal();
    await api.atHead(node);
    expect((await api.list(alice)).filter((row) => !before.has(row.id))).toEqual([]);
    await expectBalance(alice);
    expect((await api.list(bob)).find((row) => row.tx_hash === coin)).toMatchObject({
      id: `aptos:${coin}:0`,
      token_address: '0',
      from_address: carol,
      to_address: bob,
      value: '4321',
    });
    await expectBalance(bob);
  });

  it('reads every transaction of a block longer than a page', async () => {
    const hashes: string[] = [];
    for (let index = 1; index <= 8; index++)
      hashes.push(
        node.transfer({ sender: carol, legs: [{ from: carol, to: bob, asset: APT_METADATA, amount: BigInt(index) }] }),
      );
    node.seal();
    expect(node.transactionsOf(node.height()).length).toBeGreaterThan(3);
    await api.atHead(node);
    const recorded = new Set((await api.list(bob)).map((row) => row.tx_hash));
    expect(hashes.every((hash) => recorded.has(hash))).toBe(true);
    expect(node.calls.some((call) => call.path === '/v1/transactions')).toBe(true);
    await expectBalance(bob);
    await expectNoDrift();
  });

  it('asks the node twice a turn at its head: the ledger once, and the block it last committed without the one below', async () => {
    node.transfer({ sender: carol, legs: [{ from: carol, to: bob, asset: APT_METADATA, amount: 5n }] });
    node.seal();
    await api.atHead(node);
    const tip = node.height();
    const from = node.calls.length;
    // Fifteen turns or so (FOLLOW_INTERVAL_MS 100), nothing new on the node.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const paths = node.calls.slice(from).map((call) => call.path);
    const ledger = paths.filter((path) => path === '/v1').length;
    expect(ledger).toBeGreaterThanOrEqual(3);
    expect(new Set(paths)).toEqual(new Set(['/v1', `/v1/blocks/by_height/${tip}`]));
    // One of each a turn (a turn may be cut by the window's ends).
    expect(Math.abs(paths.length - 2 * ledger)).toBeLessThanOrEqual(1);
  });

  it('takes in an account tracked later with its APT balance and follows it from then on, without earlier history', async () => {
    const dave = account();
    const early = node.transfer({
      sender: carol,
      legs: [{ from: carol, to: dave, asset: APT_METADATA, amount: 9_999n }],
    });
    node.seal();
    await api.atHead(node);
    await api.tag('tracked_later', [dave]);
    await eventually('dave taken in', async () => ((await api.balance(dave)) === '9999' ? true : undefined));
    const late = node.transfer({ sender: carol, legs: [{ from: carol, to: dave, asset: APT_METADATA, amount: 1n }] });
    node.seal();
    await api.atHead(node);
    const rows = await api.list(dave);
    expect(rows.map((row) => row.tx_hash)).toEqual([late]);
    expect(rows.some((row) => row.tx_hash === early)).toBe(false);
    await expectBalance(dave);
    await expectNoDrift();
  });

  it('announces each transfer of tagged accounts to a webhook once, as /v2/transactions shows it, and nothing before an account was tagged', async () => {
    // The later tag exists before the webhook names it; erin joins it once the webhook listens.
    await api.tag('aptos_later', [account()]);
    const webhooks = new WebhookClient(t, t.keys.alice);
    const { id: webhook } = await hook(webhooks, receiver, '/aptos', {
      tags: ['aptos_wallets', 'aptos_later'],
      chains: ['aptos'],
    });
    const erin = account();
    const dan = account(); // never tracked
    const into = node.transfer({ sender: carol, legs: [{ from: carol, to: alice, asset: APT_METADATA, amount: 41n }] });
    // Two transfers in one transaction, one between tracked accounts: each announced once.
    const split = node.transfer({
      sender: alice,
      legs: [
        { from: alice, to: bob, asset: APT_METADATA, amount: 42n },
        { from: alice, to: dan, asset: APT_METADATA, amount: 43n },
      ],
    });
    node.transfer({ sender: carol, legs: [{ from: carol, to: dan, asset: APT_METADATA, amount: 44n }] });
    const early = node.transfer({ sender: carol, legs: [{ from: carol, to: erin, asset: APT_METADATA, amount: 45n }] });
    node.seal();
    await api.atHead(node);
    await api.tag('aptos_later', [erin]);
    await eventually('erin taken in', async () => ((await api.balance(erin)) === '45' ? true : undefined));
    const live = node.transfer({ sender: carol, legs: [{ from: carol, to: erin, asset: APT_METADATA, amount: 46n }] });
    node.seal();
    await api.atHead(node);

    const ofHash = async (owner: string, hash: string): Promise<TransactionRow[]> =>
      (await api.list(owner)).filter((row) => row.tx_hash === hash);
    const expected = [
      ...(await ofHash(alice, into)).map((transaction) => ({ transaction, tags: ['aptos_wallets'] })),
      ...(await ofHash(alice, split)).map((transaction) => ({ transaction, tags: ['aptos_wallets'] })),
      ...(await ofHash(erin, live)).map((transaction) => ({ transaction, tags: ['aptos_later'] })),
    ];
    expect(expected.map((entry) => entry.transaction.value).sort()).toEqual(['41', '42', '43', '46']);
    expect((await api.list(erin)).some((row) => row.tx_hash === early)).toBe(false);
    await expectAnnouncedOnce(webhooks, receiver, { id: webhook, path: '/aptos' }, expected);
  });
});

describe.each(DATABASES)('an Aptos follower process killed mid-catch-up, on %s', (kind: DatabaseKind) => {
  let node: AptosStandIn;
  let db: { url: string; drop: () => Promise<void> };
  let t: TestApp;
  const workers: FollowerProcess[] = [];

  beforeAll(async () => {
    node = await AptosStandIn.start({ apiKey: API_KEY });
    db = await freshDatabase(kind);
    t = await startTestApp({ databaseUrl: db.url });
  });

  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.kill()));
    await t?.close();
    await db?.drop();
    await node?.stop();
  });

  it('resumes where it committed after SIGKILL: every payment once, the kept stats exact, no key in its log', async () => {
    const api = new AptosClient(t);
    const payer = account();
    const payee = account();
    await api.tag('killed', [payee]);
    node.fund(payer, 10n ** 12n);
    node.seal();
    const hashes: string[] = [];
    for (let index = 0; index < 150; index++) {
      hashes.push(
        node.transfer({
          sender: payer,
          legs: [{ from: payer, to: payee, asset: APT_METADATA, amount: 1_000n + BigInt(index) }],
        }),
      );
      node.seal();
    }
    const { victim, survivor } = await killedMidCatchUp({
      databaseUrl: db.url,
      env: { ...followEnv(node, { FOLLOW_INTERVAL_MS: '50', FOLLOW_LEASE_SECONDS: '2' }), LOG_LEVEL: 'debug' },
      workers,
      indexed: async () => (await api.sync()).indexed_block,
      head: () => node.height(),
      slow: (delayMs) => {
        node.delayMs = delayMs;
      },
    });
    const payments = (await api.list(payee)).filter((row) => row.from_address === payer);
    expect(payments.map((row) => row.tx_hash).sort()).toEqual([...hashes].sort());
    expect(new Set(payments.map((row) => row.id)).size).toBe(payments.length);
    expect((await api.balance(payee)) ?? '0').toBe(node.balance(payee, APT_METADATA).toString());
    expect(await findDrift(t.app.get(Db))).toEqual([]);
    expect(victim.log()).not.toContain(API_KEY);
    expect(survivor.log()).not.toContain(API_KEY);
    expect(survivor.log()).toContain('aptos');
  });
});

describe.each(DATABASES)('an Aptos node on another network, on %s', (kind: DatabaseKind) => {
  let node: AptosStandIn;
  let db: { url: string; drop: () => Promise<void> };
  let t: TestApp;

  beforeAll(async () => {
    node = await AptosStandIn.start({ apiKey: API_KEY });
    db = await freshDatabase(kind);
    t = await startTestApp({ databaseUrl: db.url, env: followEnv(node, { NETWORK_APTOS: 'mainnet' }) });
  });

  afterAll(async () => {
    await t?.close();
    await db?.drop();
    await node?.stop();
  });

  it('writes nothing for a node that is not on mainnet and says why in /v2/sync, without the URL or key', async () => {
    const api = new AptosClient(t);
    const someone = account();
    await api.tag('wrong_network', [someone]);
    node.fund(someone, 1_000n);
    node.seal();
    const row = await eventually('the error', async () => {
      const found = await api.sync();
      return found.status === 'error' ? found : undefined;
    });
    expect(row.error).toMatch(
      /^NETWORK_APTOS is mainnet, but the node's chain id 4 is a local network's: nothing is written/,
    );
    expect(row.error).not.toContain(API_KEY);
    expect(row.error).not.toContain('127.0.0.1');
    expect(row.indexed_block).toBeNull();
    expect(await api.list(someone)).toEqual([]);
  });
});

describe.each(DATABASES)('an Aptos node that pruned the blocks to be read, on %s', (kind: DatabaseKind) => {
  let node: AptosStandIn;
  let db: { url: string; drop: () => Promise<void> };
  let t: TestApp | undefined;

  beforeAll(async () => {
    node = await AptosStandIn.start({ apiKey: API_KEY });
    db = await freshDatabase(kind);
  });

  afterAll(async () => {
    await t?.close();
    await db?.drop();
    await node?.stop();
  });

  it('says which setting to change, and follows from the oldest block kept once START_BLOCK_APTOS says so', async () => {
    const early = account();
    node.fund(early, 1_000n);
    node.sealEmpty(5);
    node.prune(4);
    t = await startTestApp({ databaseUrl: db.url, env: followEnv(node) });
    let api = new AptosClient(t);
    await api.tag('pruned', [early]);
    const row = await eventually('the error', async () => {
      const found = await api.sync();
      return found.status === 'error' ? found : undefined;
    });
    expect(row.error).toMatch(
      /^block 0 is pruned on the node \(HTTP 410\): START_BLOCK_APTOS must be at or above its oldest block/,
    );
    expect(row.indexed_block).toBeNull();
    await t.close();

    t = await startTestApp({ databaseUrl: db.url, env: followEnv(node, { START_BLOCK_APTOS: '4' }) });
    api = new AptosClient(t);
    const later = node.transfer({
      sender: early,
      legs: [{ from: early, to: account(), asset: APT_METADATA, amount: 10n }],
    });
    node.seal();
    await api.atHead(node);
    expect((await api.list(early)).map((entry) => entry.tx_hash)).toEqual([later]);
    expect((await api.balance(early)) ?? '0').toBe(node.balance(early, APT_METADATA).toString());

    // The node prunes up to the follower's block: its parent gone, the follower goes on.
    node.prune(node.height());
    const last = node.transfer({
      sender: early,
      legs: [{ from: early, to: account(), asset: APT_METADATA, amount: 5n }],
    });
    node.seal();
    await api.atHead(node);
    expect((await api.list(early)).map((entry) => entry.tx_hash).sort()).toEqual([later, last].sort());
    expect((await api.sync()).error).toBeNull();
  });
});
