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

/**
 * Consecutive blocks from `from`, weighed by `weights` (one per block), cut into pieces of at most
 * `limit` in weight. A block heavier than the limit gets a piece of its own, which the weightless
 * blocks after it join.
 */
export function piecesByWeight(from: bigint, weights: readonly number[], limit: number): [bigint, bigint][] {
  const pieces: [bigint, bigint][] = [];
  let start = 0;
  let weight = 0;
  weights.forEach((blockWeight, i) => {
    if (i > start && blockWeight > 0 && weight + blockWeight > limit) {
      pieces.push([from + BigInt(start), from + BigInt(i - 1)]);
      start = i;
      weight = 0;
    }
    weight += blockWeight;
  });
  if (weights.length > 0) pieces.push([from + BigInt(start), from + BigInt(weights.length - 1)]);
  return pieces;
}
