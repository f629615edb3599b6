import { ExecutionContext, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerModuleOptions,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import { AuthenticatedRequest } from '../auth/auth';
import { IS_PUBLIC } from '../auth/public.decorator';
import { SlidingWindowThrottlerStorage } from './throttler-storage';

/**
 * Rate limits per API key (after ApiKeyGuard has identified it) rather than per client address.
 * The hits are kept in SlidingWindowThrottlerStorage, which answers like the module's default
 * storage at a constant cost per request. The module's storage is still injected, because the
 * base class declares its constructor parameters and Nest reads those declarations for subclasses
 * too, but this guard, its only user, never calls it.
 */
@Injectable()
export class KeyThrottlerGuard extends ThrottlerGuard implements OnApplicationShutdown {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() _moduleStorage: ThrottlerStorage,
    reflector: Reflector,
  ) {
    super(options, new SlidingWindowThrottlerStorage(), reflector);
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

  onApplicationShutdown(): void {
    (this.storageService as SlidingWindowThrottlerStorage).onApplicationShutdown();
  }
}
