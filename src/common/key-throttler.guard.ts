import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard } from '@nestjs/throttler';
import { AuthenticatedRequest } from './auth';
import { IS_PUBLIC } from './public.decorator';

/** Rate limits per API key (after ApiKeyGuard has identified it) rather than per client address. */
@Injectable()
export class KeyThrottlerGuard extends ThrottlerGuard {
  protected override getTracker(request: Record<string, unknown>): Promise<string> {
    const { auth, ip } = request as unknown as AuthenticatedRequest;
    return Promise.resolve(auth ? `key:${auth.keyId}` : `ip:${String(ip)}`);
  }

  protected override shouldSkip(context: ExecutionContext): Promise<boolean> {
    return Promise.resolve(
      this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]) === true,
    );
  }
}
