import { logRangeAfterRefusal, rpcFailure } from './log-range-advice';

export interface Pieces<T> {
  logs: T[];
  /** The most blocks a piece spanned at the end: what the provider accepted last. */
  span: bigint;
}

/**
 * Runs one `eth_getLogs` filter over [from, to] in consecutive pieces of at most `span` blocks.
 * When the provider refuses a piece as too large (log-range-advice), the piece is asked again with
 * the range the provider suggests, else half; the smaller span then holds for the rest of the range.
 * A refusal of a single block, and any other failure, propagates.
 */
export async function logsInPieces<T>(
  query: (from: bigint, to: bigint) => Promise<T[]>,
  from: bigint,
  to: bigint,
  span: bigint,
): Promise<Pieces<T>> {
  const logs: T[] = [];
  let blocks = span < 1n ? 1n : span;
  for (let start = from; start <= to;) {
    const end = start + blocks - 1n < to ? start + blocks - 1n : to;
    try {
      const piece = await query(start, end);
      for (const log of piece) logs.push(log);
      start = end + 1n;
    } catch (error) {
      const fewer = logRangeAfterRefusal(rpcFailure(error), end - start + 1n);
      if (fewer === undefined) throw error;
      blocks = fewer;
    }
  }
  return { logs, span: blocks };
}
