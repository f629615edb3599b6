import { OnApplicationShutdown } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';

interface ThrottlerRecord {
  expiresAt: number;
  blockExpiresAt: number;
  isBlocked: boolean;
  /** Per throttler name: when each counted hit stops counting, oldest first. */
  hits: Map<string, HitQueue>;
}

/**
 * The expiry times of one key's counted hits, oldest first. Expired hits leave from the front, so
 * a request costs O(1) however many hits the window holds; the array is compacted once the
 * expired part is at least half of it.
 */
class HitQueue {
  private expiries: number[] = [];
  private head = 0;

  get size(): number {
    return this.expiries.length - this.head;
  }

  /** The first hit to expire, if any. */
  get oldest(): number | undefined {
    return this.head < this.expiries.length ? this.expiries[this.head] : undefined;
  }

  push(expiresAt: number): void {
    this.expiries.push(expiresAt);
  }

  prune(now: number): void {
    while (this.head < this.expiries.length && this.expiries[this.head]! <= now) this.head += 1;
    if (this.head >= 1024 && this.head * 2 >= this.expiries.length) {
      this.expiries = this.expiries.slice(this.head);
      this.head = 0;
    }
  }

  clear(): void {
    this.expiries = [];
    this.head = 0;
  }

  hasLive(now: number): boolean {
    return this.expiries.length > this.head && this.expiries[this.expiries.length - 1]! > now;
  }
}

const SWEEP_INTERVAL_MS = 60_000;

/**
 * The per-key rate limiter's memory: @nestjs/throttler's own ThrottlerStorageService, answer for
 * answer, without its cost. That one filters every hit of the window on every request, so a key
 * allowed N requests a minute pays O(N) per request (a busy key with RATE_LIMIT_PER_MINUTE raised
 * to 100,000 pays for up to 100,000 hits each time). Here expired hits leave from the front of a
 * queue.
 *
 * Every hit of one key expires the same time after it is counted (the key names the route and
 * throttler, which fix the ttl), so hits expire in the order they were counted for as long as the
 * system clock runs forward; were it set back, a hit could count for up to that step longer.
 */
export class SlidingWindowThrottlerStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly records = new Map<string, ThrottlerRecord>();
  private sweep: NodeJS.Timeout | undefined;

  increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<{ totalHits: number; timeToExpire: number; isBlocked: boolean; timeToBlockExpire: number }> {
    this.sweep ??= setInterval(() => this.evictIdle(), SWEEP_INTERVAL_MS).unref();
    const now = Date.now();
    let record = this.records.get(key);
    if (record === undefined) {
      record = { expiresAt: now + ttl, blockExpiresAt: 0, isBlocked: false, hits: new Map() };
      this.records.set(key, record);
    }
    let hits = record.hits.get(throttlerName);
    if (hits === undefined) {
      hits = new HitQueue();
      record.hits.set(throttlerName, hits);
    }
    hits.prune(now);
    let timeToExpire = seconds(record.expiresAt - now);
    if (timeToExpire <= 0) {
      record.expiresAt = now + ttl;
      timeToExpire = seconds(record.expiresAt - now);
    }

    if (blockDuration <= 0) {
      const isBlocked = hits.size >= limit;
      if (!isBlocked) hits.push(now + ttl);
      const oldest = hits.oldest;
      return Promise.resolve({
        totalHits: hits.size + (isBlocked ? 1 : 0),
        timeToExpire,
        isBlocked,
        timeToBlockExpire: isBlocked ? (oldest === undefined ? timeToExpire : seconds(oldest - now)) : 0,
      });
    }

    if (!record.isBlocked) hits.push(now + ttl);
    if (hits.size > limit && !record.isBlocked) {
      record.isBlocked = true;
      record.blockExpiresAt = now + blockDuration;
    }
    const timeToBlockExpire = seconds(record.blockExpiresAt - now);
    if (timeToBlockExpire <= 0 && record.isBlocked) {
      record.isBlocked = false;
      hits.clear();
      hits.push(now + ttl);
    }
    return Promise.resolve({ totalHits: hits.size, timeToExpire, isBlocked: record.isBlocked, timeToBlockExpire });
  }

  onApplicationShutdown(): void {
    if (this.sweep !== undefined) clearInterval(this.sweep);
    this.sweep = undefined;
    this.records.clear();
  }

  /** Forgets keys that are neither blocked nor holding a live hit, as the library's storage does. */
  private evictIdle(now = Date.now()): void {
    for (const [key, record] of this.records) {
      if (record.isBlocked && record.blockExpiresAt > now) continue;
      if (record.expiresAt > now) continue;
      if ([...record.hits.values()].some((hits) => hits.hasLive(now))) continue;
      this.records.delete(key);
    }
  }
}

function seconds(milliseconds: number): number {
  return Math.ceil(milliseconds / 1000);
}
