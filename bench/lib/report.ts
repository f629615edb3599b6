import type { DatasetMeta } from '../dataset/meta';
import type { EndpointShare, LoadResult } from './load';

export const ENDPOINT_IDS = [
  'address',
  'transactions',
  'holdings',
  'tag',
  'tag_10k',
  'untagged',
  'listing',
  'tag_transactions',
  'members',
] as const;
export type EndpointId = (typeof ENDPOINT_IDS)[number];

export const ENDPOINT_LABELS: Record<EndpointId, string> = {
  address: 'GET /v2/addresses/:address',
  transactions: 'GET /v2/transactions?address=',
  holdings: 'GET /v2/token-holdings?tag=',
  tag: 'GET /v2/tags/:tag',
  tag_10k: 'GET /v2/tags/:tag (10k addresses)',
  untagged: 'GET /v2/tags/0, /v2/token-holdings?tag=0',
  listing: 'GET /v2/token-holdings (all, ?chain=, ?token_address=0)',
  tag_transactions: 'GET /v2/transactions?tag=',
  members: 'GET /v2/tags/:tag/addresses',
};

/** The endpoints of "reads while writing", driven together, requests in turn. */
export const WRITING_ENDPOINTS = ['tag', 'address', 'holdings'] as const satisfies readonly EndpointId[];
export type WritingEndpoint = (typeof WRITING_ENDPOINTS)[number];

export interface Throughput {
  rows: number;
  seconds: number;
  rowsPerSecond: number;
}

/** Tags loaded through POST /v2/tags/:tag; `fullRequest…`: the requests that carried TAG_BATCH (1,000) addresses. */
export interface TagLoad {
  requests: number;
  memberships: number;
  seconds: number;
  fullRequests: number;
  fullRequestP50Ms: number;
  fullRequestP99Ms: number;
  /** Of the same requests: the p99 is their slowest or nearly, and these move less from run to run. */
  fullRequestMeanMs: number;
  fullRequestP90Ms: number;
  /**
   * The slowest requests of 1,000 addresses, slowest first: the tag, which of its requests it was
   * (1 for its first addresses), when it was sent after the load's start and how long it took (ms).
   */
  slowest: { tag: string; part: number; sentMs: number; ms: number }[];
}

export interface PostgresFigures {
  endpoints: Partial<
    Record<
      EndpointId,
      {
        service: LoadResult;
        floor: LoadResult;
        ratio: number;
        /** Every request path once, before the warm-up: what the first requests cost, before any stats are kept. */
        firstPass: { service: LoadResult; floor: LoadResult };
      }
    >
  >;
  import: Throughput;
  /** Undefined with `--skip-copy`. */
  copy?: Throughput;
  importToCopy?: number;
  tagLoad: TagLoad;
  serviceRss: ServiceRss;
  verified: { compared: number; mismatches: string[] };
  bigTagAlone: BigTagAlone;
  /** Undefined with `--skip-writing`. */
  readsWhileWriting?: ReadsWhileWriting;
  /** `stats verify` at the end of the run: the kept aggregates against the reference computation. */
  aggregates: { exact: boolean; drift: Record<string, number> };
}

/**
 * The stats and holdings endpoints (tag stats, address stats, holdings by tag, in turn) measured
 * idle, then again while a writer process commits a batch of transfers between tagged addresses
 * every 100 ms through chaintags' sink, as a chain follower would.
 */
export interface ReadsWhileWriting {
  /** The three endpoints' answers pooled. */
  idle: LoadResult;
  writing: LoadResult;
  /** p99 while writing / p99 idle, pooled. */
  p99Ratio: number;
  /** The same windows, each endpoint's answers apart (the target is per endpoint). */
  endpoints: Partial<Record<WritingEndpoint, { idle: EndpointShare; writing: EndpointShare; p99Ratio: number }>>;
  writer: { transfersPerBatch: number; everyMs: number; commits: number; commitP50Ms: number; commitP99Ms: number };
}

/**
 * Of the service process, in MiB: the highest sample while it was under load (each endpoint's
 * measured load, sampled five times a second), that per endpoint, and at the end.
 */
export interface ServiceRss {
  peakUnderLoadMb: number;
  peakByEndpointMb: Partial<Record<EndpointId, number>>;
  afterRunMb: number;
  highWaterMb: number;
}

/**
 * GET /v2/tags/:tag for the 10,000-address tag, one request at a time, right after the tags were
 * loaded: the first request for a tag's stats, then a second one.
 */
export interface BigTagAlone {
  firstMs: number;
  secondMs: number;
}

export interface SqliteFigures {
  endpoints: Partial<Record<EndpointId, LoadResult>>;
  import: Throughput;
  tagLoad: TagLoad;
  serviceRss: ServiceRss;
  bigTagAlone: BigTagAlone;
  readsWhileWriting?: ReadsWhileWriting;
}

export interface Target {
  name: string;
  goal: string;
  reached: string;
  met: boolean | undefined;
}

export interface Results {
  command: string;
  startedAt: string;
  wallSeconds: number;
  /** `cpuStealShare`: of the machine's CPU ticks during the run, the share the host gave to others (/proc/stat). */
  machine: Record<string, string | number> & { cpuStealShare: number };
  /** The server's values of the settings that shape these figures. */
  postgresSettings: Record<string, string>;
  /** What this run changed from the test cluster's settings (`--pg-setting`). */
  changedPostgresSettings: Record<string, string>;
  dataset: Pick<DatasetMeta, 'options' | 'lines' | 'copyRows' | 'skew'> & { tagMemberships: number };
  load: { connections: number; secondsPerSide: number; warmupSeconds: number };
  postgres: PostgresFigures;
  sqlite?: SqliteFigures;
  targets: Target[];
  /**
   * p99 of this run against the run at another transaction count, per endpoint (service only), and
   * the size of the answers against that run's: a page of an address's transactions fills up as
   * addresses get busier, so the same request answers more.
   */
  growth?: {
    against: number;
    p99Ratio: Partial<Record<EndpointId, number>>;
    answerSizeRatio?: Partial<Record<EndpointId, number>>;
  };
}

export const number = (value: number, digits = 0) =>
  Number.isFinite(value)
    ? value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : '-';

export function table(header: string[], rows: string[][]): string {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

/**
 * ` (answers 2.7× the size)` where the answers' size moved by a tenth or more against the run it is
 * compared with (and that run measured it too).
 */
function answerGrowth(growth: NonNullable<Results['growth']>, id: EndpointId): string {
  const ratio = growth.answerSizeRatio?.[id];
  return ratio === undefined || Math.abs(ratio - 1) < 0.1 ? '' : ` (answers ${number(ratio, 1)}× the size)`;
}

/** The human-readable summary printed at the end of a run. */
export function formatResults(results: Results): string {
  const { options } = results.dataset;
  const parts: string[] = [];
  parts.push(
    `chaintags benchmark — ${number(options.transactions)} transactions, ${number(options.addresses)} addresses, ` +
      `${number(options.holdings)} holdings, ${number(options.tags)} tags (${number(results.dataset.tagMemberships)} memberships)`,
    `machine: ${results.machine.cpu} × ${results.machine.cpus}, ${results.machine.memoryGb} GB, Node ${results.machine.node}, ` +
      `PostgreSQL ${results.machine.postgres}, SQLite ${results.machine.sqlite}`,
    `CPU steal during the run: ${number(results.machine.cpuStealShare * 100, 1)}% of the machine's CPU time (/proc/stat)`,
    `PostgreSQL settings: ${Object.entries(results.postgresSettings)
      .map(([name, value]) => `${name}=${value}`)
      .join(', ')}`,
    `load: ${results.load.connections} connections, ${results.load.secondsPerSide} s per endpoint and side after ` +
      `${results.load.warmupSeconds} s of warm-up; rps counts 2xx answers; latencies in ms; CPU ms: the server ` +
      `process's CPU time per answer`,
    '',
    'PostgreSQL: service vs floor',
  );
  const pg = results.postgres;
  parts.push(
    table(
      ['endpoint', 'service rps', 'p50', 'p99', 'CPU ms', 'kB', 'floor rps', 'p50', 'p99', 'CPU ms', 'service/floor'],
      Object.entries(pg.endpoints).map(([id, figures]) => [
        ENDPOINT_LABELS[id as EndpointId],
        number(figures.service.rps),
        number(figures.service.p50, 1),
        number(figures.service.p99, 1),
        number(figures.service.cpuMsPerRequest ?? NaN, 2),
        number(figures.service.bytesPerAnswer / 1000, 1),
        number(figures.floor.rps),
        number(figures.floor.p50, 1),
        number(figures.floor.p99, 1),
        number(figures.floor.cpuMsPerRequest ?? NaN, 2),
        number(figures.ratio, 2),
      ]),
    ),
    '',
    'first pass (half the request paths each, once, before the warm-up)',
    table(
      ['endpoint', 'paths', 'service p50', 'p99', 'max', 'floor p50', 'p99', 'max'],
      Object.entries(pg.endpoints).map(([id, figures]) => [
        ENDPOINT_LABELS[id as EndpointId],
        number(figures.firstPass.service.requests),
        number(figures.firstPass.service.p50, 1),
        number(figures.firstPass.service.p99, 1),
        number(figures.firstPass.service.max, 1),
        number(figures.firstPass.floor.p50, 1),
        number(figures.firstPass.floor.p99, 1),
        number(figures.firstPass.floor.max, 1),
      ]),
    ),
    '',
    `import: ${number(pg.import.rowsPerSecond)} rows/s (${number(pg.import.rows)} rows in ${number(pg.import.seconds, 1)} s); ` +
      (pg.copy === undefined
        ? 'COPY: not run (--skip-copy)'
        : `COPY: ${number(pg.copy.rowsPerSecond)} rows/s (${number(pg.copy.seconds, 1)} s); import/COPY ${number(pg.importToCopy ?? NaN, 2)}`),
    `tags loaded through POST /v2/tags/:tag: ${number(pg.tagLoad.memberships)} memberships in ${number(pg.tagLoad.requests)} ` +
      `requests, ${number(pg.tagLoad.seconds, 1)} s; of the ${pg.tagLoad.fullRequests} requests of 1,000 addresses ` +
      `p50 ${number(pg.tagLoad.fullRequestP50Ms, 1)} ms, p99 ${number(pg.tagLoad.fullRequestP99Ms, 1)} ms`,
    `service RSS: peak under load ${number(pg.serviceRss.peakUnderLoadMb)} MiB, after the run ${number(pg.serviceRss.afterRunMb)} MiB ` +
      `(high-water mark ${number(pg.serviceRss.highWaterMb)} MiB); each endpoint's peak: ${peaksByEndpoint(pg.serviceRss)}`,
    bigTagLine(pg.bigTagAlone),
    ...writingLines(pg.readsWhileWriting),
    `answers compared before measuring: ${pg.verified.compared}, mismatches: ${pg.verified.mismatches.length}`,
    `stats verify after the import, the tag load and the writes: ${pg.aggregates.exact ? 'exact' : `DRIFT ${JSON.stringify(pg.aggregates.drift)}`}`,
  );
  if (results.sqlite !== undefined) {
    const sqlite = results.sqlite;
    parts.push(
      '',
      'SQLite: service',
      table(
        ['endpoint', 'rps', 'p50', 'p99', 'CPU ms'],
        Object.entries(sqlite.endpoints).map(([id, figures]) => [
          ENDPOINT_LABELS[id as EndpointId],
          number(figures.rps),
          number(figures.p50, 1),
          number(figures.p99, 1),
          number(figures.cpuMsPerRequest ?? NaN, 2),
        ]),
      ),
      '',
      `import: ${number(sqlite.import.rowsPerSecond)} rows/s (${number(sqlite.import.seconds, 1)} s); service RSS peak under ` +
        `load ${number(sqlite.serviceRss.peakUnderLoadMb)} MiB (${peaksByEndpoint(sqlite.serviceRss)})`,
      bigTagLine(sqlite.bigTagAlone),
      ...writingLines(sqlite.readsWhileWriting),
    );
  }
  if (results.growth !== undefined) {
    parts.push(
      '',
      `p99 against the run with ${number(results.growth.against)} transactions: ` +
        Object.entries(results.growth.p99Ratio)
          .map(([id, ratio]) => `${id} ${number(ratio, 2)}×${answerGrowth(results.growth!, id as EndpointId)}`)
          .join(', '),
    );
  }
  parts.push(
    '',
    'targets',
    table(
      ['target', 'goal', 'reached', 'met'],
      results.targets.map((target) => [
        target.name,
        target.goal,
        target.reached,
        target.met === undefined ? 'n/a' : target.met ? 'yes' : 'NO',
      ]),
    ),
    '',
    `wall time ${number(results.wallSeconds)} s`,
  );
  return parts.join('\n');
}

function writingLines(figures: ReadsWhileWriting | undefined): string[] {
  if (figures === undefined) return ['reads while writing: not run (--skip-writing)'];
  const { writer } = figures;
  return [
    `reads while writing (${writer.transfersPerBatch} transfers every ${writer.everyMs} ms, ${writer.commits} commits, ` +
      `commit p50 ${number(writer.commitP50Ms, 1)} ms p99 ${number(writer.commitP99Ms, 1)} ms): p99 ${number(figures.writing.p99, 1)} ms ` +
      `against ${number(figures.idle.p99, 1)} ms idle (${number(figures.p99Ratio, 2)}×), ${number(figures.writing.rps)} rps against ` +
      `${number(figures.idle.rps)}; per endpoint, from the same windows:`,
    table(
      ['endpoint', 'idle rps', 'p50', 'p99', 'writing rps', 'p50', 'p99', 'p99 ratio'],
      WRITING_ENDPOINTS.flatMap((id) => {
        const share = figures.endpoints[id];
        return share === undefined
          ? []
          : [
              [
                ENDPOINT_LABELS[id],
                number(share.idle.rps),
                number(share.idle.p50, 1),
                number(share.idle.p99, 1),
                number(share.writing.rps),
                number(share.writing.p50, 1),
                number(share.writing.p99, 1),
                number(share.p99Ratio, 2),
              ],
            ];
      }),
    ),
  ];
}

/** The issue's targets, measured against this run (and, for growth, against a run at another size). */
export function evaluateTargets(results: Omit<Results, 'targets'>): Target[] {
  const targets: Target[] = [];
  for (const [id, figures] of Object.entries(results.postgres.endpoints)) {
    targets.push({
      name: `service/floor ${ENDPOINT_LABELS[id as EndpointId]}`,
      goal: '>= 0.80',
      reached: figures.ratio.toFixed(2),
      met: figures.ratio >= 0.8,
    });
  }
  if (results.growth === undefined) {
    targets.push({
      name: 'p99 at 10M <= 1.3 × p99 at 1M',
      goal: '<= 1.30',
      reached: 'needs both runs',
      met: undefined,
    });
  } else {
    for (const [id, ratio] of Object.entries(results.growth.p99Ratio)) {
      targets.push({
        name: `p99 growth ${ENDPOINT_LABELS[id as EndpointId]}`,
        goal: '<= 1.30',
        reached: `${ratio.toFixed(2)}×${answerGrowth(results.growth, id as EndpointId)}`,
        met: ratio <= 1.3,
      });
    }
  }
  const importToCopy = results.postgres.importToCopy;
  targets.push({
    name: 'import rows/s vs COPY',
    goal: '>= 0.60',
    reached: importToCopy === undefined ? 'COPY not run' : importToCopy.toFixed(2),
    met: importToCopy === undefined ? undefined : importToCopy >= 0.6,
  });
  targets.push({
    name: 'service RSS under load (PostgreSQL)',
    goal: '<= 300 MiB',
    reached: `${results.postgres.serviceRss.peakUnderLoadMb.toFixed(0)} MiB`,
    met: results.postgres.serviceRss.peakUnderLoadMb <= 300,
  });
  const big = results.postgres.endpoints.tag_10k;
  if (big !== undefined) {
    targets.push({
      name: 'GET /v2/tags/:tag, 10k addresses, p99',
      goal: '< 50 ms',
      reached: `${big.service.p99.toFixed(1)} ms`,
      met: big.service.p99 < 50,
    });
  }
  targets.push(
    latencyTarget(`${ENDPOINT_LABELS.holdings} p99, steady (PostgreSQL)`, results.postgres.endpoints.holdings?.service),
    latencyTarget(
      `first request of a tag's stats, p99 (PostgreSQL)`,
      results.postgres.endpoints.tag?.firstPass.service,
    ),
    latencyTarget(
      `first request of an address's stats, p99 (PostgreSQL)`,
      results.postgres.endpoints.address?.firstPass.service,
    ),
    ...writingTargets('PostgreSQL', results.postgres.readsWhileWriting),
  );
  if (results.sqlite !== undefined) {
    targets.push(
      latencyTarget(`${ENDPOINT_LABELS.holdings} p99, steady (SQLite)`, results.sqlite.endpoints.holdings),
      ...writingTargets('SQLite', results.sqlite.readsWhileWriting),
    );
  }
  return targets;
}

/** Kept aggregates (issue 10): the service's p99 at most 20 ms; n/a when the endpoint was left out (`--endpoints`). */
function latencyTarget(name: string, result: LoadResult | undefined): Target {
  return {
    name,
    goal: '<= 20 ms',
    reached: result === undefined ? 'not measured (--endpoints)' : `${result.p99.toFixed(1)} ms`,
    met: result === undefined ? undefined : result.p99 <= 20,
  };
}

/** Per endpoint, p99 while the writer commits at most twice the idle p99; n/a with `--skip-writing`. */
function writingTargets(database: string, figures: ReadsWhileWriting | undefined): Target[] {
  return WRITING_ENDPOINTS.map((id) => {
    const share = figures?.endpoints[id];
    return {
      name: `p99 while writing vs idle, ${ENDPOINT_LABELS[id]} (${database})`,
      goal: '<= 2.00×',
      reached:
        share === undefined
          ? figures === undefined
            ? 'not run (--skip-writing)'
            : 'no answers'
          : `${share.p99Ratio.toFixed(2)}× (${share.writing.p99.toFixed(1)} / ${share.idle.p99.toFixed(1)} ms)`,
      met: share === undefined ? undefined : share.p99Ratio <= 2,
    };
  });
}

/** Each endpoint's RSS peak, in the run's order: `address 182, holdings 188, …`. */
function peaksByEndpoint(rss: ServiceRss): string {
  return Object.entries(rss.peakByEndpointMb)
    .map(([id, mb]) => `${id} ${number(mb)}`)
    .join(', ');
}

function bigTagLine(alone: BigTagAlone): string {
  return (
    `10k-address tag alone: first request ${number(alone.firstMs, 1)} ms, ` +
    `second ${number(alone.secondMs, 1)} ms (both read the kept aggregates)`
  );
}
