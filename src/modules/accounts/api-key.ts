import { createHash, randomBytes } from 'node:crypto';

export const KEY_PREFIX_LENGTH = 12;

/** A new key: `ctk_` (so secret scanners can spot it) and 256 random bits in base64url. */
export function generateApiKey(): string {
  return `ctk_${randomBytes(32).toString('base64url')}`;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The part of a key that may be shown in listings and logs. */
export function keyPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX_LENGTH);
}
