import type { LoadResult } from './load';
import type { StatementFigure } from './pg-statements';
import { number, table } from './report';

export type DatabaseKind = 'postgres' | 'sqlite';

export const LOAD_ENDPOINTS = ['tag', 'address', 'transactions', 'holdings'] as const;
export type LoadEndpoint = (typeof LOAD_ENDPOINTS)[number];

const LOAD_LABELS: Record<LoadEndpoint, string> = {
  tag: 'GET /v2/tags/:tag',
  address: 'GET /v2/addresses/:address',
  transactions: 'GET /v2/transactions?address=',
  holdings: 'GET /v2/token-holdings?tag=',
};

/** CPU time spent during a phase, in seconds, by process (PostgreSQL: the server and its backends). */
export interface CpuSeconds {
  service: number;
  anvil: number;
  postgres: number;
}

/** What `npm run bench:follow` measured on one database. */
export interface FollowFigures {
  addresses: { tracked: number; late: number; untracked: number };
  /** The tracked addresses tagged through POST /v2/tags/:tag, before the blocks were made. */
  tagging: { tags: number; addresses: number; seconds: number };
  /** The blocks made before chaintags started again. */
  generation: { blocks: number; transfers: number; touchingTracked: number; seconds: number };
  catchUp: {
    blocks: number;
    transfers: number;
    /** Transfers of those blocks with a tracked end: what should be recorded. */
    recordedTransfers: number;
    /** From spawning the server to /v2/sync saying synced at the head. */
    secondsFromStart: number;
    /** From spawning the server to its first /health answer. */
    startUpSeconds: number;
    /** The block /v2/sync gave as indexed at its first answer (the rates count from there). */
    indexedAtFirstLook: string;
    followingSeconds: number;
    blocksPerSecond: number;
    transfersPerSecond: number;
    recordedPerSecond: number;
    recordedInDatabase: number;
    cpuSeconds: CpuSeconds;
    /** The 1-minute load average when the server was spawned and when it was synced (the machine is shared). */
    loadAverage: { start: number; end: number };
  };
  backfill: {
    addresses: number;
    /** Transfers with a late end and no tracked one: what the backfill adds. */
    transfers: number;
    /** From the first POST /v2/tags/:tag to /v2/sync saying synced again. */
    seconds: number;
    countsChecked: number;
    countsWrong: number;
    /** Reading their transactions (GET /v2/transactions?chain=&address=&per_page=100, 8 at a time). */
    checkSeconds: number;
    wrongExamples: { address: string; listed: number; expected: number }[];
    recordedInDatabase: number;
    expectedInDatabase: number;
    cpuSeconds: CpuSeconds;
  };
  latency: { samples: number; intervalMs: number; p50Ms: number; p95Ms: number; maxMs: number; allMs: number[] };
  api: {
    endpoints: Record<LoadEndpoint, { idle: LoadResult; following: LoadResult; p99Ratio: number }>;
    miner: { blocks: number; seconds: number; everyMs: number; transfersPerBlock: number; maxLagBlocks: number };
    /** Cores used (CPU seconds per second) during the measured windows, by process. */
    cpuShare: { idle: CpuSeconds; following: CpuSeconds };
    /** The 1-minute load average before the first window and after the last. */
    loadAverage: { start: number; end: number };
  };
  /** Of the server process that followed, in MiB. */
  rss: { peakSampledMb: number; highWaterMb: number; atEndMb: number };
  /** Of anvil, in MiB: it keeps the state of every recent block in memory. */
  anvilRss: { highWaterMb: number; atEndMb: number };
  correctness: {
    statsVerifyExact: boolean;
    drift: Record<string, number>;
    transactionsRecorded: number;
    transfersWithTrackedEnd: number;
    transfersMade: number;
  };
  /** With --pg-statements: PostgreSQL's costliest statements per phase (catchUp, apiIdle, apiFollowing). */
  statements?: Record<string, { totalMs: number; calls: number; statements: StatementFigure[] }>;
}

export interface FollowTarget {
  name: string;
  goal: string;
  reached: string;
  met: boolean;
}

export interface FollowResults {
  command: string;
  startedAt: string;
  wallSeconds: number;
  machine: Record<string, string | number>;
  settings: Record<string, unknown>;
  /** Errors the follower reported in /v2/sync and got over (it retries by itself). */
  followerErrors: string[];
  runs: Partial<Record<DatabaseKind, FollowFigures>>;
  targets: FollowTarget[];
}

function loadLine(load: { start: number; end: number } | undefined): string {
  return load === undefined ? '' : `load average ${number(load.start, 2)} → ${number(load.end, 2)}`;
}

function cpuLine(cpu: CpuSeconds): string {
  const postgres = Number.isFinite(cpu.postgres) ? `, PostgreSQL ${number(cpu.postgres, 1)} s` : '';
  return `CPU: chaintags ${number(cpu.service, 1)} s, anvil ${number(cpu.anvil, 1)} s${postgres}`;
}

/** Two columns, both left-aligned: a phase and its figures (an empty phase continues the one above). */
export function phases(rows: [string, string][]): string {
  const width = Math.max(...rows.map(([phase]) => phase.length));
  return rows.map(([phase, figure]) => `${phase.padEnd(width)}  ${figure}`).join('\n');
}

/** The human-readable summary printed at the end of a run. */
export function formatFollowResults(results: FollowResults): string {
  const { machine } = results;
  const parts: string[] = [
    `chaintags follower benchmark — ${results.command}`,
    `machine: ${machine.cpu} × ${machine.cpus}, ${machine.memoryGb} GB, Node ${machine.node}; load average ` +
      `${machine.loadAverageBefore} before, ${machine.loadAverageAfter} after (other jobs share the cores)`,
  ];
  for (const [kind, run] of Object.entries(results.runs)) {
    const { catchUp, backfill, latency, api, rss, correctness } = run;
    const shareLine = (process: keyof CpuSeconds) =>
      `${number(api.cpuShare.idle[process], 2)} → ${number(api.cpuShare.following[process], 2)}`;
    parts.push(
      '',
      `${kind === 'postgres' ? 'PostgreSQL' : 'SQLite'}: ${number(run.addresses.tracked)} tracked addresses, ` +
        `${number(run.addresses.late)} tagged later, ${number(run.addresses.untracked)} untracked`,
      '',
      phases([
        [
          'blocks made',
          `${number(run.generation.blocks)} blocks, ${number(run.generation.transfers)} transfers in ` +
            `${number(run.generation.seconds, 1)} s`,
        ],
        [
          'catch-up',
          `${number(catchUp.blocksPerSecond, 1)} blocks/s, ${number(catchUp.transfersPerSecond)} transfers/s read, ` +
            `${number(catchUp.recordedPerSecond)} recorded/s (from block ${catchUp.indexedAtFirstLook}, ` +
            `${number(catchUp.followingSeconds, 1)} s)`,
        ],
        [
          '',
          `${number(catchUp.secondsFromStart, 1)} s from spawning the server (start-up ${number(catchUp.startUpSeconds, 1)} s); ` +
            `${number(catchUp.recordedInDatabase)} transactions recorded, ${number(catchUp.recordedTransfers)} expected`,
        ],
        ['', `${cpuLine(catchUp.cpuSeconds)}; ${loadLine(catchUp.loadAverage)}`],
        [
          'backfill',
          `${number(backfill.addresses)} addresses, ${number(backfill.transfers)} more transfers: ` +
            `${number(backfill.seconds, 1)} s until synced; counts wrong ${backfill.countsWrong} of ${backfill.countsChecked} ` +
            `(read in ${number(backfill.checkSeconds, 1)} s)`,
        ],
        ['', `${cpuLine(backfill.cpuSeconds)}`],
        [
          'head latency',
          `${latency.samples} blocks: p50 ${number(latency.p50Ms)} ms, p95 ${number(latency.p95Ms)} ms, ` +
            `max ${number(latency.maxMs)} ms (FOLLOW_INTERVAL_MS ${latency.intervalMs})`,
        ],
        [
          'mining under load',
          `${number(api.miner.blocks)} blocks of ${api.miner.transfersPerBlock} in ${number(api.miner.seconds, 1)} s ` +
            `(one every ${api.miner.everyMs} ms asked); the follower at most ${api.miner.maxLagBlocks} blocks behind`,
        ],
        [
          '',
          `cores used, idle → following: chaintags ${shareLine('service')}, anvil ${shareLine('anvil')}` +
            (Number.isFinite(api.cpuShare.idle.postgres) ? `, PostgreSQL ${shareLine('postgres')}` : '') +
            `; ${loadLine(api.loadAverage)}`,
        ],
        [
          'server RSS',
          `peak ${number(rss.highWaterMb)} MiB (VmHWM; sampled max ${number(rss.peakSampledMb)}), ` +
            `${number(rss.atEndMb)} MiB at the end`,
        ],
        ['anvil RSS', `peak ${number(run.anvilRss.highWaterMb)} MiB, ${number(run.anvilRss.atEndMb)} MiB at the end`],
        [
          'correctness',
          `stats verify ${correctness.statsVerifyExact ? 'exact' : `DRIFT ${JSON.stringify(correctness.drift)}`}; ` +
            `${number(correctness.transactionsRecorded)} transactions recorded, ` +
            `${number(correctness.transfersWithTrackedEnd)} transfers with a tracked end (of ${number(correctness.transfersMade)})`,
        ],
      ]),
      '',
      'API: idle, then while a block is mined every interval (latencies in ms)',
      table(
        ['endpoint', 'idle rps', 'p50', 'p99', 'CPU ms', 'following rps', 'p50', 'p99', 'CPU ms', 'p99 ratio'],
        Object.entries(api.endpoints).map(([endpoint, figures]) => [
          LOAD_LABELS[endpoint as LoadEndpoint],
          number(figures.idle.rps),
          number(figures.idle.p50, 1),
          number(figures.idle.p99, 1),
          number(figures.idle.cpuMsPerRequest ?? NaN, 2),
          number(figures.following.rps),
          number(figures.following.p50, 1),
          number(figures.following.p99, 1),
          number(figures.following.cpuMsPerRequest ?? NaN, 2),
          number(figures.p99Ratio, 2),
        ]),
      ),
    );
  }
  parts.push(
    '',
    `errors the follower reported and got over: ${results.followerErrors.length === 0 ? 'none' : results.followerErrors.join(' | ')}`,
    '',
    'targets',
    table(
      ['target', 'goal', 'reached', 'met'],
      results.targets.map((target) => [target.name, target.goal, target.reached, target.met ? 'yes' : 'NO']),
    ),
    '',
    `wall time ${number(results.wallSeconds)} s`,
  );
  return parts.join('\n');
}
