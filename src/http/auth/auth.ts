import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

/** Whom an active API key belongs to. */
export interface KeyOwner {
  keyId: number;
  accountId: number;
  /** The key's first characters, the most of it a log may show. */
  prefix: string;
  /** A read-only key: GET and HEAD only (KeyAccessGuard). */
  readOnly: boolean;
}

/**
 * What the API key guard needs from the accounts module: the owner of an active key. The accounts
 * module provides it under this token, so the transport layer never imports a feature.
 */
export interface ApiKeyVerifier {
  authenticate(key: string): Promise<KeyOwner | undefined>;
}
export const API_KEY_VERIFIER = Symbol('ApiKeyVerifier');

export type AuthenticatedRequest = Request & { auth?: KeyOwner; id?: string };

/** The account the calling API key belongs to; tags and everything derived from them are scoped by it. */
export const AccountId = createParamDecorator((_data: unknown, context: ExecutionContext): number => {
  const auth = context.switchToHttp().getRequest<AuthenticatedRequest>().auth;
  if (!auth) throw new Error('AccountId used on a route without the API key guard');
  return auth.accountId;
});

/**
 * The calling API key's first 12 characters, as the key's owner recorded it: what a tag's history
 * keeps of who made a change (never the key).
 */
export const CallerKey = createParamDecorator((_data: unknown, context: ExecutionContext): string => {
  const auth = context.switchToHttp().getRequest<AuthenticatedRequest>().auth;
  if (!auth) throw new Error('CallerKey used on a route without the API key guard');
  return auth.prefix;
});
