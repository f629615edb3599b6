import { Client } from 'pg';

import { addressOfScript, cashAddressTwins } from '../src/core/addresses/output-script';
import { findDrift } from '../src/modules/aggregates/aggregates.service';
import type { ChainId } from '../src/core/chains/chain-ids';
import { Db } from '../src/database/db.service';
import type { NodeCheck } from '../src/modules/follow/follow.service';
import { UTXO_SOURCE_TUNING } from '../src/modules/follow/utxo/utxo-source';
import { satoshis } from '../src/modules/follow/utxo/utxo-block';
import { eventually, FollowClient, HoldingRow, SyncRow, TransactionRow } from './support/follow-client';
import { runCli } from './support/cli';
import { FollowerProcess, startFollowerProcess, writerFailsOver } from './support/follower-process';
import { Litecoind, startLitecoind, Unspent, WalletAddress } from './support/litecoind';
import { RpcProxy, startRpcProxy } from './support/rpc-proxy';
import { DATABASES, DatabaseKind, freshDatabase, newKey, startTestApp, TestApp } from './support/test-app';
import { hook, WebhookClient, WebhookReceiver } from './support/webhook-receiver';

/**
 * The Bitcoin-family follower (contract §13) against a real node: litecoind in regtest stands in
 * for bitcoind, Bitcoin Cash Node and Dogecoin Core at once, and the three chains are followed
 * from it (NETWORK_<CHAIN>=regtest: its scripts are recorded in their mainnet address forms).
 * Read through the API, on both databases. Every wait polls a condition.
 */

const UTXO_CHAINS = ['bitcoin', 'bitcoincash', 'dogecoin'] as const;
type UtxoChain = (typeof UTXO_CHAINS)[number];

function followEnv(url: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { FOLLOW_INTERVAL_MS: '100', ...extra };
  for (const chain of UTXO_CHAINS) {
    const suffix = chain.toUpperCase();
    env[`RPC_URL_${suffix}`] = url;
    env[`NETWORK_${suffix}`] ??= 'regtest';
    env[`CONFIRMATIONS_${suffix}`] ??= '0';
  }
  return { ...env, ...extra };
}

/** The mainnet form of a regtest wallet address on `chain`. */
function on(chain: UtxoChain, address: WalletAddress | Unspent): string {
  const mainnet = addressOfScript(chain, address.script);
  if (mainnet === undefined) throw new Error(`no ${chain} address for script ${address.script}`);
  return mainnet;
}

class UtxoClient extends FollowClient {
  async sync(chain: UtxoChain): Promise<SyncRow> {
    return (await this.get<SyncRow[]>('/v2/sync')).find((row) => row.chain === chain)!;
  }

  /** Waits until every followed chain has committed the node's tip and has no history left to read. */
  atTip(node: Litecoind, chains: readonly UtxoChain[] = UTXO_CHAINS): Promise<true> {
    return eventually('the followers to reach the tip', async () => {
      const tip = String(await node.tip());
      const rows = await this.get<SyncRow[]>('/v2/sync');
      const done = chains.every((chain) => {
        const row = rows.find((entry) => entry.chain === chain)!;
        return row.status === 'synced' && row.indexed_block === tip;
      });
      return done ? true : undefined;
    });
  }

  list(chain: UtxoChain, address: string): Promise<TransactionRow[]> {
    return this.get<TransactionRow[]>(
      `/v2/transactions?chain=${chain}&address=${encodeURIComponent(address)}&per_page=100`,
    );
  }

  async satoshis(chain: UtxoChain, address: string): Promise<string | undefined> {
    const rows = await this.get<HoldingRow[]>(
      `/v2/token-holdings?chain=${chain}&address=${encodeURIComponent(address)}&per_page=100`,
    );
    return rows.find((row) => row.token_address === '0')?.balance;
  }
}

function byId(rows: readonly TransactionRow[]): Map<string, TransactionRow> {
  return new Map(rows.map((row) => [row.id, row]));
}

/** A mature coin of the node's wallet, not yet used by this suite. */
async function coin(node: Litecoind, used: Set<string>): Promise<Unspent> {
  const coins = await node.unspent(100);
  const found = coins.find((entry) => !used.has(`${entry.txid}:${entry.vout}`));
  if (found === undefined) throw new Error('the wallet has no mature coin left');
  used.add(`${found.txid}:${found.vout}`);
  return found;
}

/**
 * A history for an address nobody tracks yet: 0.4 coin received from `funding` (with `beside`
 * payments to `w` in the same block), and two blocks later 0.15 spent to `w`, its change back;
 * three blocks more on top. The address holds 0.2499 then.
 */
async function lateHistory(
  node: Litecoind,
  used: Set<string>,
  w: WalletAddress,
  beside = 0,
): Promise<{ late: WalletAddress; funding: Unspent; receipt: string; spend: string }> {
  const late = await node.newAddress('bech32');
  const funding = await coin(node, used);
  const receipt = await node.send({
    inputs: [funding],
    outputs: [{ address: late.address, value: 40_000_000n }],
    change: w.address,
  });
  for (let other = 0; other < beside; other++) {
    const paying = await coin(node, used);
    await node.send({ inputs: [paying], outputs: [{ address: w.address, value: paying.value - 10_000n }] });
  }
  await node.mine(2);
  const spend = await node.send({
    inputs: [{ txid: receipt, vout: 0 }],
    outputs: [{ address: w.address, value: 15_000_000n }],
    change: late.address,
    fee: 10_000n,
  });
  await node.mine(3);
  return { late, funding, receipt, spend };
}

describe.each(DATABASES)('following the Bitcoin family from a node, on %s', (kind: DatabaseKind) => {
  let node: Litecoind;
  let db: { url: string; drop: () => Promise<void> };
  let t: TestApp;
  let api: UtxoClient;
  const keys = { alice: newKey(), bob: newKey() };
  const used = new Set<string>();
  let a: WalletAddress; // legacy: followed on bitcoin and bitcoincash
  let b: WalletAddress; // bech32: bitcoin only
  let c: WalletAddress; // p2sh-segwit: bitcoin (3…) and bitcoincash (its legacy P2SH form)
  let d: WalletAddress; // dogecoin D…
  let e: WalletAddress; // tracked by its CashAddr form on bitcoincash
  let w: WalletAddress; // nobody tracks it
  let receiver: WebhookReceiver;

  const start = async (): Promise<void> => {
    t = await startTestApp({
      databaseUrl: db.url,
      keys,
      env: followEnv(node.rpcUrl, { WEBHOOK_ALLOW_PRIVATE_URLS: 'on', WEBHOOK_RETRY_SECONDS: '1,1,1' }),
    });
    api = new UtxoClient(t);
  };

  const expectNoDrift = async (): Promise<void> => {
    expect(await findDrift(t.app.get(Db))).toEqual([]);
  };

  beforeAll(async () => {
    node = await startLitecoind();
    await node.mine(110);
    [a, b, c, d, e, w] = await Promise.all([
      node.newAddress('legacy'),
      node.newAddress('bech32'),
      node.newAddress('p2sh-segwit'),
      node.newAddress('legacy'),
      node.newAddress('legacy'),
      node.newAddress('bech32'),
    ]);
    [db, receiver] = await Promise.all([freshDatabase(kind), WebhookReceiver.start()]);
    await start();
    await api.tag('watched_wallets', [on('bitcoin', a), on('bitcoin', b), on('bitcoin', c), on('dogecoin', d)]);
    await api.tag('cash_wallets', [on('bitcoincash', e)]);
    await api.atTip(node);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    await db?.drop();
    await node?.stop();
  });

  it('lists the three chains as synced in /v2/sync with the node tip', async () => {
    const rows = await api.get<SyncRow[]>('/v2/sync');
    const tip = String(await node.tip());
    for (const chain of UTXO_CHAINS) {
      expect(rows.find((row) => row.chain === chain)).toMatchObject({
        status: 'synced',
        head_block: tip,
        indexed_block: tip,
        confirmations: 0,
        error: null,
      });
    }
    expect(rows.find((row) => row.chain === 'ethereum')).toMatchObject({ status: 'off' });
  });

  it('records a receipt from the first input’s address and a spend with its change left out, with exact balances', async () => {
    const funding = await coin(node, used);
    const received = await node.send({
      inputs: [funding],
      outputs: [{ address: a.address, value: 100_000_000n }],
      change: w.address,
    });
    await node.mine(1);
    await api.atTip(node);
    const tip = String(await node.tip());
    const [receipt] = await api.list('bitcoin', on('bitcoin', a));
    expect(receipt).toMatchObject({
      id: `bitcoin:${received}:0`,
      chain: 'bitcoin',
      token_address: '0',
      from_address: on('bitcoin', funding),
      to_address: on('bitcoin', a),
      value: '100000000',
      tx_hash: received,
      block_number: tip,
    });
    expect(await api.satoshis('bitcoin', on('bitcoin', a))).toBe('100000000');

    const spent = await node.send({
      inputs: [{ txid: received, vout: 0 }],
      outputs: [{ address: b.address, value: 30_000_000n }],
      change: a.address,
      fee: 10_000n,
    });
    await node.mine(1);
    await api.atTip(node);
    const ofA = byId(await api.list('bitcoin', on('bitcoin', a)));
    expect([...ofA.keys()].sort()).toEqual([`bitcoin:${received}:0`, `bitcoin:${spent}:0`].sort());
    expect(ofA.get(`bitcoin:${spent}:0`)).toMatchObject({
      from_address: on('bitcoin', a),
      to_address: on('bitcoin', b),
      value: '30000000',
    });
    expect((await api.list('bitcoin', on('bitcoin', b))).map((row) => row.id)).toEqual([`bitcoin:${spent}:0`]);
    expect(await api.satoshis('bitcoin', on('bitcoin', a))).toBe('69990000');
    expect(await api.satoshis('bitcoin', on('bitcoin', b))).toBe('30000000');

    // The legacy address is followed on bitcoincash too, where the bech32 output has no address:
    // the spend is still listed for it, as a transfer of what it sent less its change.
    const onCash = byId(await api.list('bitcoincash', on('bitcoin', a)));
    expect([...onCash.keys()].sort()).toEqual([`bitcoincash:${received}:0`, `bitcoincash:${spent}:in0`].sort());
    expect(onCash.get(`bitcoincash:${received}:0`)).toMatchObject({
      from_address: on('bitcoincash', funding),
      to_address: on('bitcoin', a),
    });
    expect(onCash.get(`bitcoincash:${spent}:in0`)).toMatchObject({ from_address: on('bitcoin', a), value: '30010000' });
    expect(await api.satoshis('bitcoincash', on('bitcoin', a))).toBe('69990000');
    await expectNoDrift();
  });

  it('names the sender of a payment whose input was created in the same block', async () => {
    const middle = await node.newAddress('legacy');
    const first = await node.send({
      inputs: [await coin(node, used)],
      outputs: [{ address: middle.address, value: 20_000_000n }],
      change: w.address,
    });
    const second = await node.send({
      inputs: [{ txid: first, vout: 0 }],
      outputs: [{ address: d.address, value: 19_990_000n }],
    });
    await node.mine(1);
    await api.atTip(node);
    const row = byId(await api.list('dogecoin', on('dogecoin', d))).get(`dogecoin:${second}:0`);
    expect(row).toMatchObject({ from_address: on('dogecoin', middle), value: '19990000' });
    await expectNoDrift();
  });

  it('names the largest tracked sender of a multi-input spend, and lists every sender', async () => {
    const [ofA] = (await node.unspent(1)).filter((entry) => entry.script === a.script);
    const [ofB] = (await node.unspent(1)).filter((entry) => entry.script === b.script);
    expect(ofA?.value).toBe(69_990_000n);
    expect(ofB?.value).toBe(30_000_000n);
    const joint = await node.send({
      inputs: [ofB!, ofA!],
      outputs: [{ address: w.address, value: 90_000_000n }],
      change: c.address,
      fee: 10_000n,
    });
    await node.mine(1);
    await api.atTip(node);
    const rows = (await api.list('bitcoin', on('bitcoin', a))).filter((row) => row.tx_hash === joint);
    expect(rows.map((row) => [row.id, row.from_address, row.to_address, row.value])).toEqual([
      [`bitcoin:${joint}:1`, on('bitcoin', a), on('bitcoin', c), '9980000'],
      [`bitcoin:${joint}:0`, on('bitcoin', a), on('bitcoin', w), '90000000'],
    ]);
    const ofBRows = (await api.list('bitcoin', on('bitcoin', b))).filter((row) => row.tx_hash === joint);
    expect(ofBRows.map((row) => [row.id, row.from_address, row.to_address, row.value])).toEqual([
      [`bitcoin:${joint}:in0`, on('bitcoin', b), on('bitcoin', w), '30000000'],
    ]);
    expect(await api.satoshis('bitcoin', on('bitcoin', a))).toBeUndefined();
    expect(await api.satoshis('bitcoin', on('bitcoin', b))).toBeUndefined();
    expect(await api.satoshis('bitcoin', on('bitcoin', c))).toBe('9980000');
    await expectNoDrift();
  });

  it('records a coinbase output as a transfer from 0', async () => {
    const [hash] = await node.mine(1, a.address);
    await api.atTip(node);
    const block = await node.rpc<{ tx: { txid: string; vout: { value: number; n: number }[] }[] }>('getblock', hash, 2);
    const coinbase = block.tx[0]!;
    // Regtest blocks mined within one second share a time: find the row rather than take the newest.
    const row = (await api.list('bitcoin', on('bitcoin', a))).find((entry) => entry.tx_hash === coinbase.txid);
    expect(row).toMatchObject({
      id: `bitcoin:${coinbase.txid}:0`,
      from_address: '0',
      to_address: on('bitcoin', a),
      value: satoshis(coinbase.vout[0]!.value).toString(),
      block_hash: hash,
    });
    await expectNoDrift();
  });

  it('follows a Dogecoin address and a CashAddr address, which its legacy twin finds on bitcoincash', async () => {
    const funding = await coin(node, used);
    const paid = await node.send({
      inputs: [funding],
      outputs: [
        { address: d.address, value: 200_000_000n },
        { address: e.address, value: 50_000_000n },
      ],
      change: w.address,
    });
    await node.mine(1);
    await api.atTip(node);
    const doge = byId(await api.list('dogecoin', on('dogecoin', d))).get(`dogecoin:${paid}:0`);
    expect(doge).toMatchObject({ id: `dogecoin:${paid}:0`, to_address: on('dogecoin', d), value: '200000000' });
    expect(doge!.to_address).toMatch(/^D/);
    expect(await api.satoshis('dogecoin', on('dogecoin', d))).toBe('219990000');

    const cash = on('bitcoincash', e);
    const legacy = on('bitcoin', e);
    expect(cashAddressTwins(cash)).toEqual([legacy, cash]);
    const [byCash] = await api.list('bitcoincash', cash);
    expect(byCash).toMatchObject({ id: `bitcoincash:${paid}:1`, to_address: cash, value: '50000000' });
    expect(await api.list('bitcoincash', legacy)).toEqual([byCash]);
    expect(await api.satoshis('bitcoincash', legacy)).toBe('50000000');
    // Not tracked as a Bitcoin address, so nothing of it is recorded on bitcoin.
    expect(await api.list('bitcoin', legacy)).toEqual([]);
    await expectNoDrift();
  });

  it('takes in an address tracked later: its balance at once and its history from the backfill', async () => {
    const { late, funding, receipt, spend } = await lateHistory(node, used, w);
    await api.atTip(node);
    await api.tag('late_wallets', [on('bitcoin', late)]);
    const balance = await eventually('the late address taken in', () => api.satoshis('bitcoin', on('bitcoin', late)));
    expect(balance).toBe('24990000');
    await api.atTip(node);
    const rows = byId(await api.list('bitcoin', on('bitcoin', late)));
    expect([...rows.keys()].sort()).toEqual([`bitcoin:${receipt}:0`, `bitcoin:${spend}:0`].sort());
    expect(rows.get(`bitcoin:${spend}:0`)).toMatchObject({
      from_address: on('bitcoin', late),
      to_address: on('bitcoin', w),
      value: '15000000',
    });
    expect(rows.get(`bitcoin:${receipt}:0`)).toMatchObject({ from_address: on('bitcoin', funding), value: '40000000' });

    // Spent after it was taken in: found through its tracked outputs.
    const change = await node.send({
      inputs: [{ txid: spend, vout: 1 }],
      outputs: [{ address: w.address, value: 24_980_000n }],
    });
    await node.mine(1);
    await api.atTip(node);
    expect(byId(await api.list('bitcoin', on('bitcoin', late))).get(`bitcoin:${change}:0`)).toMatchObject({
      from_address: on('bitcoin', late),
      value: '24980000',
    });
    expect(await api.satoshis('bitcoin', on('bitcoin', late))).toBeUndefined();
    await expectNoDrift();
  });

  it('undoes a reorganised block and records the transfer again with the block that mines it', async () => {
    const h = await node.newAddress('legacy');
    await api.tag('reorg_wallets', [on('bitcoin', h)]);
    await api.atTip(node);
    const funding = await coin(node, used);
    const txid = await node.send({
      inputs: [funding],
      outputs: [{ address: h.address, value: 70_000_000n }],
      change: w.address,
    });
    const [orphan] = await node.mine(1);
    await api.atTip(node);
    expect((await api.list('bitcoin', on('bitcoin', h)))[0]).toMatchObject({
      id: `bitcoin:${txid}:0`,
      block_hash: orphan,
    });
    expect(await api.satoshis('bitcoin', on('bitcoin', h))).toBe('70000000');

    await node.invalidate(orphan!);
    const replacement = await node.generateBlock(w.address, []);
    await node.generateBlock(w.address, []);
    await api.atTip(node);
    await eventually('the orphaned transfer to go', async () =>
      (await api.list('bitcoin', on('bitcoin', h))).length === 0 ? true : undefined,
    );
    expect(replacement).not.toBe(orphan);
    expect(await api.satoshis('bitcoin', on('bitcoin', h))).toBeUndefined();
    expect(await api.satoshis('bitcoincash', on('bitcoin', h))).toBeUndefined();

    const mined = await node.generateBlock(w.address, [txid]);
    await api.atTip(node);
    const [again] = await api.list('bitcoin', on('bitcoin', h));
    expect(again).toMatchObject({ id: `bitcoin:${txid}:0`, block_hash: mined, block_number: String(await node.tip()) });
    expect(await api.satoshis('bitcoin', on('bitcoin', h))).toBe('70000000');
    expect(await api.satoshis('bitcoincash', on('bitcoin', h))).toBe('70000000');
    await expectNoDrift();
  });

  it('announces a payment to a webhook on each chain that records it, its removal by a reorganisation, and its confirmation again', async () => {
    const x = await node.newAddress('legacy');
    await api.tag('hooked_wallets', [on('bitcoin', x)]);
    await api.atTip(node);
    const webhooks = new WebhookClient(t, keys.alice);
    await hook(webhooks, receiver, '/utxo', {
      tags: ['hooked_wallets'],
      chains: ['bitcoin', 'bitcoincash'],
    });
    const announced = (count: number) =>
      eventually(`${count} deliveries`, () => {
        const requests = receiver.at('/utxo');
        return Promise.resolve(requests.length >= count ? requests : undefined);
      });
    const events = (requests: readonly { verified: unknown }[]) =>
      requests
        .map((request) => request.verified as { type: string; data: { transaction: TransactionRow; tags: string[] } })
        .map(({ type, data }) => ({ type, ...data }))
        .sort((one, other) => one.transaction.id.localeCompare(other.transaction.id));
    // Each as /v2/transactions lists it, with its coin as GET /v2/tokens names it; no price here.
    const shown = async () => {
      const listed = [
        ...(await api.list('bitcoin', on('bitcoin', x))),
        ...(await api.list('bitcoincash', on('bitcoin', x))),
      ];
      const events = [];
      for (const transaction of listed) {
        const token = await webhooks.tokenOf(transaction.chain, transaction.token_address);
        events.push({ transaction, tags: ['hooked_wallets'], token, value_usd: null });
      }
      return events.sort((one, other) => one.transaction.id.localeCompare(other.transaction.id));
    };

    const funding = await coin(node, used);
    const txid = await node.send({
      inputs: [funding],
      outputs: [{ address: x.address, value: 25_000_000n }],
      change: w.address,
    });
    const [orphan] = await node.mine(1);
    await api.atTip(node);
    const first = await shown();
    expect(first.map((event) => [event.transaction.id, event.transaction.block_hash])).toEqual([
      [`bitcoin:${txid}:0`, orphan],
      [`bitcoincash:${txid}:0`, orphan],
    ]);
    const confirmed = events(await announced(2));
    expect(confirmed).toEqual(first.map((event) => ({ type: 'transaction.confirmed', ...event })));

    await node.invalidate(orphan!);
    await node.generateBlock(w.address, []);
    await node.generateBlock(w.address, []);
    await api.atTip(node);
    // Each undone transfer as it was announced.
    const removed = events((await announced(4)).slice(2));
    expect(removed).toEqual(first.map((event) => ({ type: 'transaction.removed', ...event })));

    const mined = await node.generateBlock(w.address, [txid]);
    await api.atTip(node);
    const again = await shown();
    expect(again.map((event) => event.transaction.block_hash)).toEqual([mined, mined]);
    expect(events((await announced(6)).slice(4))).toEqual(
      again.map((event) => ({ type: 'transaction.confirmed', ...event })),
    );
    expect(receiver.at('/utxo')).toHaveLength(6);
    await expectNoDrift();
  });

  it('resumes after a restart with no gap and no duplicate', async () => {
    await t.close();
    const funding = await coin(node, used);
    const txid = await node.send({
      inputs: [funding],
      outputs: [{ address: a.address, value: 11_000_000n }],
      change: w.address,
    });
    await node.mine(3, a.address);
    await start();
    await api.atTip(node);
    const rows = await api.list('bitcoin', on('bitcoin', a));
    expect(rows.filter((row) => row.id === `bitcoin:${txid}:0`)).toHaveLength(1);
    expect(new Set(rows.map((row) => row.id)).size).toBe(rows.length);
    await expectNoDrift();
  });
});

/** What the read-budget suites follow: a node, an RPC proxy in front of it and a fresh database. */
interface BudgetSetup {
  node: Litecoind;
  proxy: RpcProxy;
  db: { url: string; drop: () => Promise<void> };
  a: WalletAddress;
  w: WalletAddress;
  /** Removes them and puts the read budget back. */
  close(): Promise<void>;
}

/**
 * litecoind with 115 blocks and two wallet addresses, a proxy, a fresh `kind` database, and the
 * read budget at 3 transactions a range (and a backfill step), asked for two blocks at a time:
 * blocks of four transactions are read one per range, the coinbases' three.
 */
async function budgetSetup(kind: DatabaseKind): Promise<BudgetSetup> {
  const budget = UTXO_SOURCE_TUNING.read;
  UTXO_SOURCE_TUNING.read = { perRequest: 2, limit: 3 };
  const node = await startLitecoind();
  await node.mine(115);
  const [a, w] = await Promise.all([node.newAddress('bech32'), node.newAddress('bech32')]);
  const proxy = await startRpcProxy(node.rpcUrl);
  const db = await freshDatabase(kind);
  return {
    node,
    proxy,
    db,
    a,
    w,
    close: async () => {
      await proxy.close();
      await db.drop();
      await node.stop();
      UTXO_SOURCE_TUNING.read = budget;
    },
  };
}

describe('a Bitcoin-family follower reading a few transactions at a time (its read budget), on sqlite', () => {
  let setup: BudgetSetup | undefined;
  let node: Litecoind;
  let t: TestApp;
  let api: UtxoClient;
  let proxy: RpcProxy;
  const keys = { alice: newKey(), bob: newKey() };
  const used = new Set<string>();
  let a: WalletAddress;
  let w: WalletAddress;

  beforeAll(async () => {
    setup = await budgetSetup('sqlite');
    ({ node, proxy, a, w } = setup);
    t = await startTestApp({ databaseUrl: setup.db.url, keys, env: followEnv(proxy.url) });
    api = new UtxoClient(t);
    await api.tag('watched_wallets', [on('bitcoin', a)]);
    await api.atTip(node);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await setup?.close();
  });

  /** The most blocks the followers asked for in one request: two (the budget's) at most. */
  const mostBlocksAsked = (): number => {
    const perRequest = new Map<number, number>();
    for (const call of proxy.calls('getblock')) perRequest.set(call.request, (perRequest.get(call.request) ?? 0) + 1);
    return Math.max(...perRequest.values());
  };

  it('caught up with 115 blocks asking for two at a time', () => {
    expect(mostBlocksAsked()).toBe(2);
  });

  it('records every payment of blocks read one at a time, each once, with the exact balance', async () => {
    const paid: string[] = [];
    for (let block = 0; block < 3; block++) {
      for (let payment = 0; payment < 3; payment++) {
        const funding = await coin(node, used);
        paid.push(
          await node.send({
            inputs: [funding],
            outputs: [{ address: a.address, value: 1_000_000n }],
            change: w.address,
          }),
        );
      }
      await node.mine(1);
    }
    await api.atTip(node);
    const rows = await api.list('bitcoin', on('bitcoin', a));
    expect(rows.map((row) => row.id).sort()).toEqual(paid.map((txid) => `bitcoin:${txid}:0`).sort());
    expect(await api.satoshis('bitcoin', on('bitcoin', a))).toBe('9000000');
    expect(await findDrift(t.app.get(Db))).toEqual([]);
    expect(mostBlocksAsked()).toBe(2);
  });

  it('backfills an address tracked later through steps that each read the blocks the budget lets through', async () => {
    // Payments to nobody tracked beside the receipt, so that the steps end inside the blocks between.
    const { late, receipt, spend } = await lateHistory(node, used, w, 3);
    await api.atTip(node);
    await api.tag('late_wallets', [on('bitcoin', late)]);
    const balance = await eventually('the late address taken in', () => api.satoshis('bitcoin', on('bitcoin', late)));
    expect(balance).toBe('24990000');
    await eventually('its history backfilled', async () =>
      (await api.list('bitcoin', on('bitcoin', late))).length === 2 ? true : undefined,
    );
    const rows = byId(await api.list('bitcoin', on('bitcoin', late)));
    expect([...rows.keys()].sort()).toEqual([`bitcoin:${receipt}:0`, `bitcoin:${spend}:0`].sort());
    expect(await findDrift(t.app.get(Db))).toEqual([]);
    expect(mostBlocksAsked()).toBe(2);
  });
});

describe('a Bitcoin-family follower reading the next blocks while a range commits, on postgres', () => {
  let setup: BudgetSetup | undefined;
  let node: Litecoind;
  let db: { url: string };
  let t: TestApp;
  let api: UtxoClient;
  let proxy: RpcProxy;
  const keys = { alice: newKey(), bob: newKey() };
  const logs: string[] = [];
  let a: WalletAddress;
  let w: WalletAddress;

  // Only bitcoin's follower reads through the proxy: the calls it records are that follower's.
  const start = async (): Promise<void> => {
    t = await startTestApp({
      databaseUrl: db.url,
      keys,
      env: followEnv(proxy.url, { RPC_URL_BITCOINCASH: node.rpcUrl, RPC_URL_DOGECOIN: node.rpcUrl }),
      logDestination: { write: (line: string) => void logs.push(line) },
    });
    api = new UtxoClient(t);
  };

  beforeAll(async () => {
    // Coinbase-only blocks, three to a range: a catch-up's ranges end at the budget with blocks above.
    setup = await budgetSetup('postgres');
    ({ node, proxy, db, a, w } = setup);
    await start();
    await api.tag('miners', [on('bitcoin', a)]);
    await api.atTip(node);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await setup?.close();
  });

  it('reads them while the commit waits, and drops them when the node reorganised them meanwhile', async () => {
    // Twelve blocks paying `a` mined while the service is down, so that its first turn sees them all.
    await t.close();
    const mined = await node.mine(12, a.address);
    const coinbases = await Promise.all(
      mined.map(async (hash) => (await node.rpc<{ tx: string[] }>('getblock', hash, 1)).tx[0]!),
    );
    // The first range (the first three blocks) cannot commit its transfers while this lock is held.
    const holder = new Client({ connectionString: db.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE transactions IN SHARE MODE');
      proxy.resetCalls();
      logs.length = 0;
      await start();
      // The next range's last block (the sixth: three coinbases, its budget) read and answered meanwhile.
      await proxy.until(() =>
        proxy.calls('getblock').some((call) => call.params[0] === mined[5] && call.answered !== undefined),
      );
      // Blocks tip+5.. leave the chain before that range is used: the read-ahead ends with one of them.
      await node.invalidate(mined[4]!);
      await node.mine(2, w.address);
      await holder.query('COMMIT');
    } finally {
      await holder.end();
    }
    await api.atTip(node);
    const rows = await api.list('bitcoin', on('bitcoin', a));
    expect(rows.map((row) => row.id).sort()).toEqual(
      coinbases
        .slice(0, 4)
        .map((txid) => `bitcoin:${txid}:0`)
        .sort(),
    );
    const sum = rows.reduce((total, row) => total + BigInt(row.value), 0n);
    expect(await api.satoshis('bitcoin', on('bitcoin', a))).toBe(sum.toString());
    expect(await findDrift(t.app.get(Db))).toEqual([]);
    // Bitcoin's follower committed nothing of the orphaned blocks, so it undid nothing (the other
    // two chains, read from the node directly with nothing to wait for, may have followed them and
    // undone them).
    expect(logs.filter((line) => line.includes('"Follow bitcoin"') && line.includes('reorganisation:'))).toEqual([]);
  });
});

describe.each(DATABASES)('a Bitcoin-family follower process killed mid-stream, on %s', (kind: DatabaseKind) => {
  let node: Litecoind;
  let proxy: RpcProxy;
  let db: { url: string; drop: () => Promise<void> };
  let t: TestApp;
  const workers: FollowerProcess[] = [];

  beforeAll(async () => {
    node = await startLitecoind();
    proxy = await startRpcProxy(node.rpcUrl);
    db = await freshDatabase(kind);
    t = await startTestApp({ databaseUrl: db.url });
  });

  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.kill()));
    await t?.close();
    await db?.drop();
    await proxy?.close();
    await node?.stop();
  });

  it('resumes where it committed after SIGKILL: every coinbase once, the kept stats exact', async () => {
    const api = new UtxoClient(t);
    const miner = await node.newAddress('legacy');
    await api.tag('killed', [on('bitcoin', miner)]);
    const hashes = await node.mine(250, miner.address);
    const slow = proxy.misbehave({ kind: 'delay', ms: 100 });
    const credentials = new URL(node.rpcUrl);
    const through = new URL(proxy.url);
    through.username = credentials.username;
    through.password = credentials.password;
    const env = {
      RPC_URL_BITCOIN: through.toString(),
      NETWORK_BITCOIN: 'regtest',
      CONFIRMATIONS_BITCOIN: '0',
      FOLLOW_INTERVAL_MS: '50',
      // The killed process gives nothing up: the survivor resumes once its lease lapses (2 s).
      FOLLOW_LEASE_SECONDS: '2',
    };
    const victim = startFollowerProcess(db.url, env);
    workers.push(victim);
    const reached = await eventually(
      'a first commit',
      async () => (await api.sync('bitcoin')).indexed_block ?? undefined,
    );
    victim.signal('SIGKILL');
    expect((await victim.exited).signal).toBe('SIGKILL');
    expect(Number(reached)).toBeLessThan(await node.tip());
    slow();

    const survivor = startFollowerProcess(db.url, env);
    workers.push(survivor);
    await eventually('the survivor to reach the tip', async () =>
      (await api.sync('bitcoin')).indexed_block === String(await node.tip()) ? true : undefined,
    );
    const rows = await api.everyTransaction(`chain=bitcoin&address=${on('bitcoin', miner)}`);
    expect(rows.map((row) => row.block_hash).sort()).toEqual([...hashes].sort());
    expect(rows.every((row) => row.from_address === '0')).toBe(true);
    expect(await findDrift(t.app.get(Db))).toEqual([]);
  });
});

describe.each(DATABASES)('a node on another network, on %s', (kind: DatabaseKind) => {
  let node: Litecoind;
  let db: { url: string; drop: () => Promise<void> };
  let t: TestApp;

  beforeAll(async () => {
    node = await startLitecoind();
    await node.mine(5);
    db = await freshDatabase(kind);
    t = await startTestApp({
      databaseUrl: db.url,
      env: followEnv(node.rpcUrl, { NETWORK_BITCOIN: 'mainnet' }),
    });
  });

  afterAll(async () => {
    await t?.close();
    await db?.drop();
    await node?.stop();
  });

  it('writes nothing for a chain whose node is not on its network and says why in /v2/sync, without the URL', async () => {
    const api = new UtxoClient(t);
    const miner = await node.newAddress('legacy');
    await api.tag('wrong_network', [on('bitcoin', miner)]);
    await node.mine(2, miner.address);
    const row = await eventually('the error', async () => {
      const found = await api.sync('bitcoin');
      return found.status === 'error' ? found : undefined;
    });
    expect(row.error).toMatch(/NETWORK_BITCOIN is mainnet/);
    expect(row.error).not.toContain(new URL(node.rpcUrl).password);
    expect(row.indexed_block).toBeNull();
    await api.atTip(node, ['bitcoincash']);
    expect(await api.list('bitcoin', on('bitcoin', miner))).toEqual([]);
    // The same legacy address is followed on bitcoincash, whose node setting is right.
    expect((await api.list('bitcoincash', on('bitcoin', miner))).length).toBe(2);

    // follow --check says the same of each chain, and what is indexed where the node is right.
    const checked = await runCli(db.url, ['follow', '--check'], undefined, {
      env: followEnv(node.rpcUrl, { NETWORK_BITCOIN: 'mainnet' }),
    });
    expect(checked.code).toBe(1);
    const tip = String(await node.tip());
    const chains = new Map(
      (JSON.parse(checked.stdout) as { chains: NodeCheck[] }).chains.map((check) => [check.chain, check]),
    );
    const mismatch = chains.get('bitcoin')!;
    expect(mismatch).toMatchObject({
      ok: false,
      indexed: null,
      error: expect.stringMatching(/^NETWORK_BITCOIN is mainnet/),
    });
    expect(row.error!.startsWith(mismatch.error!)).toBe(true);
    for (const chain of ['bitcoincash', 'dogecoin']) {
      expect(chains.get(chain as ChainId)).toMatchObject({ ok: true, head: tip });
    }
    expect(chains.get('bitcoincash')).toMatchObject({ indexed: tip, behind: '0' });
    expect(checked.stderr).toContain('error: the node of bitcoin failed the check');
    expect(checked.stdout + checked.stderr).not.toContain(new URL(node.rpcUrl).password);
  });
});

describe('two Bitcoin-family follower processes on one PostgreSQL', () => {
  let node: Litecoind;
  let db: { url: string; drop: () => Promise<void> };
  let t: TestApp;
  const workers: FollowerProcess[] = [];

  beforeAll(async () => {
    node = await startLitecoind();
    await node.mine(101);
    db = await freshDatabase('postgres');
    t = await startTestApp({ databaseUrl: db.url });
  });

  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.kill()));
    await t?.close();
    await db?.drop();
    await node?.stop();
  });

  it('has one writer, and the standby takes over when the writer dies; every payment recorded once', async () => {
    const api = new UtxoClient(t);
    const watched = await node.newAddress('legacy');
    await api.tag('two_workers', [on('dogecoin', watched)]);
    const env = {
      RPC_URL_DOGECOIN: node.rpcUrl,
      NETWORK_DOGECOIN: 'regtest',
      CONFIRMATIONS_DOGECOIN: '0',
      FOLLOW_INTERVAL_MS: '100',
      FOLLOW_LEASE_SECONDS: '2',
    };
    const used = new Set<string>();
    const pay = async (): Promise<string> => {
      const txid = await node.send({
        inputs: [await coin(node, used)],
        outputs: [{ address: watched.address, value: 1_000_000n }],
        change: (await node.newAddress('bech32')).address,
      });
      await node.mine(1);
      return txid;
    };
    const recorded = async (txid: string) =>
      (await api.list('dogecoin', on('dogecoin', watched))).some((row) => row.tx_hash === txid);

    const paid = await writerFailsOver({
      databaseUrl: db.url,
      chain: 'dogecoin',
      env,
      workers,
      pay,
      recorded,
      beforeKill: 1,
      afterKill: 1,
    });
    const rows = await api.list('dogecoin', on('dogecoin', watched));
    expect(rows.map((row) => row.tx_hash).sort()).toEqual([...paid].sort());
    expect(await findDrift(t.app.get(Db))).toEqual([]);
  });
});

describe.each(DATABASES)('a node without scantxoutset (as Dogecoin Core 1.14), on %s', (kind: DatabaseKind) => {
  let node: Litecoind;
  let proxy: RpcProxy;
  let db: { url: string; drop: () => Promise<void> };
  let t: TestApp;

  beforeAll(async () => {
    node = await startLitecoind();
    await node.mine(105);
    proxy = await startRpcProxy(node.rpcUrl);
    proxy.misbehave({ method: 'scantxoutset', kind: 'error', code: -32601, message: 'Method not found' });
    const credentials = new URL(node.rpcUrl);
    const through = new URL(proxy.url);
    through.username = credentials.username;
    through.password = credentials.password;
    db = await freshDatabase(kind);
    t = await startTestApp({
      databaseUrl: db.url,
      env: {
        RPC_URL_DOGECOIN: through.toString(),
        NETWORK_DOGECOIN: 'regtest',
        CONFIRMATIONS_DOGECOIN: '0',
        NATIVE_BACKFILL_BLOCKS_DOGECOIN: 'all',
        FOLLOW_INTERVAL_MS: '100',
      },
    });
  });

  afterAll(async () => {
    await t?.close();
    await db?.drop();
    await proxy?.close();
    await node?.stop();
  });

  it('takes a later-tracked address’s balance from its backfill, and follows its outputs from there', async () => {
    const api = new UtxoClient(t);
    const used = new Set<string>();
    const late = await node.newAddress('legacy');
    const other = await node.newAddress('legacy');
    const receipt = await node.send({
      inputs: [await coin(node, used)],
      outputs: [{ address: late.address, value: 60_000_000n }],
      change: other.address,
    });
    const small = await node.send({
      inputs: [await coin(node, used)],
      outputs: [{ address: late.address, value: 5_000_000n }],
      change: other.address,
    });
    await node.mine(1);
    const spend = await node.send({
      inputs: [{ txid: receipt, vout: 0 }],
      outputs: [{ address: other.address, value: 20_000_000n }],
      change: late.address,
      fee: 10_000n,
    });
    await node.mine(1);
    await api.atTip(node, ['dogecoin']);
    await api.tag('late_doge', [on('dogecoin', late)]);
    await api.atTip(node, ['dogecoin']);
    const address = on('dogecoin', late);
    expect(await api.satoshis('dogecoin', address)).toBe('44990000');
    const rows = byId(await api.list('dogecoin', address));
    expect([...rows.keys()].sort()).toEqual(
      [`dogecoin:${receipt}:0`, `dogecoin:${small}:0`, `dogecoin:${spend}:0`].sort(),
    );

    // Its coins found by the backfill are followed: spending one is seen.
    const later = await node.send({
      inputs: [{ txid: small, vout: 0 }],
      outputs: [{ address: other.address, value: 4_990_000n }],
    });
    await node.mine(1);
    await api.atTip(node, ['dogecoin']);
    expect(byId(await api.list('dogecoin', address)).get(`dogecoin:${later}:0`)).toMatchObject({
      from_address: address,
    });
    expect(await api.satoshis('dogecoin', address)).toBe('39990000');
    expect(await findDrift(t.app.get(Db))).toEqual([]);
  });
});

describe.each(DATABASES)('a node that fails while the follower takes the chain, on %s', (kind: DatabaseKind) => {
  let node: Litecoind;
  let proxy: RpcProxy;
  let db: { url: string; drop: () => Promise<void> };
  let t: TestApp;
  let through: string;

  beforeAll(async () => {
    node = await startLitecoind();
    await node.mine(102);
    proxy = await startRpcProxy(node.rpcUrl);
    const credentials = new URL(node.rpcUrl);
    const url = new URL(proxy.url);
    url.username = credentials.username;
    url.password = credentials.password;
    through = url.toString();
    db = await freshDatabase(kind);
  });

  afterAll(async () => {
    await t?.close();
    await db?.drop();
    await proxy?.close();
    await node?.stop();
  });

  const start = async (): Promise<UtxoClient> => {
    t = await startTestApp({
      databaseUrl: db.url,
      env: {
        RPC_URL_BITCOIN: through,
        NETWORK_BITCOIN: 'regtest',
        CONFIRMATIONS_BITCOIN: '0',
        FOLLOW_INTERVAL_MS: '100',
      },
    });
    return new UtxoClient(t);
  };

  it('loads what it follows once the node answers, and finds the spends of outputs it kept', async () => {
    let api = await start();
    const used = new Set<string>();
    const wallet = await node.newAddress('legacy');
    const other = await node.newAddress('legacy');
    await api.tag('flaky_node', [on('bitcoin', wallet)]);
    const paid = await node.send({
      inputs: [await coin(node, used)],
      outputs: [{ address: wallet.address, value: 30_000_000n }],
      change: other.address,
    });
    await node.mine(1);
    await api.atTip(node, ['bitcoin']);
    await t.close();

    // The first turns after the restart fail while the follower prepares, then the node answers.
    const failing = proxy.misbehave({ method: 'scantxoutset', kind: 'status', status: 503, times: 6 });
    api = await start();
    const spent = await node.send({
      inputs: [{ txid: paid, vout: 0 }],
      outputs: [{ address: other.address, value: 29_990_000n }],
    });
    await node.mine(1);
    await api.atTip(node, ['bitcoin']);
    failing();
    expect(proxy.calls('scantxoutset').length).toBeGreaterThan(1);
    expect(byId(await api.list('bitcoin', on('bitcoin', wallet))).get(`bitcoin:${spent}:0`)).toMatchObject({
      from_address: on('bitcoin', wallet),
      value: '29990000',
    });
    expect(await api.satoshis('bitcoin', on('bitcoin', wallet))).toBeUndefined();
    expect(await findDrift(t.app.get(Db))).toEqual([]);
  });
});
