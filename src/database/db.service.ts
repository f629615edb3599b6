import { Injectable } from '@nestjs/common';
import type { Pool, PoolClient, QueryResult } from 'pg';
import { DataSource, QueryRunner } from 'typeorm';
import { Dialect, toSqliteParameters } from './dialect';

export type Row = Record<string, unknown>;

export interface Sql {
  readonly dialect: Dialect;
  query<T = Row>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** Runs a write and answers how many rows it changed. */
  execute(sql: string, params?: readonly unknown[]): Promise<number>;
}

/**
 * The one door to the database for every repository.
 *
 * TypeORM opens the connections and runs the migrations; statements then go to the drivers it
 * opened. On PostgreSQL they go straight to its `pg` pool (a TypeORM query runner per statement cost
 * measurable CPU on every request, see bench/README.md), and each transaction gets its own pooled
 * client. On SQLite TypeORM shares one
 * connection between all callers, so concurrent async transactions would interleave their
 * statements; here they queue behind an in-process lock instead, and each one starts with
 * `BEGIN IMMEDIATE` so that another process (the import CLI) waits on the file lock rather than
 * failing half-way. Plain queries on SQLite also wait for a running transaction, so no reader sees
 * a write that is still in progress.
 */
@Injectable()
export class Db implements Sql {
  readonly dialect: Dialect;
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly dataSource: DataSource) {
    this.dialect = dataSource.options.type === 'postgres' ? 'postgres' : 'sqlite';
  }

  query<T = Row>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    if (this.dialect === 'postgres')
      return this.pool()
        .query(sql, [...params])
        .then(rowsOf<T>);
    return this.exclusive(() => run<T>(this.dataSource, this.dialect, sql, params));
  }

  execute(sql: string, params: readonly unknown[] = []): Promise<number> {
    if (this.dialect === 'postgres')
      return this.pool()
        .query(sql, [...params])
        .then(changedBy);
    return this.exclusive(() => runWrite(this.dataSource, this.dialect, sql, params));
  }

  transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    if (this.dialect === 'postgres') return this.postgresTransactionWithRetry(work);
    return this.exclusive(() => this.sqliteTransaction(work));
  }

  /**
   * Writers lock rows in a fixed (canonical) order, so deadlocks should not happen; should
   * PostgreSQL still pick this transaction as a deadlock or serialization victim, it is rolled back
   * whole and run again, a bounded number of times.
   */
  private async postgresTransactionWithRetry<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.postgresTransaction(work);
      } catch (error) {
        if (attempt >= 3 || !isRetryable(error)) throw error;
      }
    }
  }

  private async postgresTransaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    const client = await this.pool().connect();
    let broken: unknown;
    try {
      await client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
      const result = await work(bindClient(client));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackError) {
        // The connection itself failed: the pool must not hand it out again.
        broken = rollbackError;
      }
      throw error;
    } finally {
      client.release(broken instanceof Error ? broken : undefined);
    }
  }

  /** The `pg` pool TypeORM opened for this DataSource. */
  private pool(): Pool {
    return (this.dataSource.driver as unknown as { master: Pool }).master;
  }

  private async sqliteTransaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    await runner.query('BEGIN IMMEDIATE');
    try {
      const result = await work(bind(runner, this.dialect));
      await runner.query('COMMIT');
      return result;
    } catch (error) {
      await runner.query('ROLLBACK');
      throw error;
    }
  }

  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    const result = this.queue.then(task);
    this.queue = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

const RETRYABLE_SQLSTATES = new Set(['40P01', '40001']);

function isRetryable(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && RETRYABLE_SQLSTATES.has(code);
}

function rowsOf<T>(result: QueryResult): T[] {
  return result.rows as T[];
}

/** Rows a write changed; for a statement with RETURNING that is the rows it returned. */
function changedBy(result: QueryResult): number {
  return result.rowCount ?? result.rows.length;
}

function bindClient(client: PoolClient): Sql {
  return {
    dialect: 'postgres',
    query: <T>(sql: string, params: readonly unknown[] = []) => client.query(sql, [...params]).then(rowsOf<T>),
    execute: (sql: string, params: readonly unknown[] = []) => client.query(sql, [...params]).then(changedBy),
  };
}

function bind(runner: QueryRunner, dialect: Dialect): Sql {
  return {
    dialect,
    query: <T>(sql: string, params: readonly unknown[] = []) => run<T>(runner, dialect, sql, params),
    execute: (sql: string, params: readonly unknown[] = []) => runWrite(runner, dialect, sql, params),
  };
}

type Queryable = Pick<QueryRunner, 'query'> | Pick<DataSource, 'query'>;

async function run<T>(target: Queryable, dialect: Dialect, sql: string, params: readonly unknown[]): Promise<T[]> {
  const result = await structured(target, dialect, sql, params);
  return (result.records ?? []) as T[];
}

async function runWrite(target: Queryable, dialect: Dialect, sql: string, params: readonly unknown[]): Promise<number> {
  const result = await structured(target, dialect, sql, params);
  return result.affected ?? result.records?.length ?? 0;
}

interface Structured {
  records?: unknown[];
  affected?: number;
}

async function structured(
  target: Queryable,
  dialect: Dialect,
  sql: string,
  params: readonly unknown[],
): Promise<Structured> {
  if (dialect === 'sqlite') {
    const converted = toSqliteParameters(sql, params);
    return (await callStructured(target, converted.sql, converted.params)) as Structured;
  }
  return (await callStructured(target, sql, [...params])) as Structured;
}

function callStructured(target: Queryable, sql: string, params: unknown[]): Promise<unknown> {
  if (target instanceof DataSource) {
    const runner = target.createQueryRunner();
    return runner.query(sql, params, true).finally(() => runner.release());
  }
  return (target as QueryRunner).query(sql, params, true);
}
