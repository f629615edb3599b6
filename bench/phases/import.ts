/**
 * Loading the dataset: `chaintags import` of the NDJSON (on either database), and on PostgreSQL
 * COPY of the same rows in stored form, the import's yardstick.
 */
import { createReadStream, existsSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { PgCluster } from '../../test/support/pg-cluster';
import { COPY_COLUMNS, COPY_TABLES } from '../dataset/meta';
import { adminQuery, createDatabase } from '../lib/postgres';
import { runProcess } from '../lib/processes';
import type { Throughput } from '../lib/report';
import { Run, runCli } from './context';

const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** Migrates a fresh database, as the CLI does before any command (`keys list` changes nothing). */
export async function migrate(run: Run, databaseUrl: string): Promise<void> {
  await runCli(run, databaseUrl, ['keys', 'list'], 120_000);
}

/** `chaintags import` of the dataset; its own summary gives the rows and the time spent importing. */
export async function importDataset(run: Run, databaseUrl: string, into: string): Promise<Throughput> {
  const { meta, log } = run;
  log(`import: ${meta.lines.total} lines through chaintags import into ${into}`);
  // Generous: a millisecond a row on top of ten minutes, far beyond any healthy import.
  const timeout = 600_000 + meta.lines.total;
  const { stdout } = await runCli(run, databaseUrl, ['import', meta.files.ndjson], timeout);
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

/** COPY into a freshly migrated database of its own, which is dropped afterwards. */
export async function copyPhase(run: Run, cluster: PgCluster): Promise<Throughput> {
  const { meta, log } = run;
  const copyUrl = await createDatabase(cluster, 'bench_copy');
  log('COPY: migrating an empty database, then loading the same rows with COPY');
  await migrate(run, copyUrl);
  await warmFiles(Object.values(meta.files.copy));
  const copy = await copyRows(run, cluster, 'bench_copy');
  log(`COPY: ${copy.rows} rows in ${copy.seconds.toFixed(1)} s (${Math.round(copy.rowsPerSecond)} rows/s)`);
  await adminQuery(cluster.url, 'DROP DATABASE bench_copy WITH (FORCE)');
  return copy;
}

/** COPY of the dataset's CSV files in one transaction, timed around psql. */
async function copyRows(run: Run, cluster: PgCluster, database: string): Promise<Throughput> {
  const { meta } = run;
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
    run.cleanups,
  );
  const seconds = (performance.now() - started) / 1000;
  rmSync(scriptFile, { force: true });
  const rows = COPY_TABLES.reduce((sum, table) => sum + meta.copyRows[table], 0);
  return { rows, seconds, rowsPerSecond: rows / seconds };
}

/** Reads files once so that neither the import nor COPY is timed reading from a cold disk. */
export async function warmFiles(files: readonly string[]): Promise<void> {
  for (const file of files) {
    await new Promise<void>((resolve, reject) => {
      createReadStream(file, { highWaterMark: 1 << 20 })
        .on('data', () => undefined)
        .on('end', resolve)
        .on('error', reject);
    });
  }
}
