import { Logger } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import Redis from 'ioredis';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/** How long a request waits for Redis before it is let through unlimited. */
const COMMAND_TIMEOUT_MS = 1000;

/**
 * The rate limiter's hits in Redis, so that every process using the same Redis shares one budget
 * per key. The counting is @nest-lab/throttler-storage-redis' script: a fixed window that starts
 * with a key's first request (the in-memory storage slides instead), run atomically in Redis.
 *
 * When Redis does not answer within COMMAND_TIMEOUT_MS, or is not connected, the request is let
 * through unlimited rather than failed: rate limiting protects the service, and an outage of its
 * counter should not become an outage of the API. Each such request is counted (`onFailure`, the
 * metric `chaintags_rate_limit_storage_errors_total`), and the log says when it starts and ends.
 */
export class RedisThrottlerStorage implements ThrottlerStorage {
  private readonly logger = new Logger('RateLimit');
  private readonly redis: Redis;
  private readonly counting: ThrottlerStorageRedisService;
  private failing = false;

  constructor(
    url: string,
    private readonly onFailure: () => void,
  ) {
    this.redis = new Redis(url, {
      keyPrefix: 'chaintags:throttle:',
      lazyConnect: true,
      // Fail at once while disconnected rather than queueing requests behind a reconnect.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: COMMAND_TIMEOUT_MS,
    });
    // Connection errors are retried by ioredis and reported through failing requests.
    this.redis.on('error', () => undefined);
    this.counting = new ThrottlerStorageRedisService(this.redis);
  }

  /** Connects before the first request; an unreachable Redis is logged, and retried in the background. */
  async connect(): Promise<void> {
    try {
      await this.redis.connect();
    } catch (error) {
      this.report(error);
    }
  }

  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    try {
      const record = await this.counting.increment(key, ttl, limit, blockDuration, throttlerName);
      if (this.failing) {
        this.failing = false;
        this.logger.log('Redis answers again: requests are rate limited again');
      }
      return record;
    } catch (error) {
      this.onFailure();
      this.report(error);
      return { totalHits: 0, timeToExpire: 0, isBlocked: false, timeToBlockExpire: 0 };
    }
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private report(error: unknown): void {
    if (this.failing) return;
    this.failing = true;
    this.logger.warn(
      { err: error },
      'Redis does not answer: requests are not rate limited until it does (REDIS_URL, docs/operations.md "Replicas and workers")',
    );
  }
}
