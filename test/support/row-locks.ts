import type { Db } from '../../src/database/db.service';
import { sql, type SqlFragment } from '../../src/database/sql';

/**
 * PostgreSQL: runs `body` while a transaction of the test's own holds the row locks `lock` takes
 * (a `SELECT … FOR UPDATE`), then commits it. For putting two requests that race in a chosen order:
 * one waits on the held rows (see untilWaitingForLock) while the other goes through.
 */
export async function whileRowsLocked<T>(db: Db, lock: SqlFragment, body: () => Promise<T>): Promise<T> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let taken!: () => void;
  const held = new Promise<void>((resolve) => (taken = resolve));
  const holder = db.transaction(async (tx) => {
    await tx.query(lock);
    taken();
    await released;
  });
  await Promise.race([held, holder]);
  try {
    return await body();
  } finally {
    release();
    await holder;
  }
}

/**
 * Resolves once `backends` backends of the test's database wait for a lock (throws after
 * `timeoutMs`).
 */
export async function untilWaitingForLock(db: Db, timeoutMs = 15_000, backends = 1): Promise<void> {
  for (let waited = 0; waited < timeoutMs; waited += 20) {
    const waiting = await db.count(
      sql`SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if (waiting >= backends) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`fewer than ${backends} backends waited for a lock within ${timeoutMs} ms`);
}
