/**
 * Computed stats, kept while they are still exact.
 *
 * Stats are exact aggregates over holdings and transactions: for a tag of 10,000 addresses that is
 * a few hundred milliseconds of database time (seconds at 10M transactions), for the busiest
 * address hundreds of milliseconds at 10M transactions, and ten concurrent requests queued for
 * seconds (bench/README.md). An address's stats change only when the data does, a tag's also when
 * its addresses do, and both are counted (migration 1763700000011), so an entry is keyed by what
 * it describes and the revisions it depends on, read before the stats are computed. A request that
 * read the revisions before a change committed may be answered with stats from before or after it,
 * as it could have been without the cache; every request that reads them after the commit misses
 * and computes afresh.
 *
 * Concurrent requests for the same key share one computation. A failed computation is not kept.
 * The least recently used entries go first once `capacity` is reached.
 */
export class StatsCache<T> {
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
