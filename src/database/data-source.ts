import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { DataSource, DataSourceOptions, MigrationExecutor } from 'typeorm';
import { DatabaseConfig } from '../config/config';
import { MIGRATIONS } from './migrations';

/**
 * PostgreSQL connections a process keeps open however long they are idle. A new connection costs
 * a new backend process, whose catalog caches start empty, and loses the statements kept prepared
 * on the one it replaces: with every idle connection closed after 10 s (pg's default), the first
 * requests after a quiet moment took 2-3 times as long at p99 (bench/README.md, change 22).
 */
const POOL_KEPT_OPEN = 10;

/**
 * The session-level advisory lock a process holds on PostgreSQL while it applies migrations (a
 * number, as PostgreSQL names them; no other lock of chaintags uses it).
 */
export const MIGRATIONS_LOCK = 7_263_541_009n;

/** TypeORM options for either database. `openDataSource` applies the migrations. */
export function dataSourceOptions(config: DatabaseConfig): DataSourceOptions {
  const shared = { migrations: MIGRATIONS, migrationsRun: false, synchronize: false, logging: false } as const;
  if (config.kind === 'postgres') {
    return {
      ...shared,
      type: 'postgres',
      url: config.url,
      migrationsTransactionMode: 'each',
      // Up to POOL_KEPT_OPEN connections stay open once opened; those above close after 10 s idle.
      // Idle connections must not keep a process alive: a command whose start-up failed cannot close
      // its pool (Nest does not close a context whose init failed), and would linger until they time out.
      extra: { max: 20, min: POOL_KEPT_OPEN, connectionTimeoutMillis: 5000, allowExitOnIdle: true },
    };
  }
  if (config.path !== ':memory:') mkdirSync(dirname(config.path), { recursive: true });
  return {
    ...shared,
    type: 'better-sqlite3',
    database: config.path,
    enableWAL: config.path !== ':memory:',
    timeout: 15_000,
    migrationsTransactionMode: 'each',
    prepareDatabase: prepareSqlite,
  };
}

/**
 * Connects and applies the pending migrations, one process at a time: processes started together
 * after an upgrade (replicas, a worker, a command beside the server) would otherwise each read the
 * same list of pending migrations and run them all, and every one but the first fail on what the
 * first had just created (TypeORM takes no lock). The others wait, then find nothing left to apply.
 *
 * - PostgreSQL: a session advisory lock around the migrations, each in its own transaction. A
 *   process that dies holding it loses it with its connection.
 * - SQLite: the migrations in one transaction begun IMMEDIATE, which takes the database's write
 *   lock before the list of applied migrations is read again; another process waits for it up to
 *   the busy timeout (15 s), and a failure leaves the database as it was before them all.
 *
 * Either lock is taken only when a migration is pending, read without one first: a process started
 * on an up-to-date database (any start but the first after an upgrade) waits for no one here.
 */
export async function openDataSource(options: DataSourceOptions): Promise<DataSource> {
  const dataSource = new DataSource(options);
  await dataSource.initialize();
  try {
    if ((await new MigrationExecutor(dataSource).getPendingMigrations()).length === 0) return dataSource;
    if (dataSource.options.type !== 'postgres') {
      await migrateSqlite(dataSource);
      return dataSource;
    }
    const session = dataSource.createQueryRunner();
    try {
      await session.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATIONS_LOCK.toString()]);
      try {
        await dataSource.runMigrations({ transaction: 'each' });
      } finally {
        await session.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATIONS_LOCK.toString()]);
      }
    } finally {
      await session.release();
    }
    return dataSource;
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
}

async function migrateSqlite(dataSource: DataSource): Promise<void> {
  // One connection: the migrations' statements run inside this transaction.
  await dataSource.query('BEGIN IMMEDIATE');
  try {
    await dataSource.runMigrations({ transaction: 'none' });
  } catch (error) {
    await dataSource.query('ROLLBACK');
    throw error;
  }
  await dataSource.query('COMMIT');
}

/**
 * SQLite has no integer type wide enough for 78-digit balances, so they are stored as decimal text
 * and summed exactly with this aggregate (BigInt), the counterpart of PostgreSQL's numeric SUM.
 */
function prepareSqlite(db: Database.Database): void {
  db.pragma('foreign_keys = ON');
  db.aggregate('bigsum', {
    start: () => 0n,
    step: (total: bigint, value: unknown) =>
      value === null || value === undefined ? total : total + BigInt(value as string),
    result: (total: bigint) => total.toString(),
  });
  db.function('bigadd', { deterministic: true }, (left: unknown, right: unknown) =>
    (BigInt(left as string) + BigInt(right as string)).toString(),
  );
}
