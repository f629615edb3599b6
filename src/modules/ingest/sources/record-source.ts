import type { RecordInput } from '../../../core/records/record-input';

/**
 * What every source yields: batches of records, each record with the position a person would use
 * to find it (a line number for a file; an ordinal or the like for other sources). The sink checks
 * and writes them; under the per-batch commit policy each batch is committed on its own, so a
 * live source makes a batch of what must be committed together, such as one block range.
 */
export type RecordSource = AsyncIterable<SourceBatch> | Iterable<SourceBatch>;

export interface SourceBatch {
  items: readonly SourceItem[];
  /** The last position the batch covers, when positions without an item follow its last item (blank lines). */
  end?: number;
}

/** A record to check and write, or a position where the source could not make out a record. */
export type SourceItem =
  | { position: number; record: RecordInput; problem?: undefined }
  | { position: number; problem: string; record?: undefined };
