/**
 * `npm run bench:follow -- --family utxo`: the Bitcoin-family follower (src/modules/follow/utxo)
 * against a real node, measured. litecoind in regtest stands in for bitcoind, as in the tests
 * (test/support/litecoind.ts), and chaintags follows it as the bitcoin chain.
 *
 * 1. Starts litecoind (regtest, -txindex; MWEB never activates, since generateblock cannot make
 *    its blocks), mines 110 blocks to a miner address, and makes the lanes (bench/lib/utxo-traffic.ts):
 *    one wallet address for each transaction of a block, half of them tracked.
 * 2. Starts chaintags (compiled, as bench/follow.ts runs it) with RPC_URL_BITCOIN at the node,
 *    NETWORK_BITCOIN=regtest, confirmations 0, tags the tracked addresses (lanes and derived
 *    scripts, in their mainnet forms) through POST /v2/tags/:tag, waits until GET /v2/sync says
 *    synced at the tip, and stops it.
 * 3. Makes the blocks (default 1,000 of 200 transactions), counting the transfers chaintags
 *    should record.
 * 4. Catch-up: starts chaintags again on the same database and times it until synced at the tip.
 * 5. Head latency: blocks of the same size, one at a time, each paying one probe (a tracked
 *    address with nothing yet): from generateblock's answer to the payment listed by
 *    GET /v2/transactions.
 * 6. Correctness: `stats verify` on the database, and the transfers recorded against those counted.
 *
 * Prints the figures and writes bench/results/follow-utxo-latest.json. Nothing here runs in `npm test`.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Command, Option } from 'commander';
import { addressOfScript } from '../src/core/addresses/output-script';
import { startLitecoind, WITHOUT_MWEB } from '../test/support/litecoind';
import type { PgCluster } from '../test/support/pg-cluster';
import { seededRandom } from './lib/chain-traffic';
import { DatabaseKind, phases } from './lib/follow-report';
import {
  countTransactions,
  cpuMeter,
  prepareRuns,
  freshDatabase,
  getJson,
  nativeBalances,
  percentile,
  postTags,
  sampleRss,
  SyncWatch,
  tagsOf,
  waitSynced,
} from './lib/follow-service';
import { benchLog, Cleanups, runBench } from './lib/lifecycle';
import { cpuProfileOption, parseCommandLine, wholeNumber } from './lib/options';
import { formatStatements, loadStatementStats, StatementFigure, StatementStats } from './lib/pg-statements';
import { hostFacts, memoryOf, ROOT, sleep, startService, statsVerify } from './lib/processes';
import { number, table } from './lib/report';
import { derivedScripts, Lane, UtxoTraffic } from './lib/utxo-traffic';

const RESULTS_DIR = join(ROOT, 'bench', 'results');
const ACCOUNT = 'bench';
const CHAIN = 'bitcoin';
const VISIBLE_POLL_MS = 20;
/** Blocks mined before the run, so that the first coinbases are mature (regtest keeps 100). */
const MATURITY_BLOCKS = 110;

interface Settings {
  blocks: number;
  perBlock: number;
  addresses: number;
  untracked: number;
  samples: number;
  intervalMs: number;
  databases: DatabaseKind[];
  cpuProfile: boolean;
  serviceLog: boolean;
  /** PostgreSQL's costliest statements of the catch-up (pg_stat_statements), into the results and the log. */
  pgStatements: boolean;
  seed: string;
}

/** CPU seconds spent during a phase, by process. */
interface CpuSeconds {
  service: number;
  node: number;
  postgres: number;
}

interface UtxoFigures {
  addresses: { tracked: number; trackedLanes: number; lanes: number; probes: number; untracked: number };
  tagging: { tags: number; addresses: number; seconds: number; syncedSeconds: number };
  generation: { blocks: number; transactions: number; transfers: number; recorded: number; seconds: number };
  catchUp: {
    blocks: number;
    transactions: number;
    secondsFromStart: number;
    startUpSeconds: number;
    indexedAtFirstLook: string;
    followingSeconds: number;
    blocksPerSecond: number;
    transactionsPerSecond: number;
    recordedPerSecond: number;
    recordedInDatabase: number;
    expectedInDatabase: number;
    cpuSeconds: CpuSeconds;
    /** GET /v2/sync polls unanswered within 30 s, and the longest time between two answers. */
    apiSilence: { unanswered: number; longestMs: number };
    loadAverage: number;
  };
  latency: {
    samples: number;
    intervalMs: number;
    p50Ms: number;
    p95Ms: number;
    maxMs: number;
    allMs: number[];
    loadAverage: number;
  };
  rss: { peakSampledMb: number; highWaterMb: number; atEndMb: number };
  nodeRss: { highWaterMb: number; atEndMb: number };
  correctness: {
    statsVerifyExact: boolean;
    drift: Record<string, number>;
    transactionsRecorded: number;
    transfersExpected: number;
    transfersMade: number;
    /** Tracked addresses paid in the run: their balance in the database against what they hold. */
    balancesChecked: number;
    balancesWrong: number;
    wrongExamples: { address: string; held: string; expected: string }[];
  };
  /** With --pg-statements: PostgreSQL's costliest statements of the catch-up. */
  statements?: { totalMs: number; calls: number; statements: StatementFigure[] };
}

const cleanups = new Cleanups();
const log = benchLog('bench:follow utxo');
const followerErrors: string[] = [];
let build: { main: string; cli: string } | undefined;

/** Runs the UTXO bench on this command line (without node, the script and `--family utxo`). */
export function followUtxo(argv: readonly string[]): void {
  runBench(() => main(argv), cleanups, log);
}

async function main(argv: readonly string[]): Promise<void> {
  const settings = readSettings(argv);
  if (settings === undefined) return;
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const loadBefore = loadavg()[0]!;
  mkdirSync(RESULTS_DIR, { recursive: true });
  const prepared = await prepareRuns(settings.databases, cleanups, log);
  build = prepared.build;
  const cluster = prepared.cluster;
  if (settings.pgStatements && cluster !== undefined) await loadStatementStats(cluster);
  const runs: Partial<Record<DatabaseKind, UtxoFigures>> = {};
  for (const kind of settings.databases) runs[kind] = await runOn(kind, settings, cluster);
  await cleanups.run(log);

  const results = {
    command: `npm run bench:follow -- --family utxo${argv.length > 0 ? ` ${argv.join(' ')}` : ''}`,
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
  };
  writeFileSync(join(RESULTS_DIR, 'follow-utxo-latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`\n${format(results)}\n`);
  log(`wrote ${join('bench', 'results', 'follow-utxo-latest.json')}`);
}

/** The whole scenario on one database, with its own node. */
async function runOn(kind: DatabaseKind, settings: Settings, cluster: PgCluster | undefined): Promise<UtxoFigures> {
  log(`${kind}: starting litecoind (regtest) and mining ${MATURITY_BLOCKS} blocks`);
  const node = await startLitecoind({ extraArgs: WITHOUT_MWEB });
  cleanups.push(() => node.stop());
  const miner = (await node.newAddress('legacy')).address;
  await node.mine(MATURITY_BLOCKS, miner);

  // The lanes: one wallet address per transaction of a block, every other one tracked.
  const lanes: Lane[] = [];
  for (let index = 0; index < settings.perBlock; index++) {
    const address = await node.newAddress('bech32');
    lanes.push({ address: address.address, script: address.script, tracked: index % 2 === 0 });
  }
  const trackedLanes = lanes.filter((lane) => lane.tracked);
  const derived = derivedScripts(settings.seed, 'tracked', settings.addresses - trackedLanes.length);
  const probes = derived.splice(0, settings.samples);
  const untracked = derivedScripts(settings.seed, 'untracked', settings.untracked);
  const trackedScripts = [...trackedLanes.map((lane) => lane.script), ...probes, ...derived];
  const traffic = new UtxoTraffic(node, lanes, { tracked: derived, untracked }, trackedScripts, miner, settings.seed);

  const databaseUrl = await freshDatabase(kind, cluster, cleanups, 'bench_follow_utxo');
  const statements = settings.pgStatements && kind === 'postgres' ? await StatementStats.open(databaseUrl) : undefined;
  if (statements !== undefined) cleanups.push(() => statements.close());
  const key = `ctk_${randomBytes(24).toString('base64url')}`;
  const headers = { 'x-api-key': key };
  const env = {
    FOLLOW: 'on',
    RPC_URL_BITCOIN: node.rpcUrl,
    NETWORK_BITCOIN: 'regtest',
    CONFIRMATIONS_BITCOIN: '0',
    FOLLOW_INTERVAL_MS: String(settings.intervalMs),
  };
  const serviceOptions = { databaseUrl, apiKeys: `${ACCOUNT}:${key}`, env, logStdout: settings.serviceLog };
  const watch = (port: number, silence?: SyncWatch['silence']): SyncWatch => ({
    port,
    silence,
    headers,
    chain: CHAIN,
    head: async () => BigInt(await node.tip()),
    errors: followerErrors,
    log,
  });

  // The tracked addresses are taken in while the chain is short, so that the catch-up below is
  // following alone.
  const setupStartedAt = new Date();
  const setup = cleanups.track(
    await startService(compiled().main, {
      ...serviceOptions,
      logFile: join(RESULTS_DIR, `follow-utxo-${kind}-setup.log`),
    }),
  );
  const tagging = await postTags(setup.port, key, tagsOf('tracked', trackedScripts.map(mainnetAddress)));
  const taggedAt = performance.now();
  log(`${kind}: tagged ${tagging.addresses} addresses in ${tagging.seconds.toFixed(1)} s; waiting for the follower`);
  const setupSynced = await waitSynced(watch(setup.port), 600_000, setupStartedAt);
  await setup.stop();

  log(
    `${kind}: funding ${lanes.length} lanes, then making ${settings.blocks} blocks of ${settings.perBlock} transactions`,
  );
  const making = performance.now();
  await traffic.fund();
  const first = traffic.height + 1;
  let next: ReturnType<UtxoTraffic['sign']> | undefined = traffic.sign(settings.perBlock);
  for (let index = 0; index < settings.blocks; index++) {
    const block = await next!;
    // The next block is signed while this one is mined.
    next = index + 1 < settings.blocks ? traffic.sign(settings.perBlock) : undefined;
    await traffic.mine(block);
    if ((index + 1) % 100 === 0) {
      log(`  ${index + 1} blocks, ${((performance.now() - making) / 1000).toFixed(1)} s (load ${load()})`);
    }
  }
  await traffic.checkBlocks(first, traffic.height, settings.perBlock);
  const generation = {
    blocks: settings.blocks + 1,
    transactions: traffic.made,
    transfers: traffic.transfers,
    recorded: traffic.recorded,
    seconds: (performance.now() - making) / 1000,
  };
  log(
    `${kind}: ${generation.transactions} transactions in ${generation.blocks} blocks in ${generation.seconds.toFixed(1)} s; ` +
      `${generation.recorded} transfers to record`,
  );

  // Catch-up: chaintags starts with the blocks already there.
  const profileDir = settings.cpuProfile
    ? join(tmpdir(), 'chaintags-bench', 'profiles', `follow-utxo-${Date.now()}`)
    : undefined;
  if (profileDir !== undefined) mkdirSync(profileDir, { recursive: true });
  const loadAtCatchUp = loadavg()[0]!;
  await statements?.reset();
  const spawnedAt = performance.now();
  const serviceStartedAt = new Date();
  const service = cleanups.track(
    await startService(compiled().main, {
      ...serviceOptions,
      logFile: join(RESULTS_DIR, `follow-utxo-${kind}.log`),
      cpuProfileDir: profileDir,
    }),
  );
  const healthyAt = performance.now();
  const cpu = cpuMeter(service, { name: 'node', pid: node.pid }, cluster, kind);
  const rss = sampleRss(service);
  cleanups.push(() => rss.stop());
  const silence = { unanswered: 0, longestMs: 0 };
  const synced = await waitSynced(watch(service.port, silence), 1_800_000, serviceStartedAt);
  await statements?.add('catchUp');
  const followingSeconds = (synced.at - synced.firstSample.at) / 1000;
  const followedBlocks = traffic.height - Number(synced.firstSample.indexed);
  const perBlockRecorded = generation.recorded / generation.blocks;
  const catchUp = {
    blocks: generation.blocks,
    transactions: generation.transactions,
    secondsFromStart: (synced.at - spawnedAt) / 1000,
    startUpSeconds: (healthyAt - spawnedAt) / 1000,
    indexedAtFirstLook: synced.firstSample.indexed.toString(),
    followingSeconds,
    blocksPerSecond: followedBlocks / followingSeconds,
    transactionsPerSecond: (followedBlocks * settings.perBlock) / followingSeconds,
    recordedPerSecond: (followedBlocks * perBlockRecorded) / followingSeconds,
    recordedInDatabase: await countTransactions(databaseUrl, CHAIN),
    expectedInDatabase: traffic.recorded,
    cpuSeconds: cpu.since(),
    apiSilence: silence,
    loadAverage: Number(((loadAtCatchUp + loadavg()[0]!) / 2).toFixed(2)),
  };
  log(
    `${kind}: caught up ${catchUp.blocks} blocks in ${catchUp.secondsFromStart.toFixed(1)} s from start ` +
      `(${catchUp.blocksPerSecond.toFixed(1)} blocks/s while following); ${catchUp.recordedInDatabase} transfers ` +
      `recorded, ${catchUp.expectedInDatabase} expected`,
  );

  const latency = await measureHeadLatency(service.port, headers, traffic, probes, settings);
  log(
    `${kind}: head latency over ${latency.samples} blocks: p50 ${latency.p50Ms.toFixed(0)} ms, p95 ` +
      `${latency.p95Ms.toFixed(0)} ms, max ${latency.maxMs.toFixed(0)} ms`,
  );
  await waitSynced(watch(service.port), 600_000, serviceStartedAt);
  const memory = service.memory();
  const nodeMemory = node.pid === undefined ? undefined : memoryOf(node.pid);
  rss.stop();
  await service.stop();

  log(`${kind}: stats verify`);
  const verify = statsVerify(compiled().cli, databaseUrl);
  const recorded = await countTransactions(databaseUrl, CHAIN);
  const held = await nativeBalances(databaseUrl, CHAIN);
  const wrongBalances: { address: string; held: string; expected: string }[] = [];
  for (const [script, expected] of traffic.balances()) {
    const address = mainnetAddress(script);
    const balance = held.get(address) ?? 0n;
    if (balance !== expected) wrongBalances.push({ address, held: balance.toString(), expected: expected.toString() });
  }
  log(`${kind}: ${wrongBalances.length} of ${traffic.balances().size} balances wrong`);
  log(
    `${kind}: stats verify ${verify.exact ? 'exact' : `DRIFT ${JSON.stringify(verify.drift)}`}; ${recorded} transfers, ` +
      `${traffic.recorded} expected`,
  );
  await node.stop();
  return {
    addresses: {
      tracked: trackedScripts.length,
      trackedLanes: trackedLanes.length,
      lanes: lanes.length,
      probes: probes.length,
      untracked: untracked.length,
    },
    tagging: { ...tagging, syncedSeconds: (setupSynced.at - taggedAt) / 1000 },
    generation,
    catchUp,
    latency,
    rss: { peakSampledMb: rss.peak(), highWaterMb: memory.peakMb, atEndMb: memory.rssMb },
    nodeRss: { highWaterMb: nodeMemory?.peakMb ?? NaN, atEndMb: nodeMemory?.rssMb ?? NaN },
    correctness: {
      statsVerifyExact: verify.exact,
      drift: verify.drift,
      transactionsRecorded: recorded,
      transfersExpected: traffic.recorded,
      transfersMade: traffic.transfers,
      balancesChecked: traffic.balances().size,
      balancesWrong: wrongBalances.length,
      wrongExamples: wrongBalances.slice(0, 5),
    },
    ...(statements === undefined ? {} : { statements: reportStatements(kind, statements) }),
  };
}

/** The catch-up's costliest statements, logged; their figures for the results file. */
function reportStatements(kind: DatabaseKind, statements: StatementStats): UtxoFigures['statements'] {
  const figures = statements.summary(40).catchUp;
  if (figures === undefined) return undefined;
  log(`${kind}: statements of the catch-up: ${figures.calls} calls, ${figures.totalMs.toFixed(0)} ms executing`);
  for (const line of formatStatements(figures.statements.slice(0, 15))) log(`  ${line}`);
  return figures;
}

/** A tracked script's mainnet bitcoin address, as a user would tag it. */
function mainnetAddress(script: string): string {
  const address = addressOfScript(CHAIN, script);
  if (address === undefined) throw new Error(`no bitcoin address for script ${script}`);
  return address;
}

/**
 * Blocks of `perBlock` transactions, one at a time, each paying one probe (a tracked address that
 * has received nothing): the time from generateblock's answer to the first
 * GET /v2/transactions?chain=bitcoin&address=<probe> that lists it, polled every VISIBLE_POLL_MS.
 * Each block is signed first, then mined after a random pause of up to one follower interval, so
 * that blocks arrive at every point of the follower's turn.
 */
async function measureHeadLatency(
  port: number,
  headers: Record<string, string>,
  traffic: UtxoTraffic,
  probes: readonly string[],
  settings: Settings,
): Promise<UtxoFigures['latency']> {
  log(`head latency: ${probes.length} blocks, one at a time`);
  const random = seededRandom(`${settings.seed}:latency`);
  const latencies: number[] = [];
  const loadAtStart = loadavg()[0]!;
  for (const probe of probes) {
    const block = await traffic.sign(settings.perBlock, probe);
    await sleep(random() * settings.intervalMs);
    const { minedAt } = await traffic.mine(block);
    const address = mainnetAddress(probe);
    const deadline = minedAt + 60_000;
    for (;;) {
      const rows = await getJson<unknown[]>(port, `/v2/transactions?chain=${CHAIN}&address=${address}`, headers);
      if (rows.length > 0) break;
      if (performance.now() > deadline) throw new Error(`the payment to ${address} was not listed within 60 s`);
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
    loadAverage: Number(((loadAtStart + loadavg()[0]!) / 2).toFixed(2)),
  };
}

function load(): string {
  return loadavg()[0]!.toFixed(2);
}

function compiled(): { main: string; cli: string } {
  if (build === undefined) throw new Error('chaintags has not been compiled yet');
  return build;
}

interface UtxoResults {
  command: string;
  wallSeconds: number;
  machine: Record<string, string | number>;
  followerErrors: string[];
  runs: Partial<Record<DatabaseKind, UtxoFigures>>;
}

/** The human-readable summary printed at the end of a run. */
function format(results: UtxoResults): string {
  const { machine } = results;
  const parts: string[] = [
    `chaintags UTXO follower benchmark — ${results.command}`,
    `machine: ${machine.cpu} × ${machine.cpus}, ${machine.memoryGb} GB, Node ${machine.node}; load average ` +
      `${machine.loadAverageBefore} before, ${machine.loadAverageAfter} after (other jobs share the cores)`,
  ];
  const targets: string[][] = [];
  for (const [kind, run] of Object.entries(results.runs)) {
    const { catchUp, latency, rss, correctness, generation } = run;
    const name = kind === 'postgres' ? 'PostgreSQL' : 'SQLite';
    const cpu = catchUp.cpuSeconds;
    const exact =
      correctness.statsVerifyExact &&
      correctness.transactionsRecorded === correctness.transfersExpected &&
      correctness.balancesWrong === 0 &&
      catchUp.recordedInDatabase === catchUp.expectedInDatabase;
    parts.push(
      '',
      `${name}: ${number(run.addresses.tracked)} tracked addresses (${run.addresses.trackedLanes} of them sending), ` +
        `${number(run.addresses.untracked)} untracked recipients, ${run.addresses.lanes} senders`,
      '',
      phases([
        [
          'tagging',
          `${number(run.tagging.addresses)} addresses in ${number(run.tagging.seconds, 1)} s; synced ` +
            `${number(run.tagging.syncedSeconds, 1)} s later`,
        ],
        [
          'blocks made',
          `${number(generation.blocks)} blocks, ${number(generation.transactions)} transactions, ` +
            `${number(generation.transfers)} transfers (${number(generation.recorded)} to record) in ` +
            `${number(generation.seconds, 1)} s`,
        ],
        [
          'catch-up',
          `${number(catchUp.blocksPerSecond, 1)} blocks/s, ${number(catchUp.transactionsPerSecond)} transactions/s read, ` +
            `${number(catchUp.recordedPerSecond)} transfers recorded/s (from block ${catchUp.indexedAtFirstLook}, ` +
            `${number(catchUp.followingSeconds, 1)} s; load ${catchUp.loadAverage})`,
        ],
        [
          '',
          `${number(catchUp.secondsFromStart, 1)} s from spawning the server (start-up ${number(catchUp.startUpSeconds, 1)} s); ` +
            `${number(catchUp.recordedInDatabase)} transfers recorded, ${number(catchUp.expectedInDatabase)} expected`,
        ],
        [
          '',
          `CPU: chaintags ${number(cpu.service, 1)} s, litecoind ${number(cpu.node, 1)} s` +
            (Number.isFinite(cpu.postgres) ? `, PostgreSQL ${number(cpu.postgres, 1)} s` : ''),
        ],
        [
          '',
          `GET /v2/sync: longest wait for an answer ${number(catchUp.apiSilence.longestMs / 1000, 1)} s, ` +
            `${catchUp.apiSilence.unanswered} polls unanswered within 30 s`,
        ],
        [
          'head latency',
          `${latency.samples} blocks: p50 ${number(latency.p50Ms)} ms, p95 ${number(latency.p95Ms)} ms, ` +
            `max ${number(latency.maxMs)} ms (FOLLOW_INTERVAL_MS ${latency.intervalMs}; load ${latency.loadAverage})`,
        ],
        [
          'server RSS',
          `peak ${number(rss.highWaterMb)} MiB (VmHWM; sampled max ${number(rss.peakSampledMb)}), ` +
            `${number(rss.atEndMb)} MiB at the end`,
        ],
        ['litecoind RSS', `peak ${number(run.nodeRss.highWaterMb)} MiB, ${number(run.nodeRss.atEndMb)} MiB at the end`],
        [
          'correctness',
          `stats verify ${correctness.statsVerifyExact ? 'exact' : `DRIFT ${JSON.stringify(correctness.drift)}`}; ` +
            `${number(correctness.transactionsRecorded)} transfers recorded, ${number(correctness.transfersExpected)} ` +
            `expected (of ${number(correctness.transfersMade)} made)`,
        ],
        [
          '',
          `balances: ${correctness.balancesWrong} wrong of ${number(correctness.balancesChecked)} tracked addresses paid`,
        ],
      ]),
    );
    targets.push(
      [`${kind}: catch-up`, '>= 100 blocks/s', `${number(catchUp.blocksPerSecond, 1)} blocks/s`],
      [`${kind}: head latency`, '<= 1,000 ms', `p95 ${number(latency.p95Ms)} ms, max ${number(latency.maxMs)} ms`],
      [`${kind}: transfers and balances as made; stats verify`, 'exact', exact ? 'exact' : 'NOT exact'],
    );
  }
  parts.push(
    '',
    `errors the follower reported and got over: ${results.followerErrors.length === 0 ? 'none' : results.followerErrors.join(' | ')}`,
    '',
    'targets (issue 18)',
    table(['target', 'goal', 'reached'], targets),
    '',
    `wall time ${number(results.wallSeconds)} s`,
  );
  return parts.join('\n');
}

/** The run's settings from its command line; undefined after `--help` or a refused option. */
function readSettings(argv: readonly string[]): Settings | undefined {
  const count = (flags: string, description: string, fallback: number, min: number) =>
    new Option(flags, description).default(fallback).argParser(wholeNumber(min));
  const command = new Command('npm run bench:follow -- --family utxo')
    .description(
      "chaintags' Bitcoin-family follower against litecoind in regtest: catch-up, head latency (bench/README.md).",
    )
    .addOption(count('--blocks <n>', 'blocks to catch up', 1000, 1))
    .addOption(count('--per-block <n>', 'transactions in each block (one per sender)', 200, 2))
    .addOption(count('--addresses <n>', 'tracked addresses (half the senders among them)', 10_000, 10))
    .addOption(count('--untracked <n>', 'untracked recipients', 2000, 1))
    .addOption(count('--samples <n>', 'head-latency blocks', 20, 1))
    .addOption(count('--interval-ms <ms>', "the follower's interval (FOLLOW_INTERVAL_MS)", 200, 50))
    .option('--sqlite', 'SQLite too, after PostgreSQL')
    .option('--skip-postgres', 'leave out PostgreSQL (with --sqlite)')
    .addOption(cpuProfileOption())
    .option('--service-log', "the service's log lines into bench/results/follow-utxo-<database>.log")
    .option('--pg-statements', "PostgreSQL's costliest statements of the catch-up (pg_stat_statements)")
    .addOption(new Option('--seed <text>', 'seed of the addresses and the payments').default('chaintags-follow-utxo'));
  const options = parseCommandLine<
    Omit<Settings, 'databases' | 'cpuProfile' | 'serviceLog' | 'pgStatements'> & {
      sqlite?: boolean;
      skipPostgres?: boolean;
      cpuProf?: boolean;
      serviceLog?: boolean;
      pgStatements?: boolean;
    }
  >(command, argv, (parsed) => {
    if (parsed.skipPostgres === true && parsed.sqlite !== true) return '--skip-postgres needs --sqlite';
    if (parsed.addresses < Math.ceil(parsed.perBlock / 2) + parsed.samples + 1) {
      return '--addresses must exceed the tracked senders (half of --per-block) and the --samples probes';
    }
    return undefined;
  });
  if (options === undefined) return undefined;
  const { sqlite, skipPostgres, cpuProf, serviceLog, pgStatements, ...shared } = options;
  return {
    ...shared,
    databases: [
      ...(skipPostgres === true ? [] : ['postgres' as const]),
      ...(sqlite === true ? ['sqlite' as const] : []),
    ],
    cpuProfile: cpuProf === true,
    serviceLog: serviceLog === true,
    pgStatements: pgStatements === true,
  };
}
