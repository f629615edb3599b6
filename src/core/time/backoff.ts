/** The pause after `failures` failures in a row: doubling from the interval, capped. */
export function backoff(failures: number, intervalMs: number, maxMs: number): number {
  if (failures <= 0) return intervalMs;
  return Math.min(intervalMs * 2 ** Math.min(failures, 30), maxMs);
}
