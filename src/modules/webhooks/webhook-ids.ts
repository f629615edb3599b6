import { randomBytes } from 'node:crypto';

/** `wh_` + 16 characters of base64url (12 random bytes). */
export const WEBHOOK_ID = /^wh_[A-Za-z0-9_-]{16}$/;

export function newWebhookId(): string {
  return `wh_${randomBytes(12).toString('base64url')}`;
}

/** An event's id, its `webhook-id` header: `evt_` + 22 characters of base64url (16 random bytes). */
export const EVENT_ID = /^evt_[A-Za-z0-9_-]{22}$/;

/** A new event id (EVENT_ID). */
export function newEventId(): string {
  return `evt_${randomBytes(16).toString('base64url')}`;
}

/** `whsec_` + base64 of 32 random bytes, the form Standard Webhooks libraries take as the key. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
