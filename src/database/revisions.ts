import type { Sql } from './db.service';
import { sql } from './sql';

/**
 * The `data` revision (migration 1763700000011): it goes up in the transaction of every write to
 * the holdings, transactions, prices or token deployments that tag stats are computed from.
 */
export async function dataRevision(db: Sql): Promise<number> {
  const rows = await db.query<{ value: number | string }>(sql`SELECT value FROM revisions WHERE name = 'data'`);
  return Number(rows[0]?.value ?? 0);
}

/** Call inside the transaction that writes the data. */
export async function bumpDataRevision(tx: Sql): Promise<void> {
  await tx.execute(sql`UPDATE revisions SET value = value + 1 WHERE name = 'data'`);
}
