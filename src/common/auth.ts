import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { KeyOwner } from '../accounts/accounts.repository';

export type AuthenticatedRequest = Request & { auth?: KeyOwner; id?: string };

/** The account the calling API key belongs to; tags and everything derived from them are scoped by it. */
export const AccountId = createParamDecorator((_data: unknown, context: ExecutionContext): number => {
  const auth = context.switchToHttp().getRequest<AuthenticatedRequest>().auth;
  if (!auth) throw new Error('AccountId used on a route without the API key guard');
  return auth.accountId;
});
