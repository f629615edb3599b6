import { Address, Hex } from 'viem';
import { findDrift } from '../src/modules/aggregates/aggregates.service';
import { Db } from '../src/database/db.service';
import type { NodeCheck } from '../src/modules/follow/follow.service';
import { Anvil, startAnvil } from './support/anvil';
import { runCli } from './support/cli';
import { eventually, FollowClient, randomAddress } from './support/follow-client';
import { FollowerProcess, leaseHolder, startFollowerProcess } from './support/follower-process';
import { find, parse, Sample } from './support/prometheus';
import { freePort } from './support/pg-cluster';
import { RpcProxy, startRpcProxy } from './support/rpc-proxy';
import { deployTestToken, mint } from './support/test-token';
import { DATABASES, DatabaseKind, freshDatabase, startTestApp, TestApp } from './support/test-app';

/**
 * The follower as operators run it: `cli follow` worker processes that are killed, that compete
 * for a chain on one PostgreSQL, and a node behind a proxy that fails the way providers fail
 * (contract §10: crash safety, one writer per chain, RPC failures).
 */

const ETHER = 10n ** 18n;

/** What `GET /metrics` shows of the chains' followers. */
async function followerSamples(t: TestApp): Promise<Sample[]> {
  const { text } = await t.http().get('/metrics').expect(200);
  return parse(text).filter((sample) => sample.name.startsWith('chaintags_follower_'));
}

/** The blocks at which the proxy was asked for native balances. */
function balancesAskedAt(proxy: RpcProxy): bigint[] {
  return proxy.calls('eth_getBalance').map((call) => BigInt(call.params[1] as string));
}

describe.each(DATABASES)('a follower process killed mid-stream, on %s', (kind: DatabaseKind) => {
  let anvil: Anvil;
  let proxy: RpcProxy;
  let db: { url: string; drop: () => Promise<void> };
  let t: TestApp;
  const workers: FollowerProcess[] = [];

  beforeAll(async () => {
    anvil = await startAnvil();
    proxy = await startRpcProxy(anvil.url);
    db = await freshDatabase(kind);
    t = await startTestApp({ databaseUrl: db.url });
  });

  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.kill()));
    await t?.close();
    await db?.drop();
    await proxy?.close();
    await anvil?.stop();
  });

  it('resumes where it committed after SIGKILL: every transfer once, the kept stats exact', async () => {
    const reader = new FollowClient(t);
    const [first, second] = [randomAddress(), randomAddress()];
    await reader.tag('killed', [first, second]);
    const token = (await deployTestToken(anvil, { name: 'Kill Coin', symbol: 'KILL', decimals: 18 })).toLowerCase();
    const sent = new Map<string, Hex[]>([
      [first, []],
      [second, []],
    ]);
    // 160 blocks, one transfer each: native ones and, every fifth block, a token mint.
    for (let i = 0; i < 160; i++) {
      const to = i % 2 === 0 ? first : second;
      const hash =
        i % 5 === 0
          ? (await mint(anvil, { token: token as Address, to, amount: BigInt(i + 1) })).transactionHash
          : await anvil.walletClient(1 + (i % 3)).sendTransaction({ to, value: BigInt(i + 1) * 1000n });
      sent.get(to)!.push(hash);
    }
    await anvil.publicClient.waitForTransactionReceipt({ hash: sent.get(second)!.at(-1)! });

    // Slowed down by the proxy, so that the kill lands between two commits of the catch-up: the
    // first range (blocks 0-99) read and committing, the second read ahead meanwhile. The kill
    // comes when the read-ahead asks for its balances (the last thing it reads): that range cannot
    // have committed. The killed process gives nothing up: the survivor resumes once its lease
    // lapses (2 s).
    const head = await anvil.head();
    const slow = proxy.misbehave({ kind: 'delay', ms: 150 });
    const env = {
      RPC_URL_ETHEREUM: proxy.url,
      CONFIRMATIONS_ETHEREUM: '0',
      FOLLOW_INTERVAL_MS: '50',
      FOLLOW_LEASE_SECONDS: '2',
    };
    const victim = startFollowerProcess(db.url, env);
    workers.push(victim);
    await proxy.until(() => balancesAskedAt(proxy).some((block) => block > 99n));
    victim.signal('SIGKILL');
    expect((await victim.exited).signal).toBe('SIGKILL');
    expect(balancesAskedAt(proxy)).toContain(head);
    const reached = (await reader.ethereum()).indexed_block;
    expect(reached === null || BigInt(reached) <= 99n).toBe(true);
    slow();

    const survivor = startFollowerProcess(db.url, env);
    workers.push(survivor);
    await reader.caughtUp(anvil);
    for (const [address, hashes] of sent) {
      const recorded = await reader.hashes(address);
      expect(recorded).toHaveLength(hashes.length);
      expect([...recorded].sort()).toEqual([...hashes].sort());
    }
    expect(await findDrift(t.app.get(Db))).toEqual([]);
  });
});

describe.each(DATABASES)('a reorganisation while the next range is read ahead, on %s', (kind: DatabaseKind) => {
  let anvil: Anvil;
  let proxy: RpcProxy;
  let db: { url: string; drop: () => Promise<void> };
  let t: TestApp;
  let follower: FollowerProcess | undefined;

  beforeEach(async () => {
    anvil = await startAnvil();
    proxy = await startRpcProxy(anvil.url);
    db = await freshDatabase(kind);
    t = await startTestApp({ databaseUrl: db.url });
  });

  afterEach(async () => {
    await follower?.kill();
    await t?.close();
    await db?.drop();
    await proxy?.close();
    await anvil?.stop();
  });

  // 160 blocks, each paying the tracked address: the follower reads blocks 0-99, and reads 100-160
  // ahead while 0-99 commit. The reorganisation replaces the top `depth` blocks while the
  // read-ahead waits for its balances (held by the proxy), the first replacement paying 7 ether.
  it.each([
    ['inside the range read ahead: it is discarded, nothing committed is undone', 5, false],
    ['down into the range committing: that one is undone, the range read ahead discarded', 70, true],
  ])('%s', async (_case, depth, undone) => {
    const reader = new FollowClient(t);
    const payee = randomAddress();
    await reader.tag('ahead', [payee]);
    const sent: Hex[] = [];
    for (let i = 0; i < 160; i++) {
      sent.push(await anvil.walletClient(1 + (i % 3)).sendTransaction({ to: payee, value: BigInt(i + 1) * 1000n }));
    }
    await anvil.publicClient.waitForTransactionReceipt({ hash: sent.at(-1)! });
    const head = await anvil.head();
    expect(head).toBeLessThan(200n);

    const held = proxy.misbehave({ kind: 'delay', ms: 1500, method: 'eth_getBalance' });
    follower = startFollowerProcess(db.url, {
      RPC_URL_ETHEREUM: proxy.url,
      CONFIRMATIONS_ETHEREUM: '0',
      FOLLOW_INTERVAL_MS: '50',
    });
    await proxy.until(() => balancesAskedAt(proxy).includes(head));
    const payer = anvil.accounts[5]!.address;
    await anvil.reorg(depth, [{ transaction: { from: payer, to: payee, value: 7n * ETHER }, block: 0 }]);
    held();
    const replacement = (await anvil.publicClient.getBlock({ blockNumber: head - BigInt(depth) + 1n }))
      .transactions[0]!;

    const kept = (
      await Promise.all(sent.map((hash) => anvil.publicClient.getTransactionReceipt({ hash }).catch(() => undefined)))
    ).filter((receipt) => receipt !== undefined && receipt.blockNumber <= head - BigInt(depth));
    const expected = [...kept.map((receipt) => receipt!.transactionHash), replacement].sort();
    expect(expected).toHaveLength(160 - depth + 1);
    await eventually('the new chain followed', async () => {
      const recorded = (await reader.hashes(payee)).sort();
      return (await reader.ethereum()).indexed_block === head.toString() &&
        JSON.stringify(recorded) === JSON.stringify(expected)
        ? true
        : undefined;
    });
    expect(await reader.balance(payee)).toBe((await anvil.publicClient.getBalance({ address: payee })).toString());
    expect(await findDrift(t.app.get(Db))).toEqual([]);
    // Undoing means a range of the old chain was committed: only the one that was committing.
    expect(/reorganisation: \d+ blocks? after/.test(follower.log())).toBe(undone);
  });
});

describe('two follower processes on one PostgreSQL', () => {
  let anvil: Anvil;
  let db: { url: string; drop: () => Promise<void> };
  let t: TestApp;
  const workers: FollowerProcess[] = [];

  beforeAll(async () => {
    anvil = await startAnvil();
    db = await freshDatabase('postgres');
    t = await startTestApp({ databaseUrl: db.url });
  });

  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.kill()));
    await t?.close();
    await db?.drop();
    await anvil?.stop();
  });

  const holder = () => leaseHolder(db.url, 'ethereum');

  /** Which of `workers` holds the lease now: exactly one of them. */
  async function writerAmong(candidates: FollowerProcess[]): Promise<FollowerProcess> {
    const writer = await eventually('a lease holder', async () => (await holder()) ?? undefined);
    const writers = candidates.filter((worker) => writer.includes(`:${worker.pid}:`));
    expect(writers).toHaveLength(1);
    return writers[0]!;
  }

  it('has one writer; the other takes over when it stops, and when it dies', async () => {
    const reader = new FollowClient(t);
    const watched = randomAddress();
    await reader.tag('two_workers', [watched]);
    const env = {
      RPC_URL_ETHEREUM: anvil.url,
      CONFIRMATIONS_ETHEREUM: '0',
      FOLLOW_INTERVAL_MS: '100',
      FOLLOW_LEASE_SECONDS: '2',
    };
    const pay = async (ether: bigint): Promise<Hex> => {
      const hash = await anvil.walletClient(1).sendTransaction({ to: watched, value: ether * ETHER });
      await anvil.publicClient.waitForTransactionReceipt({ hash });
      return hash;
    };
    const recorded = (hash: Hex) => async () => ((await reader.hashes(watched)).includes(hash) ? true : undefined);
    const one = startFollowerProcess(db.url, env);
    const other = startFollowerProcess(db.url, env);
    workers.push(one, other);
    const paid = [await pay(1n)];
    await reader.caughtUp(anvil);

    const first = await writerAmong([one, other]);
    const standby = first === one ? other : one;
    await eventually('the other process to stand by', () =>
      Promise.resolve(standby.log().includes('another process follows this chain') ? true : undefined),
    );
    expect(standby.log()).not.toMatch(/following ethereum/);

    // SIGTERM: the writer finishes its turn, gives the lease up and exits 0; the standby takes over.
    first.signal('SIGTERM');
    expect(await first.exited).toEqual({ code: 0, signal: null });
    paid.push(await pay(2n));
    await eventually('the standby to take over after a stop', recorded(paid[1]!), 30_000);
    expect(await writerAmong([standby])).toBe(standby);

    // SIGKILL: nothing is given up; a third process takes over once the lease lapses (2 s).
    const third = startFollowerProcess(db.url, env);
    workers.push(third);
    await eventually('the third process to stand by', () =>
      Promise.resolve(third.log().includes('another process follows this chain') ? true : undefined),
    );
    standby.signal('SIGKILL');
    await standby.exited;
    paid.push(await pay(3n));
    await eventually('the third process to take over after a crash', recorded(paid[2]!), 30_000);
    expect(await writerAmong([third])).toBe(third);
    expect((await reader.hashes(watched)).sort()).toEqual([...paid].sort());
    expect(await findDrift(t.app.get(Db))).toEqual([]);
  });
});

describe.each(DATABASES)('a node that fails the way providers fail, on %s', (kind: DatabaseKind) => {
  let anvil: Anvil;
  let proxy: RpcProxy;
  let db: { url: string; drop: () => Promise<void> };
  let t: TestApp;

  beforeAll(async () => {
    anvil = await startAnvil();
    proxy = await startRpcProxy(anvil.url);
    db = await freshDatabase(kind);
    t = await startTestApp({
      databaseUrl: db.url,
      env: { RPC_URL_ETHEREUM: proxy.url, CONFIRMATIONS_ETHEREUM: '0', FOLLOW_INTERVAL_MS: '100' },
    });
  });

  afterAll(async () => {
    await t?.close();
    await db?.drop();
    await proxy?.close();
    await anvil?.stop();
  });

  it('retries dropped, slow and rate-limited requests and narrows eth_getLogs ranges the node refuses', async () => {
    const reader = new FollowClient(t);
    const late = randomAddress();
    const token = (
      await deployTestToken(anvil, { name: 'Flaky', symbol: 'FLK', decimals: 18 })
    ).toLowerCase() as Address;
    const minted: Hex[] = [];
    for (let i = 0; i < 6; i++) {
      minted.push((await mint(anvil, { token, to: late, amount: ETHER })).transactionHash);
      await anvil.mine(10);
    }
    await reader.caughtUp(anvil);

    proxy.resetCalls();
    proxy.misbehave({ kind: 'rangeTooLarge', maxBlocks: 8, method: 'eth_getLogs' });
    proxy.misbehave({ kind: 'rangeTooLarge', maxBlocks: 20, method: 'eth_getLogs', style: 'plain' });
    proxy.misbehave({ kind: 'drop', times: 2 });
    proxy.misbehave({ kind: 'status429', times: 3 });
    proxy.misbehave({ kind: 'delay', ms: 500, times: 2 });
    await reader.tag('flaky_node', [late]);
    const paid = await anvil.walletClient(1).sendTransaction({ to: late, value: ETHER });
    await anvil.publicClient.waitForTransactionReceipt({ hash: paid });

    await eventually('the history read through the failing node', async () => {
      const row = await reader.ethereum();
      return row.status === 'synced' && row.indexed_block === (await anvil.head()).toString() ? row : undefined;
    });
    expect((await reader.hashes(late)).sort()).toEqual([...minted, paid].sort());
    // Wide ranges were refused, and the history was read in ranges the node accepts.
    const spans = proxy.calls('eth_getLogs').map((call) => {
      const filter = call.params[0] as { fromBlock?: string; toBlock?: string; blockHash?: string };
      return filter.blockHash !== undefined ? 1 : Number(BigInt(filter.toBlock!) - BigInt(filter.fromBlock!)) + 1;
    });
    expect(spans.some((span) => span > 8)).toBe(true);
    expect(spans.filter((span) => span <= 8).length).toBeGreaterThanOrEqual(7);
    expect(await findDrift(t.app.get(Db))).toEqual([]);
  });

  it('reports a node that keeps failing in /v2/sync, without its URL, and recovers when it answers again', async () => {
    const reader = new FollowClient(t);
    const stop = proxy.misbehave({ kind: 'status', status: 503 });
    const row = await eventually('the failure to be reported', async () => {
      const ethereum = await reader.ethereum();
      return ethereum.status === 'error' ? ethereum : undefined;
    });
    expect(row.error).toBeTruthy();
    expect(row.error).not.toContain(proxy.url);
    expect(row.error).not.toContain('127.0.0.1');
    const failing = await followerSamples(t);
    expect(find(failing, 'chaintags_follower_status', { chain: 'ethereum', status: 'error' })?.value).toBe(1);
    expect(find(failing, 'chaintags_follower_status', { chain: 'ethereum', status: 'synced' })?.value).toBe(0);
    stop();
    const watched = randomAddress();
    await reader.tag('recovered', [watched]);
    const paid = await anvil.walletClient(2).sendTransaction({ to: watched, value: ETHER });
    await anvil.publicClient.waitForTransactionReceipt({ hash: paid });
    await eventually('the follower to recover', async () =>
      (await reader.hashes(watched)).includes(paid) && (await reader.ethereum()).status === 'synced' ? true : undefined,
    );
    const recovered = await followerSamples(t);
    expect(find(recovered, 'chaintags_follower_status', { chain: 'ethereum', status: 'error' })?.value).toBe(0);
    expect(find(recovered, 'chaintags_follower_status', { chain: 'ethereum', status: 'synced' })?.value).toBe(1);
  });
});

describe.each(DATABASES)('an API process beside a follow worker, on %s', (kind: DatabaseKind) => {
  let anvil: Anvil;
  let db: { url: string; drop: () => Promise<void> };
  let t: TestApp;
  const workers: FollowerProcess[] = [];

  beforeAll(async () => {
    anvil = await startAnvil();
    db = await freshDatabase(kind);
    // As docs/operations.md has it: the API process knows the RPC URL, and leaves following to the worker.
    t = await startTestApp({
      databaseUrl: db.url,
      env: { RPC_URL_ETHEREUM: anvil.url, CONFIRMATIONS_ETHEREUM: '0', FOLLOW: 'off' },
    });
  });

  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.kill()));
    await t?.close();
    await db?.drop();
    await anvil?.stop();
  });

  it('shows on /metrics the chain the worker follows, as /v2/sync does, and no series for a chain nobody follows', async () => {
    const reader = new FollowClient(t);
    expect(await followerSamples(t)).toEqual([
      { name: 'chaintags_follower_backfill_addresses', labels: { chain: 'ethereum' }, value: 0 },
      { name: 'chaintags_follower_status', labels: { chain: 'ethereum', status: 'synced' }, value: 0 },
      { name: 'chaintags_follower_status', labels: { chain: 'ethereum', status: 'syncing' }, value: 1 },
      { name: 'chaintags_follower_status', labels: { chain: 'ethereum', status: 'error' }, value: 0 },
    ]);
    const port = await freePort();
    const follower = startFollowerProcess(db.url, {
      RPC_URL_ETHEREUM: anvil.url,
      CONFIRMATIONS_ETHEREUM: '0',
      FOLLOW_INTERVAL_MS: '100',
      METRICS_PORT: String(port),
    });
    workers.push(follower);
    const payee = randomAddress();
    await reader.tag('worker_metrics', [payee]);
    const hash = await anvil.walletClient(3).sendTransaction({ to: payee, value: ETHER });
    await anvil.publicClient.waitForTransactionReceipt({ hash });
    const row = await reader.synced(anvil);
    const samples = await followerSamples(t);
    const value = (name: string, labels: Record<string, string> = {}) =>
      find(samples, name, { chain: 'ethereum', ...labels })?.value;
    expect(value('chaintags_follower_head_block')).toBe(Number(row.head_block));
    expect(value('chaintags_follower_indexed_block')).toBe(Number(row.indexed_block));
    expect(value('chaintags_follower_lag_blocks')).toBe(Number(row.head_block) - Number(row.indexed_block));
    expect(value('chaintags_follower_status', { status: 'synced' })).toBe(1);
    expect(value('chaintags_follower_status', { status: 'syncing' })).toBe(0);
    expect(value('chaintags_follower_backfill_addresses')).toBe(0);
    // The worker reports every turn: its last report is recent.
    expect(Math.abs(value('chaintags_follower_updated_timestamp_seconds')! * 1000 - Date.now())).toBeLessThan(10_000);
    expect(samples.filter((sample) => sample.labels.chain !== 'ethereum')).toEqual([]);

    // The worker serves its own GET /metrics on METRICS_PORT: the same followers, and the process's figures.
    const served = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(served.headers.get('content-type')).toMatch(/^text\/plain/);
    const worker = parse(await served.text());
    expect(find(worker, 'chaintags_follower_status', { chain: 'ethereum', status: 'synced' })?.value).toBe(1);
    expect(find(worker, 'chaintags_follower_indexed_block', { chain: 'ethereum' })?.value).toBe(
      Number(row.indexed_block),
    );
    expect(find(worker, 'chaintags_build_info')?.value).toBe(1);
    expect(find(worker, 'process_cpu_user_seconds_total')?.value).toBeGreaterThan(0);
    expect(find(worker, 'chaintags_webhook_pending_deliveries')?.value).toBe(0);
    expect((await fetch(`http://127.0.0.1:${port}/v2/sync`)).status).toBe(404);
    // SIGTERM closes it with the rest, a scraper's kept-alive connection included.
    follower.signal('SIGTERM');
    expect(await follower.exited).toEqual({ code: 0, signal: null });
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
  });
});

describe.each(DATABASES)('follow --check, on %s', (kind: DatabaseKind) => {
  let anvil: Anvil;
  let db: { url: string; drop: () => Promise<void> };

  beforeAll(async () => {
    anvil = await startAnvil();
    db = await freshDatabase(kind);
  });

  afterAll(async () => {
    await db?.drop();
    await anvil?.stop();
  });

  it('asks each node once: its head beside the block indexed, another chain’s node and a closed port failing without their URLs', async () => {
    const closed = `http://user:secret-password@127.0.0.1:${await freePort()}/`;
    const env = {
      // anvil says chain id 1: ethereum's; base's is 8453.
      RPC_URL_ETHEREUM: anvil.url,
      RPC_URL_BASE: anvil.url,
      RPC_URL_POLYGON: closed,
      CONFIRMATIONS_ETHEREUM: '0',
    };
    const failed = await runCli(db.url, ['follow', '--check'], undefined, { env });
    expect(failed.code).toBe(1);
    const answer = JSON.parse(failed.stdout) as { ok: boolean; chains: NodeCheck[] };
    const byChain = new Map(answer.chains.map((check) => [check.chain, check]));
    expect(answer.ok).toBe(false);
    expect([...byChain.keys()].sort()).toEqual(['base', 'ethereum', 'polygon']);
    expect(byChain.get('ethereum')).toEqual({
      chain: 'ethereum',
      ok: true,
      head: (await anvil.head()).toString(),
      indexed: null,
      behind: null,
      error: null,
    });
    expect(byChain.get('base')).toMatchObject({ ok: false, head: null, error: expect.stringMatching(/8453/) });
    expect(byChain.get('polygon')).toMatchObject({ ok: false, error: expect.stringMatching(/refused/) });
    expect(failed.stderr).toMatch(/^ethereum: ok, head \d+, nothing indexed yet$/m);
    expect(failed.stderr).toContain('error: the node of polygon, base failed the check');
    for (const output of [failed.stdout, failed.stderr]) {
      expect(output).not.toContain(anvil.url);
      expect(output).not.toContain('secret-password');
    }

    // Followed for a while: the block indexed, and how far the node is ahead of it. Nothing written by the check.
    const t = await startTestApp({
      databaseUrl: db.url,
      env: { RPC_URL_ETHEREUM: anvil.url, CONFIRMATIONS_ETHEREUM: '0' },
    });
    try {
      await new FollowClient(t).synced(anvil);
    } finally {
      await t.close();
    }
    await anvil.mine(3);
    const followed = await runCli(db.url, ['follow', '--check'], undefined, {
      env: { RPC_URL_ETHEREUM: anvil.url, CONFIRMATIONS_ETHEREUM: '0' },
    });
    expect({ code: followed.code, stderr: followed.stderr }).toMatchObject({ code: 0 });
    const [ethereum] = (JSON.parse(followed.stdout) as { chains: NodeCheck[] }).chains;
    const head = await anvil.head();
    expect(ethereum).toMatchObject({ ok: true, head: head.toString(), behind: '3' });
    expect(BigInt(ethereum!.indexed!)).toBe(head - 3n);
    expect(followed.stderr).toContain(`ethereum: ok, head ${head}, indexed ${head - 3n} (3 behind the node)`);

    const none = await runCli(db.url, ['follow', '--check']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no chain has an RPC URL');
  });
});
