/**
 * The report: the run's figures with the machine and the dataset beside them, set against the
 * targets and against a run at another transaction count, printed and written to bench/results/.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import type { PgCluster } from '../../test/support/pg-cluster';
import { DatasetOptions, DEFAULT_DATASET } from '../dataset/options';
import type { LoadResult } from '../lib/load';
import { serverVersion } from '../lib/postgres';
import { hostFacts, machineTicks } from '../lib/processes';
import { ENDPOINT_IDS, evaluateTargets, formatResults, PostgresFigures, Results, SqliteFigures } from '../lib/report';
import { RESULTS_DIR, Run } from './context';

export type Machine = Record<string, string | number>;

/** When the run started: its wall clock and the machine's CPU ticks (for the steal share). */
export interface RunClock {
  started: number;
  startedAt: string;
  ticks: { total: number; steal: number };
}

export function startClock(): RunClock {
  return { started: performance.now(), startedAt: new Date().toISOString(), ticks: machineTicks() };
}

/** The machine, and the versions of PostgreSQL and SQLite the run uses. */
export async function describeMachine(cluster: PgCluster): Promise<Machine> {
  const postgres = await serverVersion(cluster.url);
  const memory = new Database(':memory:');
  const sqlite = (memory.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  memory.close();
  return { ...hostFacts(), postgres, sqlite };
}

/**
 * Sets the figures against the targets, prints the table and writes bench/results/latest.json and
 * the run's tx-<transactions>.json.
 */
export function writeResults(
  run: Run,
  clock: RunClock,
  figures: {
    machine: Machine;
    postgresSettings: Record<string, string>;
    postgres: PostgresFigures;
    sqlite: SqliteFigures | undefined;
  },
): void {
  const { settings, meta, log } = run;
  const ticksAfter = machineTicks();
  const partial: Omit<Results, 'targets'> = {
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    startedAt: clock.startedAt,
    wallSeconds: (performance.now() - clock.started) / 1000,
    machine: {
      ...figures.machine,
      cpuStealShare: (ticksAfter.steal - clock.ticks.steal) / (ticksAfter.total - clock.ticks.total),
    },
    postgresSettings: figures.postgresSettings,
    changedPostgresSettings: Object.fromEntries(settings.pgSettings),
    dataset: {
      options: meta.options,
      lines: meta.lines,
      copyRows: meta.copyRows,
      skew: meta.skew,
      tagMemberships: meta.tags.reduce((sum, tag) => sum + tag.addresses.length, 0),
    },
    load: { connections: settings.connections, secondsPerSide: settings.seconds, warmupSeconds: settings.warmup },
    postgres: figures.postgres,
    sqlite: figures.sqlite,
    growth: growthAgainstOtherRun(meta.options, settings.pgSettings, figures.postgres),
  };
  const results: Results = { ...partial, targets: evaluateTargets(partial) };
  const json = `${JSON.stringify(results, null, 2)}\n`;
  const runFile = resultsFileName(meta.options.transactions, settings.pgSettings);
  writeFileSync(join(RESULTS_DIR, 'latest.json'), json);
  writeFileSync(join(RESULTS_DIR, runFile), json);
  process.stdout.write(`\n${formatResults(results)}\n`);
  log(`wrote ${join('bench', 'results', 'latest.json')} and ${runFile}`);
  if (run.profileDir !== undefined) log(`CPU profiles of the service: ${run.profileDir}`);
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
  const ratios = (larger: PostgresFigures, smaller: PostgresFigures, of: (result: LoadResult) => number) =>
    Object.fromEntries(
      ENDPOINT_IDS.flatMap((id) => {
        const big = larger.endpoints[id];
        const small = smaller.endpoints[id];
        const ratio = big !== undefined && small !== undefined ? of(big.service) / of(small.service) : NaN;
        return Number.isFinite(ratio) ? [[id, ratio]] : [];
      }),
    );
  const growth = (against: number, larger: PostgresFigures, smaller: PostgresFigures): Results['growth'] => ({
    against,
    p99Ratio: ratios(larger, smaller, (result) => result.p99),
    // Runs written before answers were measured have no size: no ratio then.
    answerSizeRatio: ratios(larger, smaller, (result) => result.bytesPerAnswer),
  });
  if (options.transactions > DEFAULT_DATASET.transactions) {
    const base = load(DEFAULT_DATASET.transactions);
    return base === undefined ? undefined : growth(DEFAULT_DATASET.transactions, postgres, base.postgres);
  }
  if (options.transactions === DEFAULT_DATASET.transactions) {
    const larger = transactionCountsOnFile(pgSettings).filter((count) => count > options.transactions);
    const largest = larger.length > 0 ? Math.max(...larger) : undefined;
    const other = largest === undefined ? undefined : load(largest);
    return other === undefined ? undefined : growth(largest!, other.postgres, postgres);
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
