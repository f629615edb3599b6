/**
 * `npm run bench`: chaintags' speed and scale, measured on this machine.
 *
 * 1. Generates (or reuses) the dataset (bench/generate.ts).
 * 2. PostgreSQL: starts a throwaway cluster with the test suite's own setup
 *    (test/support/pg-cluster.ts), imports the NDJSON with `chaintags import`, and loads the same
 *    rows into a second database with COPY, the import's yardstick. Tags, which NDJSON cannot
 *    carry, are loaded through the service's own API (POST /v2/tags/:tag, 1000 addresses a
 *    request) with three accounts' keys from API_KEYS.
 * 3. Starts the service (compiled by `nest build` and run as its Docker image runs it) and the
 *    floor (bench/floor.ts) on that database, checks that they give the same answers, then drives
 *    each hot endpoint with autocannon: both warmed up, then the service and the floor measured
 *    back to back with the same connections, duration and keys drawn from the dataset.
 *    Then "reads while writing": the stats and holdings endpoints idle, and again while a writer
 *    process (bench/lib/writer.ts) commits 50 transfers between tagged addresses every 100 ms.
 * 4. SQLite: the same import, tag load, endpoints and reads while writing (no floor there).
 * 5. Prints a table and writes bench/results/latest.json and bench/results/tx-<transactions>.json;
 *    when a run at another transaction count is on file, compares p99 with it.
 *
 *   npm run bench [-- --transactions 10000000] [--duration 10] [--warmup 3] [--connections 10]
 *                 [--endpoints address,tag] [--skip-sqlite] [--skip-copy] [--skip-writing] [--cpu-prof] [--addresses N]
 *                 [--holdings N] [--tags N] [--seed S] [--data-dir <folder>]
 *                 [--pg-setting name=value …] (PostgreSQL settings beyond the test cluster's)
 *
 * Nothing here runs in `npm test`: this is an on-demand measurement, and it takes minutes.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { cpus, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { Command, InvalidArgumentError, Option } from 'commander';
import { Client } from 'pg';
import { PgCluster, startCluster, stopCluster } from '../test/support/pg-cluster';
import { ensureDataset } from './dataset/build';
import { COPY_COLUMNS, COPY_TABLES, DatasetMeta } from './dataset/meta';
import {
  addDatasetOptions,
  BENCH_ACCOUNTS,
  datasetOptionsOf,
  DatasetOptions,
  DEFAULT_DATASET,
  defaultDatasetDir,
} from './dataset/options';
import { drive, LoadOptions, LoadResult } from './lib/load';
import { applySettings, parseSetting, reportSettings } from './lib/pg-settings';
import {
  buildService,
  machineTicks,
  ROOT,
  Server,
  sleep,
  startFloor,
  startService,
  statsVerify,
} from './lib/processes';
import {
  BigTagAlone,
  ENDPOINT_IDS,
  ENDPOINT_LABELS,
  EndpointId,
  evaluateTargets,
  formatResults,
  PostgresFigures,
  ReadsWhileWriting,
  Results,
  SqliteFigures,
  TagLoad,
  Throughput,
  WRITING_ENDPOINTS,
} from './lib/report';
import { benchLog, Cleanups, runBench } from './lib/lifecycle';
import { addLoadOptions, cpuProfileOption, LoadSettings, parseCommandLine } from './lib/options';

const RESULTS_DIR = join(ROOT, 'bench', 'results');
const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';
const TAG_BATCH = 1000;
const TAG_LOAD_CONCURRENCY = 4;
const VERIFY_PER_ENDPOINT = 10;

interface Settings {
  dataset: DatasetOptions;
  dataDir: string | undefined;
  seconds: number;
  warmup: number;
  connections: number;
  endpoints: EndpointId[];
  sqlite: boolean;
  /** Whether to load the rows with COPY too, the import's yardstick (`--skip-copy` leaves it out). */
  copy: boolean;
  cpuProfile: boolean;
  /** Whether to measure reads while a writer commits (`--skip-writing` leaves it out). */
  writing: boolean;
  /** PostgreSQL settings beyond the test cluster's (`--pg-setting name=value`). */
  pgSettings: [string, string][];
}

/** Settings every results file reports, whatever the run changed. */
const REPORTED_PG_SETTINGS = [
  'shared_buffers',
  'work_mem',
  'effective_cache_size',
  'random_page_cost',
  'jit',
  'max_parallel_workers_per_gather',
  'fsync',
  'synchronous_commit',
];

/** The compiled service and CLI this run uses (see buildService). */
let build: { main: string; cli: string } | undefined;

/** Everything the run started, so that an error or Ctrl-C still stops it. */
const cleanups = new Cleanups();
const log = benchLog('bench');

async function main(): Promise<void> {
  const settings = readSettings(process.argv.slice(2));
  if (settings === undefined) return;
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const ticksBefore = machineTicks();
  mkdirSync(RESULTS_DIR, { recursive: true });

  const dataDir = settings.dataDir ?? defaultDatasetDir(settings.dataset);
  const meta = ensureDataset(settings.dataset, dataDir, log);
  log('compiling chaintags as its Docker image does (nest build)');
  build = await buildService();
  const keys = Object.fromEntries(
    BENCH_ACCOUNTS.map((account) => [account, `ctk_${randomBytes(24).toString('base64url')}`]),
  ) as Record<(typeof BENCH_ACCOUNTS)[number], string>;
  const apiKeys = BENCH_ACCOUNTS.map((account) => `${account}:${keys[account]}`).join(',');
  const profileDir = settings.cpuProfile ? join(tmpdir(), 'chaintags-bench', 'profiles', `${Date.now()}`) : undefined;
  if (profileDir !== undefined) mkdirSync(profileDir, { recursive: true });

  log('starting a throwaway PostgreSQL 15 cluster');
  const cluster = await startCluster();
  cleanups.push(() => stopCluster(cluster));
  if (settings.pgSettings.length > 0) {
    log(`PostgreSQL settings: ${settings.pgSettings.map(([name, value]) => `${name}=${value}`).join(', ')}`);
    await applySettings(cluster, settings.pgSettings);
  }
  const machine = await describeMachine(cluster);
  const postgresSettings = await reportSettings(cluster.url, [
    ...new Set([...REPORTED_PG_SETTINGS, ...settings.pgSettings.map(([name]) => name)]),
  ]);

  const postgres = await postgresPhase(settings, meta, cluster, keys, apiKeys, profileDir);
  const sqlite = settings.sqlite ? await sqlitePhase(settings, meta, keys, apiKeys) : undefined;
  await cleanups.run(log);
  const ticksAfter = machineTicks();

  const partial: Omit<Results, 'targets'> = {
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    startedAt,
    wallSeconds: (performance.now() - started) / 1000,
    machine: {
      ...machine,
      cpuStealShare: (ticksAfter.steal - ticksBefore.steal) / (ticksAfter.total - ticksBefore.total),
    },
    postgresSettings,
    changedPostgresSettings: Object.fromEntries(settings.pgSettings),
    dataset: {
      options: meta.options,
      lines: meta.lines,
      copyRows: meta.copyRows,
      skew: meta.skew,
      tagMemberships: meta.tags.reduce((sum, tag) => sum + tag.addresses.length, 0),
    },
    load: { connections: settings.connections, secondsPerSide: settings.seconds, warmupSeconds: settings.warmup },
    postgres,
    sqlite,
    growth: growthAgainstOtherRun(meta.options, settings.pgSettings, postgres),
  };
  const results: Results = { ...partial, targets: evaluateTargets(partial) };
  const json = `${JSON.stringify(results, null, 2)}\n`;
  const runFile = resultsFileName(meta.options.transactions, settings.pgSettings);
  writeFileSync(join(RESULTS_DIR, 'latest.json'), json);
  writeFileSync(join(RESULTS_DIR, runFile), json);
  process.stdout.write(`\n${formatResults(results)}\n`);
  log(`wrote ${join('bench', 'results', 'latest.json')} and ${runFile}`);
  if (profileDir !== undefined) log(`CPU profiles of the service: ${profileDir}`);
}

async function postgresPhase(
  settings: Settings,
  meta: DatasetMeta,
  cluster: PgCluster,
  keys: Record<string, string>,
  apiKeys: string,
  profileDir: string | undefined,
): Promise<PostgresFigures> {
  const copy = settings.copy ? await copyPhase(cluster, meta) : undefined;

  const url = await createDatabase(cluster, 'bench');
  await runCli(url, ['keys', 'list'], 120_000);
  await warmFiles([meta.files.ndjson]);
  const imported = await importDataset(url, meta, 'PostgreSQL');

  const service = await startTracked(() =>
    startService(compiled().main, {
      databaseUrl: url,
      apiKeys,
      logFile: join(RESULTS_DIR, 'service-postgres.log'),
      cpuProfileDir: profileDir,
    }),
  );
  const tagLoad = await loadTags(service.port, meta, keys);
  log('VACUUM ANALYZE, as autovacuum would eventually, so that neither side meets it mid-run');
  await adminQuery(url, 'VACUUM ANALYZE');
  const bigTagAlone = await timeBigTagAlone(service.port, meta, keys);
  const floor = await startTracked(() => startFloor(url, join(RESULTS_DIR, 'floor.log')));

  const headers = { 'x-api-key': keys[BENCH_ACCOUNTS[0]]! };
  const verified = await compareAnswers(service, floor, meta, settings.endpoints, headers);
  if (verified.mismatches.length > 0) {
    for (const mismatch of verified.mismatches.slice(0, 5)) log(`MISMATCH ${mismatch}`);
  }

  const endpoints: PostgresFigures['endpoints'] = {};
  let peakUnderLoadMb = 0;
  for (const id of settings.endpoints) {
    const paths = pathsFor(id, meta);
    log(`${ENDPOINT_LABELS[id]}: every path once on both, warming up both, then ${settings.seconds} s each`);
    const firstPass = {
      service: await drive({ ...firstPassLoad(paths, settings), port: service.port, headers }),
      floor: await drive({ ...firstPassLoad(paths, settings), port: floor.port, headers }),
    };
    log(
      `  first pass: service p99 ${firstPass.service.p99.toFixed(1)} ms | floor p99 ${firstPass.floor.p99.toFixed(1)} ms`,
    );
    await drive({ port: service.port, paths, headers, connections: settings.connections, seconds: settings.warmup });
    await drive({ port: floor.port, paths, headers, connections: settings.connections, seconds: settings.warmup });
    const load = { paths, headers, connections: settings.connections, seconds: settings.seconds };
    const sampled = await measure(service, load);
    peakUnderLoadMb = Math.max(peakUnderLoadMb, sampled.peakMb);
    const floorResult = (await measure(floor, load)).result;
    endpoints[id] = {
      service: sampled.result,
      floor: floorResult,
      ratio: sampled.result.rps / floorResult.rps,
      firstPass,
    };
    log(
      `  service ${Math.round(sampled.result.rps)} rps p99 ${sampled.result.p99.toFixed(1)} ms | floor ` +
        `${Math.round(floorResult.rps)} rps p99 ${floorResult.p99.toFixed(1)} ms` +
        failures(sampled.result) +
        failures(floorResult),
    );
  }
  const readsWhileWriting = settings.writing
    ? await measureReadsWhileWriting(service, url, meta, settings, headers)
    : undefined;
  const memory = service.memory();
  await stopTracked(floor);
  await stopTracked(service);
  const aggregates = verifyAggregates(url);
  await adminQuery(cluster.url, 'DROP DATABASE bench WITH (FORCE)');
  return {
    endpoints,
    import: imported,
    copy,
    importToCopy: copy === undefined ? undefined : imported.rowsPerSecond / copy.rowsPerSecond,
    tagLoad,
    serviceRss: { peakUnderLoadMb, afterRunMb: memory.rssMb, highWaterMb: memory.peakMb },
    verified,
    bigTagAlone,
    readsWhileWriting,
    aggregates,
  };
}

/** `stats verify` on the benchmark's database: exit code 1 on drift. */
function verifyAggregates(url: string): PostgresFigures['aggregates'] {
  log('stats verify: the kept aggregates against the reference computation');
  const summary = statsVerify(compiled().cli, url);
  log(`  ${summary.exact ? 'exact' : `DRIFT ${JSON.stringify(summary.drift)}`}`);
  return summary;
}

async function copyPhase(cluster: PgCluster, meta: DatasetMeta): Promise<Throughput> {
  const copyUrl = await createDatabase(cluster, 'bench_copy');
  log('COPY: migrating an empty database, then loading the same rows with COPY');
  await runCli(copyUrl, ['keys', 'list'], 120_000);
  await warmFiles(Object.values(meta.files.copy));
  const copy = await copyRows(cluster, 'bench_copy', meta);
  log(`COPY: ${copy.rows} rows in ${copy.seconds.toFixed(1)} s (${Math.round(copy.rowsPerSecond)} rows/s)`);
  await adminQuery(cluster.url, 'DROP DATABASE bench_copy WITH (FORCE)');
  return copy;
}

async function sqlitePhase(
  settings: Settings,
  meta: DatasetMeta,
  keys: Record<string, string>,
  apiKeys: string,
): Promise<SqliteFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'chaintags-bench-sqlite-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const url = `sqlite:${join(dir, 'bench.sqlite')}`;
  await runCli(url, ['keys', 'list'], 120_000);
  const imported = await importDataset(url, meta, 'SQLite');
  const service = await startTracked(() =>
    startService(compiled().main, {
      databaseUrl: url,
      apiKeys,
      logFile: join(RESULTS_DIR, 'service-sqlite.log'),
    }),
  );
  const tagLoad = await loadTags(service.port, meta, keys);
  const bigTagAlone = await timeBigTagAlone(service.port, meta, keys);
  const headers = { 'x-api-key': keys[BENCH_ACCOUNTS[0]]! };
  const endpoints: SqliteFigures['endpoints'] = {};
  let peakUnderLoadMb = 0;
  for (const id of settings.endpoints) {
    const paths = pathsFor(id, meta);
    log(`SQLite ${ENDPOINT_LABELS[id]}: warming up, then ${settings.seconds} s`);
    await drive({ port: service.port, paths, headers, connections: settings.connections, seconds: settings.warmup });
    const sampled = await measure(service, {
      paths,
      headers,
      connections: settings.connections,
      seconds: settings.seconds,
    });
    peakUnderLoadMb = Math.max(peakUnderLoadMb, sampled.peakMb);
    endpoints[id] = sampled.result;
    log(
      `  service ${Math.round(sampled.result.rps)} rps p99 ${sampled.result.p99.toFixed(1)} ms${failures(sampled.result)}`,
    );
  }
  const readsWhileWriting = settings.writing
    ? await measureReadsWhileWriting(service, url, meta, settings, headers)
    : undefined;
  const memory = service.memory();
  await stopTracked(service);
  return {
    endpoints,
    import: imported,
    tagLoad,
    serviceRss: { peakUnderLoadMb, afterRunMb: memory.rssMb, highWaterMb: memory.peakMb },
    bigTagAlone,
    readsWhileWriting,
  };
}

const WRITER_TRANSFERS = 50;
const WRITER_EVERY_MS = 100;

/**
 * The stats and holdings endpoints, in turn, measured idle and then while bench/lib/writer.ts
 * commits WRITER_TRANSFERS transfers between tagged EVM addresses every WRITER_EVERY_MS, each batch
 * its own transaction through chaintags' sink (which updates the kept aggregates in it). One load
 * drives the three endpoints, as before; each answer's latency is also counted for its endpoint.
 */
async function measureReadsWhileWriting(
  service: Server,
  url: string,
  meta: DatasetMeta,
  settings: Settings,
  headers: Record<string, string>,
): Promise<ReadsWhileWriting> {
  const lists = WRITING_ENDPOINTS.map((id) => pathsFor(id, meta));
  const paths = Array.from({ length: Math.max(...lists.map((list) => list.length)) }, (_v, index) =>
    lists.map((list) => list[index % list.length]!),
  ).flat();
  const endpointByPath = new Map<string, string>(
    WRITING_ENDPOINTS.flatMap((id, index) => lists[index]!.map((path): [string, string] => [path, id])),
  );
  const load = {
    paths,
    headers,
    connections: settings.connections,
    seconds: settings.seconds,
    endpointOf: (path: string) => endpointByPath.get(path) ?? 'unknown',
  };
  log(`reads while writing: the stats and holdings endpoints idle for ${settings.seconds} s`);
  await drive({ ...load, port: service.port, seconds: settings.warmup });
  const { byEndpoint: idleShares = {}, ...idle } = (await measure(service, load)).result;

  const tagged = [...new Set(meta.tags.flatMap((tag) => tag.addresses))].filter((address) =>
    /^0x[0-9a-fA-F]{40}$/.test(address),
  );
  const file = join(mkdtempSync(join(tmpdir(), 'chaintags-bench-writer-')), 'addresses.json');
  writeFileSync(file, JSON.stringify(tagged.slice(0, 5000)));
  const writer = spawn(
    process.execPath,
    [
      '-r',
      '@swc-node/register',
      'bench/lib/writer.ts',
      file,
      '--transfers',
      String(WRITER_TRANSFERS),
      '--every-ms',
      String(WRITER_EVERY_MS),
    ],
    { cwd: ROOT, env: { ...process.env, DATABASE_URL: url }, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  cleanups.push(() => void writer.kill());
  let output = '';
  writer.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => writer.once('exit', resolve));
  // The writer's first commits include its start-up; the measurement begins after a warm-up.
  await sleep(5000);
  log(`reads while writing: the same endpoints for ${settings.seconds} s while the writer commits`);
  await drive({ ...load, port: service.port, seconds: settings.warmup });
  const { byEndpoint: writingShares = {}, ...writing } = (await measure(service, load)).result;
  writer.stdin.end();
  if ((await exited) !== 0) throw new Error(`the writer failed: ${output}`);
  const report = JSON.parse(output) as { commits: number; commitP50Ms: number; commitP99Ms: number };
  log(
    `  p99 idle ${idle.p99.toFixed(1)} ms, while writing ${writing.p99.toFixed(1)} ms; ${report.commits} commits, ` +
      `commit p99 ${report.commitP99Ms.toFixed(1)} ms`,
  );
  const endpoints: ReadsWhileWriting['endpoints'] = {};
  for (const id of WRITING_ENDPOINTS) {
    const before = idleShares[id];
    const during = writingShares[id];
    if (before === undefined || during === undefined) continue;
    endpoints[id] = { idle: before, writing: during, p99Ratio: during.p99 / before.p99 };
    log(
      `  ${ENDPOINT_LABELS[id]}: p99 idle ${before.p99.toFixed(1)} ms, while writing ${during.p99.toFixed(1)} ms ` +
        `(${(during.p99 / before.p99).toFixed(2)}×)`,
    );
  }
  return {
    idle,
    writing,
    p99Ratio: writing.p99 / idle.p99,
    endpoints,
    writer: { transfersPerBatch: WRITER_TRANSFERS, everyMs: WRITER_EVERY_MS, ...report },
  };
}

/** Each distinct path once, through the same connections as the measurement. */
function firstPassLoad(paths: readonly string[], settings: Settings) {
  const distinct = [...new Set(paths)];
  return {
    paths: distinct,
    connections: Math.min(settings.connections, distinct.length),
    seconds: settings.seconds,
    amount: distinct.length,
  };
}

/** Two requests for the 10,000-address tag, one after the other, before anything else asked for it. */
async function timeBigTagAlone(port: number, meta: DatasetMeta, keys: Record<string, string>): Promise<BigTagAlone> {
  const [path] = pathsFor('tag_10k', meta);
  const headers = { 'x-api-key': keys[BENCH_ACCOUNTS[0]]! };
  const timed = async () => {
    const started = performance.now();
    const answer = await fetchAnswer(port, path!, headers);
    if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}: ${answer.body.slice(0, 200)}`);
    return performance.now() - started;
  };
  const firstMs = await timed();
  const secondMs = await timed();
  log(`10k-address tag alone: ${firstMs.toFixed(1)} ms, then ${secondMs.toFixed(1)} ms`);
  return { firstMs, secondMs };
}

function failures(result: LoadResult): string {
  return result.non2xx + result.errors > 0 ? ` (${result.non2xx} non-2xx, ${result.errors} errors)` : '';
}

async function startTracked(start: () => Promise<Server>): Promise<Server> {
  const server = await start();
  cleanups.push(() => server.stop());
  return server;
}

async function stopTracked(server: Server): Promise<void> {
  await server.stop();
}

/** The request paths of an endpoint, built from the dataset's samples. */
function pathsFor(id: EndpointId, meta: DatasetMeta): string[] {
  const { addresses, tags, bigTag } = meta.samples;
  switch (id) {
    case 'address':
      return addresses.map((address) => `/v2/addresses/${encodeURIComponent(address)}`);
    case 'transactions':
      return addresses.map((address) => `/v2/transactions?address=${encodeURIComponent(address)}`);
    case 'holdings':
      return tags.map((tag) => `/v2/token-holdings?tag=${tag}`);
    case 'tag':
      return tags.map((tag) => `/v2/tags/${tag}`);
    case 'tag_10k':
      return [`/v2/tags/${bigTag}`];
  }
}

/**
 * One measured load on one server: its answers, the CPU time it spent on them, and its RSS
 * sampled five times a second. On a machine the server shares with PostgreSQL and the load
 * generator, CPU per answer is the steadier measure of what a request costs it.
 */
async function measure(
  server: Server,
  options: Omit<LoadOptions, 'port'>,
): Promise<{ result: LoadResult; peakMb: number }> {
  let peakMb = server.memory().rssMb;
  const timer = setInterval(() => {
    peakMb = Math.max(peakMb, server.memory().rssMb);
  }, 200);
  try {
    const cpuBefore = server.cpuSeconds();
    const result = await drive({ ...options, port: server.port });
    const cpuMs = (server.cpuSeconds() - cpuBefore) * 1000;
    result.cpuMsPerRequest = result.requests > 0 ? cpuMs / result.requests : NaN;
    return { result, peakMb: Math.max(peakMb, server.memory().rssMb) };
  } finally {
    clearInterval(timer);
  }
}

/**
 * The floor must answer what the service answers: the first requests of every endpoint are sent
 * to both and their status, body and Link header (host aside) compared.
 */
async function compareAnswers(
  service: Server,
  floor: Server,
  meta: DatasetMeta,
  endpoints: readonly EndpointId[],
  headers: Record<string, string>,
): Promise<PostgresFigures['verified']> {
  const mismatches: string[] = [];
  let compared = 0;
  for (const id of endpoints) {
    for (const path of pathsFor(id, meta).slice(0, VERIFY_PER_ENDPOINT)) {
      const [a, b] = await Promise.all([
        fetchAnswer(service.port, path, headers),
        fetchAnswer(floor.port, path, headers),
      ]);
      compared += 1;
      if (a.status !== 200) mismatches.push(`${path}: the service answered ${a.status}: ${a.body.slice(0, 200)}`);
      else if (a.status !== b.status || a.body !== b.body || a.link !== b.link) {
        mismatches.push(
          `${path}: service ${a.status} ${a.body.slice(0, 300)} | floor ${b.status} ${b.body.slice(0, 300)}`,
        );
      }
    }
  }
  return { compared, mismatches };
}

async function fetchAnswer(
  port: number,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string; link: string }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers, signal: AbortSignal.timeout(30_000) });
  return {
    status: response.status,
    body: await response.text(),
    link: (response.headers.get('link') ?? '').replaceAll(`127.0.0.1:${port}`, '<host>'),
  };
}

/**
 * Tags through the service's API, as a client would load them: POST /v2/tags/:tag with up to 1000
 * addresses a request, a few requests at a time, each with its account's key.
 */
async function loadTags(port: number, meta: DatasetMeta, keys: Record<string, string>): Promise<TagLoad> {
  const jobs: { key: string; tag: string; addresses: string[] }[] = [];
  for (const tag of meta.tags) {
    for (let start = 0; start < tag.addresses.length; start += TAG_BATCH) {
      jobs.push({ key: keys[tag.account]!, tag: tag.name, addresses: tag.addresses.slice(start, start + TAG_BATCH) });
    }
  }
  const memberships = jobs.reduce((sum, job) => sum + job.addresses.length, 0);
  log(`tags: ${meta.tags.length} tags, ${memberships} memberships in ${jobs.length} POST /v2/tags/:tag requests`);
  const started = performance.now();
  let next = 0;
  const latencies: number[] = [];
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next]!;
      next += 1;
      const sent = performance.now();
      const response = await fetch(`http://127.0.0.1:${port}/v2/tags/${job.tag}`, {
        method: 'POST',
        headers: { 'x-api-key': job.key, 'content-type': 'application/json' },
        body: JSON.stringify(job.addresses),
        signal: AbortSignal.timeout(120_000),
      });
      const text = await response.text();
      if (response.status !== 200)
        throw new Error(`POST /v2/tags/${job.tag} answered ${response.status}: ${text.slice(0, 300)}`);
      if (job.addresses.length === TAG_BATCH) latencies.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: TAG_LOAD_CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const fullRequestP99Ms = latencies[Math.min(latencies.length - 1, Math.ceil(0.99 * latencies.length) - 1)] ?? NaN;
  log(
    `tags: loaded in ${seconds.toFixed(1)} s; p99 of the ${latencies.length} requests of ${TAG_BATCH} addresses ${fullRequestP99Ms.toFixed(1)} ms`,
  );
  return { requests: jobs.length, memberships, seconds, fullRequests: latencies.length, fullRequestP99Ms };
}

/** `chaintags import` of the dataset; its own summary gives the rows and the time spent importing. */
async function importDataset(databaseUrl: string, meta: DatasetMeta, into: string): Promise<Throughput> {
  log(`import: ${meta.lines.total} lines through chaintags import into ${into}`);
  // Generous: a millisecond a row on top of ten minutes, far beyond any healthy import.
  const timeout = 600_000 + meta.lines.total;
  const { stdout } = await runCli(databaseUrl, ['import', meta.files.ndjson], timeout);
  const summary = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as {
    committed?: boolean;
    valid?: Record<string, number>;
    seconds?: number;
  };
  if (summary.committed !== true || summary.seconds === undefined || summary.valid === undefined) {
    throw new Error(`the import did not commit: ${stdout}`);
  }
  const rows = Object.values(summary.valid).reduce((sum, count) => sum + count, 0);
  if (rows !== meta.lines.total) throw new Error(`the import took ${rows} rows of ${meta.lines.total}`);
  const rowsPerSecond = rows / summary.seconds;
  log(`import: ${rows} rows in ${summary.seconds.toFixed(1)} s (${Math.round(rowsPerSecond)} rows/s)`);
  return { rows, seconds: summary.seconds, rowsPerSecond };
}

/** COPY of the dataset's CSV files in one transaction, timed around psql. */
async function copyRows(cluster: PgCluster, database: string, meta: DatasetMeta): Promise<Throughput> {
  const script = [
    '\\set ON_ERROR_STOP on',
    'BEGIN;',
    ...COPY_TABLES.map(
      (table) =>
        `\\copy ${table} (${COPY_COLUMNS[table].join(', ')}) FROM '${meta.files.copy[table]}' WITH (FORMAT csv)`,
    ),
    'COMMIT;',
  ].join('\n');
  const scriptFile = join(tmpdir(), `chaintags-bench-copy-${process.pid}.sql`);
  writeFileSync(scriptFile, `${script}\n`);
  const psql = existsSync(join(PG_BIN, 'psql')) ? join(PG_BIN, 'psql') : 'psql';
  const started = performance.now();
  await runProcess(
    psql,
    ['-X', '-q', '-h', '127.0.0.1', '-p', String(cluster.port), '-U', 'postgres', '-d', database, '-f', scriptFile],
    {},
    600_000 + meta.lines.total,
  );
  const seconds = (performance.now() - started) / 1000;
  rmSync(scriptFile, { force: true });
  const rows = COPY_TABLES.reduce((sum, table) => sum + meta.copyRows[table], 0);
  return { rows, seconds, rowsPerSecond: rows / seconds };
}

/** Reads files once so that neither the import nor COPY is timed reading from a cold disk. */
async function warmFiles(files: readonly string[]): Promise<void> {
  for (const file of files) {
    await new Promise<void>((resolve, reject) => {
      createReadStream(file, { highWaterMark: 1 << 20 })
        .on('data', () => undefined)
        .on('end', resolve)
        .on('error', reject);
    });
  }
}

function compiled(): { main: string; cli: string } {
  if (build === undefined) throw new Error('chaintags has not been compiled yet');
  return build;
}

/** The compiled CLI (`npm run cli:prod`), on the given database. */
function runCli(databaseUrl: string, args: string[], timeoutMs: number): Promise<{ stdout: string; stderr: string }> {
  return runProcess(process.execPath, [compiled().cli, ...args], { DATABASE_URL: databaseUrl }, timeoutMs);
}

function runProcess(
  file: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs: number,
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(file, args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stop = () => {
      child.kill('SIGKILL');
    };
    cleanups.push(stop);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.length > 1 << 20) stderr = stderr.slice(-(1 << 19));
    });
    const timer = setTimeout(stop, timeoutMs);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      cleanups.remove(stop);
      if (code === 0) resolve({ stdout, stderr });
      else reject(new Error(`${file} ${args.join(' ')} failed (${signal ?? `exit ${code}`}): ${stderr.slice(-2000)}`));
    });
  });
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function createDatabase(cluster: PgCluster, name: string): Promise<string> {
  await adminQuery(cluster.url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await adminQuery(cluster.url, `CREATE DATABASE ${name}`);
  return cluster.url.replace(/\/postgres$/, `/${name}`);
}

async function describeMachine(cluster: PgCluster): Promise<Record<string, string | number>> {
  const client = new Client({ connectionString: cluster.url });
  await client.connect();
  let postgres: string;
  try {
    postgres = ((await client.query('SHOW server_version')).rows[0] as { server_version: string }).server_version;
  } finally {
    await client.end();
  }
  const memory = new Database(':memory:');
  const sqlite = (memory.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  memory.close();
  return {
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    cpus: cpus().length,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    kernel: release(),
    postgres,
    sqlite,
  };
}

/**
 * p99 of this run against a run at another transaction count with the same other options: this
 * run against the default-size run when it is larger, or the largest larger run against this one.
 */
function growthAgainstOtherRun(
  options: DatasetOptions,
  pgSettings: readonly [string, string][],
  postgres: PostgresFigures,
): Results['growth'] {
  const load = (transactions: number): Results | undefined => {
    const file = join(RESULTS_DIR, resultsFileName(transactions, pgSettings));
    if (!existsSync(file)) return undefined;
    const results = JSON.parse(readFileSync(file, 'utf8')) as Results;
    const other = results.dataset.options;
    const comparable =
      other.addresses === options.addresses &&
      other.holdings === options.holdings &&
      other.tags === options.tags &&
      other.seed === options.seed;
    return comparable ? results : undefined;
  };
  const ratios = (larger: PostgresFigures, smaller: PostgresFigures) =>
    Object.fromEntries(
      ENDPOINT_IDS.flatMap((id) => {
        const big = larger.endpoints[id];
        const small = smaller.endpoints[id];
        return big !== undefined && small !== undefined ? [[id, big.service.p99 / small.service.p99]] : [];
      }),
    );
  if (options.transactions > DEFAULT_DATASET.transactions) {
    const base = load(DEFAULT_DATASET.transactions);
    return base === undefined
      ? undefined
      : { against: DEFAULT_DATASET.transactions, p99Ratio: ratios(postgres, base.postgres) };
  }
  if (options.transactions === DEFAULT_DATASET.transactions) {
    const larger = transactionCountsOnFile(pgSettings).filter((count) => count > options.transactions);
    const largest = larger.length > 0 ? Math.max(...larger) : undefined;
    const other = largest === undefined ? undefined : load(largest);
    return other === undefined ? undefined : { against: largest!, p99Ratio: ratios(other.postgres, postgres) };
  }
  return undefined;
}

/**
 * bench/results/tx-<transactions>.json, or tx-<transactions>-<settings>.json for a run with
 * changed PostgreSQL settings, so that only runs on the same server settings are compared.
 */
function resultsFileName(transactions: number, pgSettings: readonly [string, string][]): string {
  const suffix = pgSettings.map(([name, value]) => `-${name}-${value}`.replace(/[^A-Za-z0-9_-]/g, '_')).join('');
  return `tx-${transactions}${suffix}.json`;
}

/** Transaction counts of the runs on file with the same PostgreSQL settings. */
function transactionCountsOnFile(pgSettings: readonly [string, string][]): number[] {
  return readdirSync(RESULTS_DIR).flatMap((name) => {
    const match = /^tx-(\d+)/.exec(name);
    return match && name === resultsFileName(Number(match[1]), pgSettings) ? [Number(match[1])] : [];
  });
}

/** The run's settings from its command line; undefined after `--help` or a refused option. */
function readSettings(argv: readonly string[]): Settings | undefined {
  const command = new Command('npm run bench --').description(
    "chaintags' speed and scale on this machine: import, endpoints against the floor, reads while writing, " +
      'on PostgreSQL and SQLite (bench/README.md).',
  );
  addDatasetOptions(command)
    .option('--data-dir <folder>', "the dataset's folder (default: $TMPDIR/chaintags-bench/<a name from the options>)")
    .addOption(
      new Option('--endpoints <list>', `the endpoints to measure, comma-separated (${ENDPOINT_IDS.join(', ')})`)
        .default([...ENDPOINT_IDS], ENDPOINT_IDS.join(','))
        .argParser(endpointList),
    );
  addLoadOptions(command)
    .option('--skip-sqlite', 'PostgreSQL only')
    .option('--skip-copy', 'leave out the COPY yardstick of the import')
    .option('--skip-writing', 'leave out reads while writing')
    .addOption(cpuProfileOption())
    .addOption(
      new Option(
        '--pg-setting <name=value>',
        "a PostgreSQL setting beyond the test cluster's (ALTER SYSTEM and a restart); repeatable",
      )
        .default([], 'none')
        .argParser((text: string, previous: [string, string][]) => [...previous, pgSetting(text)]),
    );
  const options = parseCommandLine<
    DatasetOptions &
      LoadSettings & {
        dataDir?: string;
        endpoints: EndpointId[];
        skipSqlite?: boolean;
        skipCopy?: boolean;
        skipWriting?: boolean;
        cpuProf?: boolean;
        pgSetting: [string, string][];
      }
  >(command, argv);
  if (options === undefined) return undefined;
  return {
    dataset: datasetOptionsOf(options),
    dataDir: options.dataDir,
    seconds: options.duration,
    warmup: options.warmup,
    connections: options.connections,
    endpoints: options.endpoints,
    sqlite: options.skipSqlite !== true,
    copy: options.skipCopy !== true,
    cpuProfile: options.cpuProf === true,
    writing: options.skipWriting !== true,
    pgSettings: options.pgSetting,
  };
}

function endpointList(text: string): EndpointId[] {
  const chosen = text.split(',');
  const unknown = chosen.filter((id) => !(ENDPOINT_IDS as readonly string[]).includes(id));
  if (unknown.length > 0)
    throw new InvalidArgumentError(`unknown: ${unknown.join(', ')}; the endpoints are ${ENDPOINT_IDS.join(', ')}.`);
  return chosen as EndpointId[];
}

function pgSetting(text: string): [string, string] {
  try {
    return parseSetting(text);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
}

runBench(main, cleanups, log);
