import { ExecutionContext, Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerModuleOptions,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import { APP_CONFIG, AppConfig } from '../../config/config';
import { AuthenticatedRequest } from '../auth/auth';
import { IS_PUBLIC } from '../auth/public.decorator';
import { Metrics } from '../metrics/metrics.service';
import { RedisThrottlerStorage } from './redis-throttler-storage';
import { SlidingWindowThrottlerStorage } from './throttler-storage';

/**
 * Rate limits per API key (after ApiKeyGuard has identified it) rather than per client address.
 * With REDIS_URL the hits are kept in Redis, one budget per key for every process using it;
 * without it, in this process's memory (SlidingWindowThrottlerStorage, which answers like the
 * module's default storage at a constant cost per request), one budget per key per process. The
 * module's storage is still injected, because the base class declares its constructor parameters
 * and Nest reads those declarations for subclasses too, but this guard, its only user, never
 * calls it.
 */
@Injectable()
export class KeyThrottlerGuard extends ThrottlerGuard implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() _moduleStorage: ThrottlerStorage,
    reflector: Reflector,
    @Inject(APP_CONFIG) config: AppConfig,
    metrics: Metrics,
  ) {
    const { redisUrl } = config.operations;
    super(
      options,
      redisUrl === undefined
        ? new SlidingWindowThrottlerStorage()
        : new RedisThrottlerStorage(redisUrl, () => metrics.rateLimitStorageErrors.inc()),
      reflector,
    );
  }

  override async onModuleInit(): Promise<void> {
    await super.onModuleInit();
    if (this.storageService instanceof RedisThrottlerStorage) await this.storageService.connect();
  }

  protected override getTracker(request: Record<string, unknown>): Promise<string> {
    const { auth, ip } = request as unknown as AuthenticatedRequest;
    return Promise.resolve(auth ? `key:${auth.keyId}` : `ip:${String(ip)}`);
  }

  /**
   * One budget per key across all routes, as RATE_LIMIT_PER_MINUTE promises. (The base class keys
   * the hits by controller and handler as well, which would give a key a separate budget on every
   * route, and hashes that text with SHA-256 on every request.)
   */
  protected override generateKey(_context: ExecutionContext, tracker: string, throttlerName: string): string {
    return `${throttlerName}:${tracker}`;
  }

  protected override shouldSkip(context: ExecutionContext): Promise<boolean> {
    return Promise.resolve(
      this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]) === true,
    );
  }

  async onApplicationShutdown(): Promise<void> {
    const storage = this.storageService;
    if (storage instanceof RedisThrottlerStorage) await storage.close();
    else if (storage instanceof SlidingWindowThrottlerStorage) storage.onApplicationShutdown();
  }
}
