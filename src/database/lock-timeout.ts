import type { Sql } from './db.service';
import { sql, type SqlFragment } from './sql';

/** What withinLockTimeout answers when one of the work's waits for a lock outlasted the timeout. */
export const WAITED_TOO_LONG = Symbol('waited too long');

/**
 * PostgreSQL: runs `work` in the transaction under a savepoint and a lock_timeout (`timeout`, SQL
 * whose value is the setting's text, in milliseconds), and answers its result; or WAITED_TOO_LONG
 * when one of its waits for a lock outlasted the timeout: everything it did is undone then (its row
 * locks let go, its inserted rows gone) and the transaction goes on. Either way the lock_timeout is
 * back to the session's when it returns. For a writer that must not wait long while holding rows
 * that another waits for (src/modules/aggregates/README.md, "Locking").
 */
export async function withinLockTimeout<T>(
  tx: Sql,
  timeout: SqlFragment,
  work: () => Promise<T>,
): Promise<T | typeof WAITED_TOO_LONG> {
  await tx.execute(sql`SAVEPOINT within_lock_timeout`);
  await tx.query(sql`SELECT set_config('lock_timeout', ${timeout}, true)`);
  let result: T;
  try {
    result = await work();
  } catch (error) {
    if ((error as { code?: unknown }).code !== LOCK_NOT_AVAILABLE) throw error;
    // Also takes the lock_timeout back: it was set after the savepoint.
    await tx.execute(sql`ROLLBACK TO SAVEPOINT within_lock_timeout`);
    return WAITED_TOO_LONG;
  }
  await tx.execute(sql`RELEASE SAVEPOINT within_lock_timeout`);
  await tx.execute(sql`SET LOCAL lock_timeout TO DEFAULT`);
  return result;
}

/** Half the server's deadlock_timeout (500 ms by default), at least 1 ms. */
export const HALF_OF_DEADLOCK_TIMEOUT = sql`GREATEST(1,
  (EXTRACT(EPOCH FROM current_setting('deadlock_timeout')::interval) * 500)::int)::text`;

/** The SQLSTATE of a wait that outlasted lock_timeout. */
const LOCK_NOT_AVAILABLE = '55P03';
