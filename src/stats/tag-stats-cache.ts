/**
 * Computed tag stats, kept while they are still exact.
 *
 * A tag's stats are exact aggregates over its addresses' holdings and transactions: for a tag of
 * 10,000 addresses that is a few hundred milliseconds of database time, and ten concurrent
 * requests for it queued for seconds (bench/README.md). They change only when the tag's addresses
 * change or the data does, and both are counted (migration 1763700000011), so an entry is keyed
 * by the tag, the tag's revision and the data revision, read before the stats are computed. A
 * request that read the revisions before a change committed may be answered with stats from
 * before or after it, as it could have been without the cache; every request that reads them
 * after the commit misses and computes afresh.
 *
 * Concurrent requests for the same key share one computation. A failed computation is not kept.
 * The least recently used entries go first once `capacity` is reached.
 */
export class TagStatsCache<T> {
  private readonly entries = new Map<string, Promise<T>>();

  constructor(private readonly capacity: number) {}

  get(key: string, compute: () => Promise<T>): Promise<T> {
    const cached = this.entries.get(key);
    if (cached !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, cached);
      return cached;
    }
    const computed = compute();
    this.entries.set(key, computed);
    computed.catch(() => {
      if (this.entries.get(key) === computed) this.entries.delete(key);
    });
    while (this.entries.size > this.capacity) {
      this.entries.delete(this.entries.keys().next().value!);
    }
    return computed;
  }

  get size(): number {
    return this.entries.size;
  }
}
