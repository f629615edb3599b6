/**
 * `npm run bench:follow`: the EVM follower (src/modules/follow) against a real node, measured.
 *
 * 1. Starts anvil (chain id 1, the states of the last `blocks` + 100 blocks kept in memory),
 *    deploys three ERC-20 test tokens, turns automine off, and gives the senders (half tracked,
 *    half untracked) ether and tokens straight in state (bench/lib/chain-traffic.ts).
 * 2. Starts chaintags (compiled, as bench/run.ts runs it) with FOLLOW on, RPC_URL_ETHEREUM at anvil,
 *    confirmations 0, and tags the tracked addresses through POST /v2/tags/:tag (100 a tag); waits
 *    until GET /v2/sync says synced at the head, and stops it.
 * 3. Makes the blocks (default 1,000 of 50 transfers: native and ERC-20, senders tracked or not,
 *    recipients tracked, untracked or "late"), counting the transfers chaintags should record.
 * 4. Catch-up: starts chaintags again on the same database and times it until synced at the head.
 * 5. Backfill: tags the late addresses, which received transfers in those blocks; times it until
 *    synced again and checks each late address's transaction count through the API.
 * 6. Head latency: blocks with a transfer to an idle tracked address, one at a time; from the
 *    moment anvil has mined the block to the transfer being listed by GET /v2/transactions.
 * 7. API under load: autocannon on four endpoints idle, and while a block of transfers is mined
 *    every FOLLOW_INTERVAL_MS (windows in the order idle, following, following, idle).
 * 8. Correctness: `stats verify` on the database, and the transactions recorded against the
 *    transfers counted while making them.
 *
 * Prints a table and writes bench/results/follow-latest.json.
 *
 *   npm run bench:follow [-- --blocks 1000] [--per-block 50] [--addresses 10000] [--late 1000]
 *                        [--untracked 2000] [--senders 2000] [--samples 50] [--duration 10] [--warmup 3]
 *                        [--connections 10] [--interval-ms 200] [--sqlite] [--skip-postgres]
 *                        [--cpu-prof] [--service-log] [--pg-statements] [--seed S]
 *   npm run bench:follow -- --family utxo [...]: the Bitcoin family on litecoind (bench/follow-utxo.ts)
 *   npm run bench:follow -- --family solana [...]: Solana on litesvm behind a JSON-RPC stand-in (bench/follow-solana.ts)
 *   npm run bench:follow -- --family ton [...]: TON on @ton/sandbox behind a toncenter stand-in (bench/follow-ton.ts)
 *
 * Nothing here runs in `npm test`.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { loadavg, setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Command, InvalidArgumentError, Option } from 'commander';
import { Anvil, startAnvil } from '../test/support/anvil';
import type { PgCluster } from '../test/support/pg-cluster';
import { deployTestToken } from '../test/support/test-token';
import { AddressPool, derivedAddresses, PlannedTransfer, seededRandom, Traffic } from './lib/chain-traffic';
import {
  CpuSeconds,
  DatabaseKind,
  FollowFigures,
  FollowResults,
  FollowTarget,
  formatFollowResults,
  LOAD_ENDPOINTS,
  LoadEndpoint,
} from './lib/follow-report';
import {
  countListed,
  countTransactions,
  cpuMeter,
  freshDatabase,
  getJson,
  percentile,
  postTags,
  prepareRuns,
  sampleRss,
  syncRowOf,
  TagJob,
  tagsOf,
  waitSynced as waitSyncedOn,
} from './lib/follow-service';
import { followSolana } from './follow-solana';
import { followUtxo } from './follow-utxo';
import { followTon } from './follow-ton';
import { drive, LoadResult } from './lib/load';
import { hostFacts, memoryOf, ROOT, Server, sleep, startService, statsVerify } from './lib/processes';
import { benchLog, Cleanups, runBench } from './lib/lifecycle';
import { formatStatements, loadStatementStats, StatementStats } from './lib/pg-statements';
import { addLoadOptions, cpuProfileOption, LoadSettings, parseCommandLine, wholeNumber } from './lib/options';

const RESULTS_DIR = join(ROOT, 'bench', 'results');
const ACCOUNT = 'bench';
const VISIBLE_POLL_MS = 20;

/** Errors the follower reported in /v2/sync during the run (it retries by itself). */
const followerErrors: string[] = [];
const ADDRESS_PATHS = 1000;
/** States anvil keeps beyond the blocks made: the few blocks made before them, and some slack. */
const KEPT_STATES_MARGIN = 100;

interface Settings {
  blocks: number;
  perBlock: number;
  addresses: number;
  late: number;
  untracked: number;
  senders: number;
  samples: number;
  seconds: number;
  warmup: number;
  connections: number;
  intervalMs: number;
  databases: DatabaseKind[];
  cpuProfile: boolean;
  /** The service's log lines (the follower's progress, and every request) into its log file. */
  serviceLog: boolean;
  /** PostgreSQL's costliest statements per phase (pg_stat_statements), into the results and the log. */
  pgStatements: boolean;
  /** anvil's niceness (0 leaves it as started): the node's CPU below the service's on the same cores. */
  nodeNice: number;
  seed: string;
}

/** Everything the run started, so that an error or Ctrl-C still stops it (last in, first out). */
const cleanups = new Cleanups();
const log = benchLog('bench:follow');

let build: { main: string; cli: string } | undefined;

async function main(): Promise<void> {
  const settings = readSettings(process.argv.slice(2));
  if (settings === undefined) return;
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const loadBefore = loadavg()[0]!;
  mkdirSync(RESULTS_DIR, { recursive: true });
  const prepared = await prepareRuns(settings.databases, cleanups, log);
  build = prepared.build;
  const cluster = prepared.cluster;
  if (settings.pgStatements && cluster !== undefined) await loadStatementStats(cluster);
  const runs: Partial<Record<DatabaseKind, FollowFigures>> = {};
  for (const kind of settings.databases) runs[kind] = await runOn(kind, settings, cluster);
  await cleanups.run(log);

  const results: FollowResults = {
    command: `npm run bench:follow${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    startedAt,
    wallSeconds: (performance.now() - started) / 1000,
    machine: {
      ...hostFacts(),
      loadAverageBefore: Number(loadBefore.toFixed(2)),
      loadAverageAfter: Number(loadavg()[0]!.toFixed(2)),
    },
    settings: { ...settings },
    followerErrors,
    runs,
    targets: targetsOf(runs),
  };
  writeFileSync(join(RESULTS_DIR, 'follow-latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`\n${formatFollowResults(results)}\n`);
  log(`wrote ${join('bench', 'results', 'follow-latest.json')}`);
}

/** The whole scenario on one database, with its own anvil. */
async function runOn(kind: DatabaseKind, settings: Settings, cluster: PgCluster | undefined): Promise<FollowFigures> {
  log(`${kind}: starting anvil and deploying the test tokens`);
  // The catch-up reads balances at blocks up to `blocks` behind the head: their states are kept in
  // memory, as a node serving that history at speed would (see bench/README.md).
  const anvil = await startAnvil({ chainId: 1, keepStates: settings.blocks + KEPT_STATES_MARGIN });
  cleanups.push(() => anvil.stop());
  if (settings.nodeNice > 0) lowerPriority(anvil, settings.nodeNice);
  const tokens: string[] = [];
  for (const [index, symbol] of ['BUSD', 'BETH', 'BDAI'].entries()) {
    tokens.push(await deployTestToken(anvil, { name: `Bench ${symbol}`, symbol, decimals: [6, 18, 18][index]! }));
  }
  await anvil.setAutomine(false);
  const pool = addressPool(settings);
  const traffic = new Traffic(anvil.url, pool, tokens, settings.seed);
  log(`${kind}: giving ${pool.senders.length} senders ether and tokens`);
  await traffic.fund();

  const databaseUrl = await freshDatabase(kind, cluster, cleanups, 'bench_follow');
  const statements = settings.pgStatements && kind === 'postgres' ? await StatementStats.open(databaseUrl) : undefined;
  if (statements !== undefined) cleanups.push(() => statements.close());
  const key = `ctk_${randomBytes(24).toString('base64url')}`;
  const headers = { 'x-api-key': key };
  const follow = {
    FOLLOW: 'on',
    RPC_URL_ETHEREUM: anvil.url,
    CONFIRMATIONS_ETHEREUM: '0',
    FOLLOW_INTERVAL_MS: String(settings.intervalMs),
  };
  const serviceOptions = { databaseUrl, apiKeys: `${ACCOUNT}:${key}`, env: follow, logStdout: settings.serviceLog };
  const trackedTags = tagsOf('tracked', [...pool.tracked, ...pool.probes]);
  const lateTags = tagsOf('late', pool.late);

  // The tracked addresses are taken in while the chain is short, so that the catch-up below is
  // following alone.
  const setupStartedAt = new Date();
  const setup = cleanups.track(
    await startService(compiled().main, { ...serviceOptions, logFile: join(RESULTS_DIR, `follow-${kind}-setup.log`) }),
  );
  const tagging = await postTags(setup.port, key, trackedTags);
  log(`${kind}: tagged ${tagging.addresses} addresses in ${tagging.seconds.toFixed(1)} s; waiting for the follower`);
  await waitSynced(setup.port, headers, anvil, 600_000, setupStartedAt);
  await stopTracked(setup);

  const before = await anvil.head();
  log(`${kind}: making ${settings.blocks} blocks of ${settings.perBlock} transfers`);
  const making = performance.now();
  for (let index = 0; index < settings.blocks; index++) {
    await traffic.block(traffic.plan(settings.perBlock));
    if ((index + 1) % 200 === 0) log(`  ${index + 1} blocks`);
  }
  const head = await anvil.head();
  await traffic.checkBlocks(before + 1n, head, settings.perBlock);
  const generation = {
    blocks: Number(head - before),
    transfers: traffic.made,
    touchingTracked: traffic.touchingTracked,
    seconds: (performance.now() - making) / 1000,
  };
  log(
    `${kind}: ${generation.transfers} transfers in ${generation.seconds.toFixed(1)} s, ${generation.touchingTracked} with a tracked end`,
  );

  // Catch-up: chaintags starts with the blocks already there.
  const profileDir = settings.cpuProfile
    ? join(tmpdir(), 'chaintags-bench', 'profiles', `follow-${Date.now()}`)
    : undefined;
  if (profileDir !== undefined) mkdirSync(profileDir, { recursive: true });
  await statements?.reset();
  const spawnedAt = performance.now();
  const loadAtSpawn = loadavg()[0]!;
  const serviceStartedAt = new Date();
  const service = cleanups.track(
    await startService(compiled().main, {
      ...serviceOptions,
      logFile: join(RESULTS_DIR, `follow-${kind}.log`),
      cpuProfileDir: profileDir,
    }),
  );
  const healthyAt = performance.now();
  const cpu = cpuMeter(service, { name: 'anvil', pid: anvil.pid }, cluster, kind);
  const rss = sampleRss(service);
  cleanups.push(() => rss.stop());
  const synced = await waitSynced(service.port, headers, anvil, 1_800_000, serviceStartedAt);
  const catchUpCpu = cpu.since();
  await statements?.add('catchUp');
  const loadAtSynced = loadavg()[0]!;
  const followingSeconds = (synced.at - synced.firstSample.at) / 1000;
  const followedBlocks = Number(head - synced.firstSample.indexed);
  const catchUp = {
    blocks: generation.blocks,
    transfers: generation.transfers,
    recordedTransfers: generation.touchingTracked,
    secondsFromStart: (synced.at - spawnedAt) / 1000,
    startUpSeconds: (healthyAt - spawnedAt) / 1000,
    indexedAtFirstLook: synced.firstSample.indexed.toString(),
    followingSeconds,
    blocksPerSecond: followedBlocks / followingSeconds,
    transfersPerSecond: (followedBlocks * settings.perBlock) / followingSeconds,
    recordedPerSecond: (generation.touchingTracked * followedBlocks) / generation.blocks / followingSeconds,
    recordedInDatabase: await countTransactions(databaseUrl, 'ethereum'),
    cpuSeconds: catchUpCpu,
    loadAverage: { start: loadAtSpawn, end: loadAtSynced },
  };
  log(
    `${kind}: caught up ${catchUp.blocks} blocks in ${catchUp.secondsFromStart.toFixed(1)} s from start ` +
      `(${catchUp.blocksPerSecond.toFixed(1)} blocks/s while following); ${catchUp.recordedInDatabase} transactions ` +
      `recorded, ${generation.touchingTracked} expected`,
  );

  // Backfill: the late addresses' history is in the blocks already followed.
  const backfillCpu = cpuMeter(service, { name: 'anvil', pid: anvil.pid }, cluster, kind);
  const backfillStarted = performance.now();
  await postTags(service.port, key, lateTags);
  const backfilled = await waitSynced(service.port, headers, anvil, 1_800_000, serviceStartedAt);
  const backfillCpuSeconds = backfillCpu.since();
  const checking = performance.now();
  const counts = await checkCounts(service.port, headers, pool.late, traffic.perAddress);
  const checkSeconds = (performance.now() - checking) / 1000;
  const backfill = {
    addresses: pool.late.length,
    transfers: traffic.touchingTrackedOrLate - traffic.touchingTracked,
    seconds: (backfilled.at - backfillStarted) / 1000,
    countsChecked: pool.late.length,
    countsWrong: counts.length,
    checkSeconds,
    wrongExamples: counts.slice(0, 5),
    recordedInDatabase: await countTransactions(databaseUrl, 'ethereum'),
    expectedInDatabase: traffic.touchingTrackedOrLate,
    cpuSeconds: backfillCpuSeconds,
  };
  log(
    `${kind}: backfill of ${backfill.addresses} addresses in ${backfill.seconds.toFixed(1)} s; ` +
      `${backfill.countsWrong} wrong counts; ${backfill.recordedInDatabase} transactions, ${backfill.expectedInDatabase} expected`,
  );

  const latency = await measureHeadLatency(service.port, headers, traffic, settings);
  log(
    `${kind}: head latency over ${latency.samples} blocks: p50 ${latency.p50Ms.toFixed(0)} ms, p95 ` +
      `${latency.p95Ms.toFixed(0)} ms, max ${latency.maxMs.toFixed(0)} ms`,
  );

  const api = await measureApi(
    service,
    headers,
    traffic,
    anvil,
    serviceStartedAt,
    settings,
    [...trackedTags, ...lateTags],
    () => cpuMeter(service, { name: 'anvil', pid: anvil.pid }, cluster, kind),
    statements,
  );
  await waitSynced(service.port, headers, anvil, 600_000, serviceStartedAt);
  const memory = service.memory();
  const anvilMemory = anvil.pid === undefined ? undefined : memoryOf(anvil.pid);
  rss.stop();
  await stopTracked(service);

  log(`${kind}: stats verify`);
  const verify = statsVerify(compiled().cli, databaseUrl);
  const recorded = await countTransactions(databaseUrl, 'ethereum');
  log(
    `${kind}: stats verify ${verify.exact ? 'exact' : `DRIFT ${JSON.stringify(verify.drift)}`}; ${recorded} transactions, ` +
      `${traffic.touchingTrackedOrLate} expected`,
  );
  await anvil.stop();
  return {
    addresses: {
      tracked: pool.tracked.length + pool.probes.length,
      late: pool.late.length,
      untracked: pool.untracked.length,
    },
    tagging,
    generation,
    catchUp,
    backfill,
    latency,
    api,
    rss: { peakSampledMb: rss.peak(), highWaterMb: memory.peakMb, atEndMb: memory.rssMb },
    anvilRss: { highWaterMb: anvilMemory?.peakMb ?? NaN, atEndMb: anvilMemory?.rssMb ?? NaN },
    correctness: {
      statsVerifyExact: verify.exact,
      drift: verify.drift,
      transactionsRecorded: recorded,
      transfersWithTrackedEnd: traffic.touchingTrackedOrLate,
      transfersMade: traffic.made,
    },
    ...(statements === undefined ? {} : { statements: reportStatements(kind, statements) }),
  };
}

/** The costliest statements of each phase, logged; their figures for the results file. */
function reportStatements(kind: DatabaseKind, statements: StatementStats): FollowFigures['statements'] {
  const summary = statements.summary(40);
  for (const [phase, figures] of Object.entries(summary)) {
    log(`${kind}: statements of ${phase}: ${figures.calls} calls, ${figures.totalMs.toFixed(0)} ms executing`);
    for (const line of formatStatements(figures.statements.slice(0, 10))) log(`  ${line}`);
  }
  return summary;
}

/** Tracked, probe, late and untracked addresses, derived from the seed. */
function addressPool(settings: Settings): AddressPool {
  const tracked = derivedAddresses(settings.seed, 'tracked', settings.addresses);
  const probes = tracked.splice(0, Math.min(settings.samples, Math.floor(settings.addresses / 2)));
  const untracked = derivedAddresses(settings.seed, 'untracked', settings.untracked);
  const half = Math.ceil(settings.senders / 2);
  return {
    tracked,
    probes,
    late: derivedAddresses(settings.seed, 'late', settings.late),
    untracked,
    senders: [...tracked.slice(0, half), ...untracked.slice(0, settings.senders - half)],
  };
}

/** GET /v2/sync until the ethereum follower is synced at anvil's head (bench/lib/follow-service.ts). */
function waitSynced(
  port: number,
  headers: Record<string, string>,
  anvil: Anvil,
  timeoutMs: number,
  serverStartedAt: Date,
): ReturnType<typeof waitSyncedOn> {
  const watch = { port, headers, chain: 'ethereum', head: () => anvil.head(), errors: followerErrors, log };
  return waitSyncedOn(watch, timeoutMs, serverStartedAt);
}

/** Each address's transaction count through GET /v2/transactions against the transfers made; the wrong ones. */
async function checkCounts(
  port: number,
  headers: Record<string, string>,
  addresses: readonly string[],
  expected: ReadonlyMap<string, number>,
): Promise<{ address: string; listed: number; expected: number }[]> {
  const wrong: { address: string; listed: number; expected: number }[] = [];
  let next = 0;
  const worker = async () => {
    while (next < addresses.length) {
      const address = addresses[next]!;
      next += 1;
      const listed = await countListed(
        port,
        `/v2/transactions?chain=ethereum&address=${address}&per_page=100`,
        headers,
      );
      const want = expected.get(address) ?? 0;
      if (listed !== want) wrong.push({ address, listed, expected: want });
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return wrong;
}

/**
 * Blocks of transfers, one at a time, each with one transfer to a probe (a tracked address with
 * no transaction yet, native and token in turn): the time from anvil's answer to `anvil_mine` to
 * the first GET /v2/transactions?address=<probe> that lists it, polled every VISIBLE_POLL_MS.
 * Each block is mined after a random pause of up to one follower interval, so that blocks arrive
 * at every point of the follower's turn.
 */
async function measureHeadLatency(
  port: number,
  headers: Record<string, string>,
  traffic: Traffic,
  settings: Settings,
): Promise<FollowFigures['latency']> {
  log(`head latency: ${traffic.pool.probes.length} blocks, one at a time`);
  const random = seededRandom(`${settings.seed}:latency`);
  const latencies: number[] = [];
  for (const [index, probe] of traffic.pool.probes.entries()) {
    await sleep(random() * settings.intervalMs);
    const token = index % 2 === 0 ? undefined : traffic.tokens[index % traffic.tokens.length];
    const transfers: PlannedTransfer[] = [...traffic.plan(settings.perBlock - 1), traffic.transferTo(probe, token)];
    const { minedAt } = await traffic.block(transfers);
    const deadline = minedAt + 60_000;
    for (;;) {
      const rows = await getJson<unknown[]>(port, `/v2/transactions?chain=ethereum&address=${probe}`, headers);
      if (rows.length > 0) break;
      if (performance.now() > deadline) throw new Error(`the transfer to ${probe} was not listed within 60 s`);
      await sleep(VISIBLE_POLL_MS);
    }
    latencies.push(performance.now() - minedAt);
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    samples: sorted.length,
    intervalMs: settings.intervalMs,
    p50Ms: percentile(sorted, 0.5),
    p95Ms: percentile(sorted, 0.95),
    maxMs: sorted[sorted.length - 1] ?? NaN,
    allMs: latencies.map((value) => Math.round(value)),
  };
}

/**
 * Each endpoint idle and while a block of `perBlock` transfers is mined every `intervalMs`, in
 * the order idle, following, following, idle (after a warm-up), so that a change in the load the
 * machine's other jobs put on it weighs on both sides alike; each side's figures pool its two
 * windows. Before each idle window the follower has caught up with the blocks mined before it.
 */
async function measureApi(
  service: Server,
  headers: Record<string, string>,
  traffic: Traffic,
  anvil: Anvil,
  since: Date,
  settings: Settings,
  tags: readonly TagJob[],
  meter: () => { since: () => CpuSeconds },
  statements: StatementStats | undefined,
): Promise<FollowFigures['api']> {
  const addresses = [...traffic.perAddress.keys()].slice(0, ADDRESS_PATHS);
  const paths: Record<LoadEndpoint, string[]> = {
    tag: tags.map((tag) => `/v2/tags/${tag.name}`),
    address: addresses.map((address) => `/v2/addresses/${address}`),
    transactions: addresses.map((address) => `/v2/transactions?address=${address}`),
    holdings: tags.map((tag) => `/v2/token-holdings?tag=${tag.name}`),
  };
  const mining = { blocks: 0, seconds: 0, maxLagBlocks: 0 };
  const cpu = {
    idle: { seconds: 0, service: 0, anvil: 0, postgres: 0 },
    following: { seconds: 0, service: 0, anvil: 0, postgres: 0 },
  };
  const account = (side: 'idle' | 'following', windows: readonly Window[], used: CpuSeconds) => {
    cpu[side].seconds += windows.reduce((sum, window) => sum + window.result.seconds, 0);
    cpu[side].service += used.service;
    cpu[side].anvil += used.anvil;
    cpu[side].postgres += used.postgres;
  };
  const window = async (endpoint: LoadEndpoint): Promise<Window> => {
    const cpuBefore = service.cpuSeconds();
    const result = await drive({
      port: service.port,
      paths: paths[endpoint],
      headers,
      connections: settings.connections,
      seconds: settings.seconds,
      keepLatencies: true,
    });
    return { result, cpuSeconds: service.cpuSeconds() - cpuBefore };
  };
  const following = async (endpoint: LoadEndpoint): Promise<Window[]> => {
    const miner = startMiner(traffic, service.port, headers, settings);
    try {
      // The follower settles into the pace of the blocks before the measurement.
      await sleep(2000);
      await statements?.reset();
      const used = meter();
      const windows = [await window(endpoint), await window(endpoint)];
      account('following', windows, used.since());
      await statements?.add('apiFollowing');
      return windows;
    } finally {
      const report = await miner.stop();
      mining.blocks += report.blocks;
      mining.seconds += report.seconds;
      mining.maxLagBlocks = Math.max(mining.maxLagBlocks, report.maxLagBlocks);
      await waitSynced(service.port, headers, anvil, 600_000, since);
    }
  };

  const endpoints: Partial<FollowFigures['api']['endpoints']> = {};
  const loadAtStart = loadavg()[0]!;
  for (const endpoint of LOAD_ENDPOINTS) {
    log(`API ${endpoint}: idle, following, following, idle, ${settings.seconds} s each`);
    await drive({
      port: service.port,
      paths: paths[endpoint],
      headers,
      connections: settings.connections,
      seconds: settings.warmup,
    });
    await statements?.reset();
    let used = meter();
    const idleFirst = await window(endpoint);
    account('idle', [idleFirst], used.since());
    await statements?.add('apiIdle');
    const whileFollowing = await following(endpoint);
    await statements?.reset();
    used = meter();
    const idleLast = await window(endpoint);
    account('idle', [idleLast], used.since());
    await statements?.add('apiIdle');
    const idle = pooled([idleFirst, idleLast]);
    const busy = pooled(whileFollowing);
    endpoints[endpoint] = { idle, following: busy, p99Ratio: busy.p99 / idle.p99 };
    log(
      `  p99 ${idle.p99.toFixed(1)} ms idle (${Math.round(idle.rps)} rps), ${busy.p99.toFixed(1)} ms following ` +
        `(${Math.round(busy.rps)} rps)`,
    );
  }
  log(
    `  ${mining.blocks} blocks mined in ${mining.seconds.toFixed(1)} s while following; the follower was at most ` +
      `${mining.maxLagBlocks} blocks behind`,
  );
  return {
    endpoints: endpoints as FollowFigures['api']['endpoints'],
    miner: { ...mining, everyMs: settings.intervalMs, transfersPerBlock: settings.perBlock },
    cpuShare: {
      idle: shares(cpu.idle),
      following: shares(cpu.following),
    },
    loadAverage: { start: loadAtStart, end: loadavg()[0]! },
  };
}

/** CPU seconds per second of wall time (1 = a whole core), by process. */
function shares(cpu: CpuSeconds & { seconds: number }): CpuSeconds {
  return { service: cpu.service / cpu.seconds, anvil: cpu.anvil / cpu.seconds, postgres: cpu.postgres / cpu.seconds };
}

/** One measured window of load, with the server's CPU time during it. */
interface Window {
  result: LoadResult;
  cpuSeconds: number;
}

/** Windows of the same load as one: latencies pooled, requests and time added up. */
function pooled(windows: readonly Window[]): LoadResult {
  const latencies = windows.flatMap((window) => window.result.latenciesMs ?? []).sort((a, b) => a - b);
  const seconds = windows.reduce((sum, window) => sum + window.result.seconds, 0);
  const requests = windows.reduce((sum, window) => sum + window.result.requests, 0);
  const cpuSeconds = windows.reduce((sum, window) => sum + window.cpuSeconds, 0);
  return {
    requests,
    seconds,
    rps: latencies.length / seconds,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    max: latencies[latencies.length - 1] ?? NaN,
    non2xx: windows.reduce((sum, window) => sum + window.result.non2xx, 0),
    errors: windows.reduce((sum, window) => sum + window.result.errors, 0),
    bytesPerAnswer:
      windows.reduce(
        (sum, window) => sum + window.result.bytesPerAnswer * (window.result.latenciesMs?.length ?? 0),
        0,
      ) / latencies.length,
    cpuMsPerRequest: (cpuSeconds * 1000) / Math.max(1, requests),
  };
}

/** Mines a block of transfers every interval until stopped, sampling the follower's lag twice a second. */
function startMiner(
  traffic: Traffic,
  port: number,
  headers: Record<string, string>,
  settings: Settings,
): { stop: () => Promise<{ blocks: number; seconds: number; maxLagBlocks: number }> } {
  let stopping = false;
  let blocks = 0;
  let lastMined = 0n;
  let maxLag = 0;
  const started = performance.now();
  let ended = started;
  const mining = (async () => {
    let next = performance.now();
    while (!stopping) {
      lastMined = (await traffic.block(traffic.plan(settings.perBlock))).number;
      blocks += 1;
      next += settings.intervalMs;
      await sleep(Math.max(0, next - performance.now()));
    }
    ended = performance.now();
  })();
  const sampling = (async () => {
    while (!stopping) {
      const row = await syncRowOf(port, headers, 'ethereum');
      if (row.indexed_block !== null && lastMined > 0n) {
        maxLag = Math.max(maxLag, Number(lastMined - BigInt(row.indexed_block)));
      }
      await sleep(500);
    }
  })();
  const stop = () => {
    stopping = true;
  };
  cleanups.push(stop);
  return {
    stop: async () => {
      stop();
      cleanups.remove(stop);
      await Promise.all([mining, sampling]);
      return { blocks, seconds: (ended - started) / 1000, maxLagBlocks: maxLag };
    },
  };
}

function targetsOf(runs: Partial<Record<DatabaseKind, FollowFigures>>): FollowTarget[] {
  const targets: FollowTarget[] = [];
  for (const [kind, run] of Object.entries(runs)) {
    targets.push({
      name: `${kind}: catch-up`,
      goal: '>= 100 blocks/s',
      reached: `${run.catchUp.blocksPerSecond.toFixed(1)} blocks/s (load ${run.catchUp.loadAverage.start.toFixed(1)})`,
      met: run.catchUp.blocksPerSecond >= 100,
    });
    targets.push({
      name: `${kind}: head latency p95`,
      goal: '<= 1,000 ms',
      reached: `${run.latency.p95Ms.toFixed(0)} ms (max ${run.latency.maxMs.toFixed(0)})`,
      met: run.latency.p95Ms <= 1000,
    });
    const worst = Math.max(...Object.values(run.api.endpoints).map((figures) => figures.p99Ratio));
    targets.push({
      name: `${kind}: API p99 following / idle (worst endpoint)`,
      goal: '<= 1.50',
      reached: worst.toFixed(2),
      met: worst <= 1.5,
    });
    const exact =
      run.correctness.statsVerifyExact &&
      run.correctness.transactionsRecorded === run.correctness.transfersWithTrackedEnd &&
      run.backfill.countsWrong === 0 &&
      run.catchUp.recordedInDatabase === run.catchUp.recordedTransfers;
    targets.push({
      name: `${kind}: recorded = transfers with a tracked end; stats verify`,
      goal: 'exact',
      reached: exact ? 'exact' : 'NOT exact',
      met: exact,
    });
  }
  return targets;
}

function compiled(): { main: string; cli: string } {
  if (build === undefined) throw new Error('chaintags has not been compiled yet');
  return build;
}

async function stopTracked(server: Server): Promise<void> {
  await server.stop();
}

/** The run's settings from its command line; undefined after `--help` or a refused option. */
function readSettings(argv: readonly string[]): Settings | undefined {
  const count = (flags: string, description: string, fallback: number, min: number) =>
    new Option(flags, description).default(fallback).argParser(wholeNumber(min));
  const command = new Command('npm run bench:follow --')
    .description(
      "chaintags' EVM follower against anvil: catch-up, backfill, head latency, API while following (bench/README.md).",
    )
    .addOption(count('--blocks <n>', 'blocks to catch up', 1000, 1))
    .addOption(count('--per-block <n>', 'transfers in each block', 50, 2))
    .addOption(count('--addresses <n>', 'tracked addresses', 10_000, 10))
    .addOption(count('--late <n>', 'addresses tagged after the catch-up (backfill)', 1000, 0))
    .addOption(count('--untracked <n>', 'addresses never tagged', 2000, 1))
    .addOption(count('--senders <n>', 'funded senders, half of them tracked', 2000, 2))
    .addOption(count('--samples <n>', 'head-latency blocks', 50, 1));
  addLoadOptions(command)
    .addOption(count('--interval-ms <ms>', "the follower's interval (FOLLOW_INTERVAL_MS)", 200, 50))
    .addOption(
      new Option('--node-nice <n>', "anvil's niceness, 1-19: the node below the service on the shared cores")
        .argParser(niceness)
        .default(0),
    )
    .option('--sqlite', 'SQLite too, after PostgreSQL')
    .option('--skip-postgres', 'leave out PostgreSQL (with --sqlite)')
    .addOption(cpuProfileOption())
    .option('--service-log', "the service's log lines, request logs included, into bench/results/follow-<database>.log")
    .option(
      '--pg-statements',
      "PostgreSQL's costliest statements of the catch-up and of the API's idle and following windows (pg_stat_statements)",
    )
    .addOption(
      new Option(
        '--family <family>',
        'evm: this run; utxo: the Bitcoin-family run (--family utxo --help); solana: the Solana run; ton: the TON run (--family ton --help)',
      )
        .choices(['evm', 'utxo', 'solana', 'ton'])
        .default('evm'),
    )
    .addOption(new Option('--seed <text>', 'seed of the addresses and the traffic').default('chaintags-follow'));
  const options = parseCommandLine<
    LoadSettings &
      Omit<
        Settings,
        'seconds' | 'warmup' | 'connections' | 'databases' | 'cpuProfile' | 'serviceLog' | 'pgStatements'
      > & {
        sqlite?: boolean;
        skipPostgres?: boolean;
        cpuProf?: boolean;
        serviceLog?: boolean;
        pgStatements?: boolean;
        family?: string;
      }
  >(command, argv, (parsed) =>
    parsed.skipPostgres === true && parsed.sqlite !== true ? '--skip-postgres needs --sqlite' : undefined,
  );
  if (options === undefined) return undefined;
  const { duration, sqlite, skipPostgres, cpuProf, serviceLog, pgStatements, family: _evm, ...shared } = options;
  return {
    ...shared,
    seconds: duration,
    databases: [
      ...(skipPostgres === true ? [] : ['postgres' as const]),
      ...(sqlite === true ? ['sqlite' as const] : []),
    ],
    cpuProfile: cpuProf === true,
    serviceLog: serviceLog === true,
    pgStatements: pgStatements === true,
  };
}

/** `--node-nice`: a niceness a process may take without privileges, 1-19. */
function niceness(text: string): number {
  const value = wholeNumber(1)(text);
  if (value > 19) throw new InvalidArgumentError('it must be at most 19.');
  return value;
}

/**
 * Gives every thread of anvil the niceness (Linux sets it per thread; the threads it starts later
 * take their parent's).
 */
function lowerPriority(anvil: Anvil, nice: number): void {
  if (anvil.pid === undefined) throw new Error('--node-nice: anvil has no process id');
  const threads = readdirSync(`/proc/${anvil.pid}/task`);
  for (const thread of threads) setPriority(Number(thread), nice);
  log(`anvil: niceness ${nice} on its ${threads.length} threads`);
}

/**
 * `--family <name>` (or `--family=<name>`) for another family's run (utxo: bench/follow-utxo.ts,
 * solana: bench/follow-solana.ts, ton: bench/follow-ton.ts), which takes the rest of the command line.
 */
function otherFamily(argv: readonly string[], name: string): string[] | undefined {
  const index = argv.findIndex((arg) => arg === '--family' || arg.startsWith('--family='));
  if (index < 0) return undefined;
  const value = argv[index] === '--family' ? argv[index + 1] : argv[index]!.slice('--family='.length);
  if (value !== name) return undefined;
  return argv.filter((_arg, at) => at !== index && !(argv[index] === '--family' && at === index + 1));
}

const utxoArgv = otherFamily(process.argv.slice(2), 'utxo');
const solanaArgv = otherFamily(process.argv.slice(2), 'solana');
const tonArgv = otherFamily(process.argv.slice(2), 'ton');
if (utxoArgv !== undefined) followUtxo(utxoArgv);
else if (solanaArgv !== undefined) followSolana(solanaArgv);
else if (tonArgv !== undefined) followTon(tonArgv);
else runBench(main, cleanups, log);
