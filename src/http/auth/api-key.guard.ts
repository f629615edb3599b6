import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { API_KEY_VERIFIER, ApiKeyVerifier, AuthenticatedRequest } from './auth';
import { ApiError } from '../../core/errors';
import { IS_PUBLIC } from './public.decorator';

export const API_KEY_HEADER = 'x-api-key';
/** The query parameter that may carry the key; every route accepts it. */
export const API_KEY_PARAMETER = 'api_key';
export const KEY_REJECTED = 'The API key is unknown, revoked or expired.';

/** Global guard: every route needs an active key, from `?api_key=` or the `X-API-Key` header, unless marked @Public(). */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(API_KEY_VERIFIER) private readonly accounts: ApiKeyVerifier,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const key = presentedKey(request);
    if (key === undefined) {
      throw new ApiError(
        'UNAUTHORIZED',
        'An API key is required: pass it as the api_key query parameter or the X-API-Key header.',
      );
    }
    const owner = key === '' ? undefined : await this.accounts.authenticate(key);
    if (!owner) throw new ApiError('UNAUTHORIZED', KEY_REJECTED);
    request.auth = owner;
    return true;
  }
}

function presentedKey(request: AuthenticatedRequest): string | undefined {
  const fromQuery: unknown = request.query[API_KEY_PARAMETER];
  if (fromQuery !== undefined) return typeof fromQuery === 'string' ? fromQuery : '';
  const fromHeader = request.headers[API_KEY_HEADER];
  if (fromHeader !== undefined) return typeof fromHeader === 'string' ? fromHeader : '';
  return undefined;
}
