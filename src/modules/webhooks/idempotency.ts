import { createHash } from 'node:crypto';
import { ApiError } from '../../core/errors';
import type { WebhookInput } from './dto/webhook-input';
import { SUBSCRIBABLE_EVENTS } from './webhook-events';

/**
 * `Idempotency-Key` on `POST /v2/webhooks`: a client that lost the answer to a creation (a timeout,
 * a dropped connection) sends the request again with the same key and gets the webhook it created,
 * not a second one that would deliver every event twice. The other webhook routes need no key: a
 * PATCH or DELETE sent twice leaves what one leaves, a second ping is one more ping, and a
 * rotate-secret sent again answers the secret that then signs.
 */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** Sent with an answer that is the webhook an earlier request with the same key created. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** 1 to 255 visible ASCII characters: a UUID, as clients generate them, and most other schemes. */
const KEY = /^[\x21-\x7e]{1,255}$/;

/** The header's key; BAD_REQUEST when it is sent and does not follow the rule. */
export function idempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (!KEY.test(header)) {
    throw new ApiError('BAD_REQUEST', `${IDEMPOTENCY_KEY_HEADER} must be 1 to 255 visible ASCII characters.`);
  }
  return header;
}

/**
 * What makes two creations the same request: the body's fields after their checks, the defaults
 * filled in and the lists in one order, so that a retry that spells the body differently (other
 * whitespace, fields in another order, the default events written out) is still the same request.
 */
export function requestFingerprint(input: WebhookInput): string {
  const canonical = {
    url: input.url,
    tags: [...(input.tags ?? [])].sort(),
    chains: input.chains ?? null,
    events: input.events ?? SUBSCRIBABLE_EVENTS,
    description: input.description ?? null,
    // Only when set: a creation retried across the upgrade that added them is the same request.
    ...(input.min_value_usd === undefined || input.min_value_usd === null
      ? {}
      : { min_value_usd: input.min_value_usd }),
    ...(input.tokens === undefined || input.tokens === null ? {} : { tokens: input.tokens }),
  };
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

/** The key was used by an earlier creation with another body. */
export function keyReused(webhookId: string): ApiError {
  return new ApiError(
    'BAD_REQUEST',
    `This ${IDEMPOTENCY_KEY_HEADER} created webhook ${webhookId} with a different request; send a new key for a new webhook.`,
  );
}
