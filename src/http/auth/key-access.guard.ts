import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ApiError } from '../../core/errors';
import type { AuthenticatedRequest } from './auth';

/** The methods a read-only key may use. */
const READING = new Set(['GET', 'HEAD']);

export const READ_ONLY_MESSAGE = 'This API key may only read (GET and HEAD); a key with full access makes changes.';

/**
 * Global guard after the rate limit: a read-only key (`keys create --read-only`) is refused on
 * every route but a GET or HEAD, before its query, body or path is looked at, so that it changes
 * nothing whatever the request. Public routes have no key and pass.
 */
@Injectable()
export class KeyAccessGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    if (request.auth?.readOnly === true && !READING.has(request.method)) {
      throw new ApiError('READ_ONLY_KEY', READ_ONLY_MESSAGE);
    }
    return true;
  }
}
