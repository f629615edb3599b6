import { Injectable } from '@nestjs/common';
import type { Pool, PoolClient } from 'pg';
import { DataSource, QueryRunner } from 'typeorm';
import { Dialect } from './dialect';
import { render, SqlFragment } from './sql';

export type Row = Record<string, unknown>;

export interface Sql {
  readonly dialect: Dialect;
  query<T = Row>(statement: SqlFragment): Promise<T[]>;
  /** Runs a write and answers how many rows it changed. */
  execute(statement: SqlFragment): Promise<number>;
}

/**
 * The number a counting statement answers: the one column of its one row (`COUNT(*)` comes back as
 * a string from pg's bigint and as a number from SQLite).
 */
export function countOf(rows: readonly Row[]): number {
  const row = rows[0];
  if (row === undefined) return 0;
  const values = Object.values(row);
  if (rows.length !== 1 || values.length !== 1) throw new Error('a count must answer one row of one column');
  return Number(values[0]);
}

/**
 * The one door to the database for every repository.
 *
 * TypeORM opens the connections and runs the migrations; statements then go to the drivers it
 * opened. On PostgreSQL they go straight to its `pg` pool (a TypeORM query runner per statement cost
 * measurable CPU on every request, see bench/README.md), and each transaction gets its own pooled
 * client. On SQLite TypeORM shares one connection between all callers, so concurrent async transactions would interleave their
 * statements; here they queue behind an in-process lock instead, and each one starts with
 * `BEGIN IMMEDIATE` so that another process (the import CLI) waits on the file lock rather than
 * failing half-way. Plain queries on SQLite also wait for a running transaction, so no reader sees
 * a write that is still in progress.
 */
@Injectable()
export class Db implements Sql {
  readonly dialect: Dialect;
  private queue: Promise<void> = Promise.resolve();
  private pooled: Sql | undefined;

  constructor(private readonly dataSource: DataSource) {
    this.dialect = dataSource.options.type === 'postgres' ? 'postgres' : 'sqlite';
  }

  query<T = Row>(statement: SqlFragment): Promise<T[]> {
    if (this.dialect === 'postgres') return this.onPool().query<T>(statement);
    return this.sqliteStatement((tx) => tx.query<T>(statement));
  }

  execute(statement: SqlFragment): Promise<number> {
    if (this.dialect === 'postgres') return this.onPool().execute(statement);
    return this.sqliteStatement((tx) => tx.execute(statement));
  }

  /** Runs `SELECT COUNT(*) …` (one row, one column) and answers the count. */
  async count(statement: SqlFragment): Promise<number> {
    return countOf(await this.query(statement));
  }

  transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    if (this.dialect === 'postgres') return this.postgresTransactionWithRetry(work);
    return this.exclusive(() => this.sqliteTransaction(work));
  }

  /**
   * Reads that must see one committed state together, several statements in one snapshot: on
   * PostgreSQL a read-only REPEATABLE READ transaction on a pooled client of its own; on SQLite a
   * deferred transaction, in turn with the process's other statements (in WAL mode it reads the
   * last commit before its first statement, whatever another process commits meanwhile).
   */
  snapshot<T>(work: (q: Sql) => Promise<T>): Promise<T> {
    if (this.dialect === 'postgres') return this.postgresTransaction(work, 'REPEATABLE READ READ ONLY');
    return this.exclusive(() => this.sqliteTransaction(work, 'BEGIN'));
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

  private async postgresTransaction<T>(work: (tx: Sql) => Promise<T>, isolation = 'READ COMMITTED'): Promise<T> {
    const client = await this.pool().connect();
    let broken: unknown;
    try {
      await client.query(`BEGIN ISOLATION LEVEL ${isolation}`);
      const result = await work(postgresSql(client));
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

  /** The `pg` pool on PostgreSQL (its figures go to /metrics); SQLite has none. */
  postgresPool(): Pool | undefined {
    return this.dialect === 'postgres' ? this.pool() : undefined;
  }

  /** The `pg` pool TypeORM opened for this DataSource. */
  private pool(): Pool {
    return (this.dataSource.driver as unknown as { master: Pool }).master;
  }

  /** Statements outside a transaction, straight to the pool. */
  private onPool(): Sql {
    this.pooled ??= postgresSql(this.pool());
    return this.pooled;
  }

  /** One statement outside a transaction, on a query runner of its own. */
  private sqliteStatement<T>(run: (tx: Sql) => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      const runner = this.dataSource.createQueryRunner();
      try {
        return await run(sqliteSql(runner));
      } finally {
        await runner.release();
      }
    });
  }

  private async sqliteTransaction<T>(work: (tx: Sql) => Promise<T>, begin = 'BEGIN IMMEDIATE'): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    await runner.query(begin);
    try {
      const result = await work(sqliteSql(runner));
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

/** Statements straight to the pg pool, or to a client checked out of it for a transaction. */
function postgresSql(target: Pool | PoolClient): Sql {
  const run = (statement: SqlFragment) => {
    const { text, params } = render(statement, 'postgres');
    const name = statement.keepPrepared ? preparedName(text) : undefined;
    return name === undefined ? target.query(text, params) : target.query({ name, text, values: params });
  };
  return {
    dialect: 'postgres',
    query: async <T>(statement: SqlFragment) => (await run(statement)).rows as T[],
    // For a write with RETURNING, rowCount is the number of rows it returned.
    execute: async (statement: SqlFragment) => {
      const result = await run(statement);
      return result.rowCount ?? result.rows.length;
    },
  };
}

/**
 * The name a `prepared` statement's text is kept under on every connection (pg sends the text
 * once per connection and the name after), one per distinct text. Past MAX_PREPARED texts, which
 * only a `prepared` statement whose text varies with the input would reach, statements go unnamed.
 */
function preparedName(text: string): string | undefined {
  let name = PREPARED_NAMES.get(text);
  if (name === undefined && PREPARED_NAMES.size < MAX_PREPARED) {
    name = `chaintags_${PREPARED_NAMES.size + 1}`;
    PREPARED_NAMES.set(text, name);
  }
  return name;
}

const PREPARED_NAMES = new Map<string, string>();
const MAX_PREPARED = 200;

/** Statements through a TypeORM query runner on SQLite, with `?` placeholders. */
function sqliteSql(runner: QueryRunner): Sql {
  const structured = async (statement: SqlFragment) => {
    const { text, params } = render(statement, 'sqlite');
    return (await runner.query(text, params, true)) as { records?: unknown[]; affected?: number };
  };
  return {
    dialect: 'sqlite',
    query: async <T>(statement: SqlFragment) => ((await structured(statement)).records ?? []) as T[],
    execute: async (statement: SqlFragment) => {
      const result = await structured(statement);
      return result.affected ?? result.records?.length ?? 0;
    },
  };
}
