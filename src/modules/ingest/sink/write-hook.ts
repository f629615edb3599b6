import type { Sql } from '../../../database/db.service';
import type { WrittenRecords } from './pending-writes';

/**
 * Work that belongs in the transaction that writes the records, so that it commits or rolls back
 * with them: a live source's position in its chain. A hook
 * that throws rolls the transaction back, like a failed write.
 */
export interface WriteHook {
  /**
   * After the sink has written records: under the per-batch policy once per source batch (an
   * empty one too), under whole-input once per group of records written together (up to
   * rowsPerLoad of them: 5,000 on PostgreSQL, 500 on SQLite).
   */
  afterBatch?(tx: Sql, records: WrittenRecords): Promise<void>;

  /** Once per transaction, after its last batch and just before it commits. */
  beforeCommit?(tx: Sql): Promise<void>;
}
