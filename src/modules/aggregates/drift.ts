import type { Sql } from '../../database/db.service';
import { raw, sql } from '../../database/sql';
import { KEPT_AGGREGATES } from './registry';

/** Rows where a kept table and its reference differ; `side` says which of the two has the row. */
export interface Drift {
  table: string;
  rows: number;
  /** The first few differing rows, each as it is on its side. */
  examples: Record<string, unknown>[];
}

/** Compares every kept table with its reference; answers the tables that drifted (none: all exact). */
export async function findDrift(db: Sql, examples = 10): Promise<Drift[]> {
  const drifts: Drift[] = [];
  for (const aggregate of KEPT_AGGREGATES) {
    const [kept, reference] = [aggregate.kept(db), aggregate.reference(db)];
    const differing = sql`SELECT 'kept' AS side, k.* FROM (${kept} EXCEPT ${reference}) k
      UNION ALL SELECT 'reference' AS side, r.* FROM (${reference} EXCEPT ${kept}) r`;
    const [counted] = await db.query<{ n: number | string }>(sql`SELECT COUNT(*) AS n FROM (${differing}) d`);
    const rows = Number(counted?.n ?? 0);
    if (rows === 0) continue;
    const found = await db.query(sql`SELECT * FROM (${differing}) d LIMIT ${examples}`);
    drifts.push({ table: aggregate.table, rows, examples: found.map((row) => normalise(row)) });
  }
  return drifts;
}

/**
 * Rewrites every kept table from its reference, in list order (a reference may read a table
 * rebuilt before it); a kept column of another table is rewritten in place (`rebuild`). On
 * PostgreSQL the tables are locked against writers (readers go on) for the length of the
 * transaction, so no write falls between the reference read and the commit.
 */
export async function rebuildAggregates(tx: Sql): Promise<void> {
  const tables = KEPT_AGGREGATES.map((aggregate) => aggregate.table);
  if (tx.dialect === 'postgres') await tx.execute(sql`LOCK TABLE ${raw(tables.join(', '))} IN EXCLUSIVE MODE`);
  const refilled = KEPT_AGGREGATES.filter((aggregate) => aggregate.rebuild === undefined);
  for (const { table } of [...refilled].reverse()) await tx.execute(sql`DELETE FROM ${raw(table)}`);
  for (const aggregate of KEPT_AGGREGATES) {
    if (aggregate.rebuild !== undefined) await aggregate.rebuild(tx);
    else {
      const columns = aggregate.columns === undefined ? '' : ` (${aggregate.columns.join(', ')})`;
      await tx.execute(sql`INSERT INTO ${raw(aggregate.table + columns)} ${aggregate.reference(tx)}`);
    }
  }
}

/** The kept tables' names, in lock order (for tests that empty them). */
export function keptTables(): string[] {
  return KEPT_AGGREGATES.map((aggregate) => aggregate.table);
}

/** The kept tables a data write changes (those with a delta), in lock order. */
export function dataWriteTables(): string[] {
  return KEPT_AGGREGATES.filter((aggregate) => aggregate.dataWrite !== undefined).map((aggregate) => aggregate.table);
}

/** Values as JSON can show them: pg's bigint and numeric come as strings, SQLite's as numbers. */
function normalise(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(row).map(([key, value]) => [key, typeof value === 'number' ? String(value) : value]),
  );
}
