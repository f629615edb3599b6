import { Injectable } from '@nestjs/common';
import type { Sql } from '../../../database/db.service';
import { bumpDataRevision } from '../../../database/revisions';
import type { WriteHook } from './write-hook';

/**
 * What chaintags keeps in step with the data, updated in the transaction that writes it, so that
 * what is kept is never ahead of or behind what is committed. Stats are cached per data revision
 * (src/modules/stats/stats-cache.ts): every committed write transaction moves it on once, which
 * tells every instance on the database to recompute what it had kept. Aggregates kept per address
 * or per tag follow each batch in afterBatch.
 */
@Injectable()
export class KeptStateHook implements WriteHook {
  async beforeCommit(tx: Sql): Promise<void> {
    await bumpDataRevision(tx);
  }
}
