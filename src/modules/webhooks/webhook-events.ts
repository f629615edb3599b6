/**
 * The event types chaintags announces, registered in one list: each names itself, says whether
 * an account may subscribe to it, and describes itself for the docs. Code that needs them (the
 * validation of `events`, the defaults, the OpenAPI enum) reads this list.
 */
export interface WebhookEventType {
  name: string;
  /** Listed in a webhook's `events`; `webhook.ping` is sent on request only. */
  subscribable: boolean;
  description: string;
}

export const WEBHOOK_EVENT_TYPES = [
  {
    name: 'transaction.confirmed',
    subscribable: true,
    description:
      "a transfer a follower recorded whose sender or recipient carries one of the webhook's tags (not backfilled history, not imports)",
  },
  {
    name: 'transaction.removed',
    subscribable: true,
    description: 'an announced transfer that a reorganisation undid',
  },
  { name: 'webhook.ping', subscribable: false, description: 'sent by POST /v2/webhooks/:id/ping' },
] as const satisfies readonly WebhookEventType[];

export type WebhookEventName = (typeof WEBHOOK_EVENT_TYPES)[number]['name'];

export const CONFIRMED: WebhookEventName = 'transaction.confirmed';
export const REMOVED: WebhookEventName = 'transaction.removed';
export const PING: WebhookEventName = 'webhook.ping';

/** The events a webhook may list, and listens to when it lists none. */
export const SUBSCRIBABLE_EVENTS: string[] = WEBHOOK_EVENT_TYPES.filter((type) => type.subscribable).map(
  (type) => type.name,
);
