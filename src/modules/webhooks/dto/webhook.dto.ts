import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { CHAIN_IDS } from '../../../core/chains/chain-ids';
import { binaryOrder } from '../../../core/text/binary-order';
import { MAX_DESCRIPTION_LENGTH } from '../../../core/text/description';
import { toIso } from '../../../database/dialect';
import { SUBSCRIBABLE_EVENTS } from '../webhook-events';
import { OneOf } from '../../../http/validation/query-params';
import { PageQueryDto } from '../../../http/validation/query.dto';
import type { DeliveryRow, WebhookRow } from '../webhooks.repository';
import { MAX_REDELIVERIES_NAMED } from './redelivery-input';
import { MAX_MIN_VALUE_USD, MAX_WEBHOOK_TOKENS } from './webhook-input';

export const WEBHOOK_STATUSES = ['active', 'paused', 'disabled'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** A webhook as every answer but create and rotate-secret shows it: never its secret. */
export class WebhookDto {
  @ApiProperty({ example: 'wh_4Jq9xR2mT7vK8pL3nB6cW1', description: 'Starts with `wh_`.' })
  id!: string;

  @ApiProperty({ example: 'https://hooks.example.com/chaintags' })
  url!: string;

  @ApiProperty({ type: [String], example: ['exchange_hot_wallets'], description: 'Sorted.' })
  tags!: string[];

  @ApiProperty({
    type: [String],
    nullable: true,
    enum: CHAIN_IDS,
    example: ['ethereum', 'base'],
    description: 'null: every chain.',
  })
  chains!: string[] | null;

  @ApiProperty({ type: [String], enum: SUBSCRIBABLE_EVENTS, example: SUBSCRIBABLE_EVENTS })
  events!: string[];

  @ApiProperty({ type: String, nullable: true, example: 'hot wallet alerts' })
  description!: string | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    example: 10000,
    description:
      "Extension: only transfers worth at least this many USD (at the token's newest price when the follower records them; a token without a price is worth 0) are announced; null: every transfer.",
  })
  min_value_usd!: number | null;

  @ApiProperty({
    type: [String],
    nullable: true,
    example: ['tether', 'usd-coin'],
    description:
      'Extension: only transfers of these tokens (ids as GET /v2/tokens shows them, sorted) are announced; null: every token.',
  })
  tokens!: string[] | null;

  @ApiProperty({
    enum: WEBHOOK_STATUSES,
    example: 'active',
    description:
      '`disabled`: chaintags stopped delivering after repeated failures (README, "Webhooks"); `PATCH` with `status: active` restarts it.',
  })
  status!: WebhookStatus;

  @ApiProperty({ example: '2026-11-25T10:15:30.123Z' })
  created_at!: string;

  @ApiProperty({ example: '2026-11-25T10:15:30.123Z' })
  updated_at!: string;
}

/** The answer to create and rotate-secret: the only ones that show the secret. */
export class WebhookWithSecretDto extends WebhookDto {
  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description: '`whsec_` + base64 of 32 random bytes: the Standard Webhooks signing key. Shown only here; keep it.',
  })
  secret!: string;
}

export class DeliveryDto {
  @ApiProperty({
    example: 'evt_2Nf8kq0sVb7WcX4yZ1mR5t',
    description: "The event's `webhook-id`, the same on every attempt.",
  })
  id!: string;

  @ApiProperty({ example: 'transaction.confirmed' })
  event_type!: string;

  @ApiProperty({ enum: DELIVERY_STATUSES, example: 'delivered' })
  status!: DeliveryStatus;

  @ApiProperty({ example: 1 })
  attempts!: number;

  @ApiProperty({ type: String, nullable: true, example: '2026-11-25T10:15:31.002Z' })
  last_attempt_at!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'When the next attempt is due (pending only).',
  })
  next_attempt_at!: string | null;

  @ApiProperty({ type: Number, nullable: true, example: 200, description: "The last attempt's HTTP status." })
  response_status!: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'Why the last attempt failed without an HTTP status, or was refused.',
  })
  error!: string | null;

  @ApiProperty({ example: '2026-11-25T10:15:30.998Z' })
  created_at!: string;
}

export class DeliveryWithPayloadDto extends DeliveryDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: {
      type: 'transaction.confirmed',
      timestamp: '2026-11-25T10:15:30.998Z',
      data: {
        transaction: { id: 'ethereum:0x5c50…:native' },
        tags: ['exchange_hot_wallets'],
        token: { id: 'ethereum', symbol: 'ETH', decimals: 18 },
        value_usd: 4680.83,
      },
    },
    description:
      'The body every attempt posts (the same on each, and on a redelivery), as JSON: `type`, `timestamp` and `data` as docs/webhooks.md describes them.',
  })
  payload!: Record<string, unknown>;
}

/** A webhook's description in a create or update body (the rule: core/text/description.ts). */
const DESCRIPTION_FIELD = {
  type: String,
  nullable: true,
  maxLength: MAX_DESCRIPTION_LENGTH,
  example: 'hot wallet alerts',
  description: `What the webhook is for, up to ${MAX_DESCRIPTION_LENGTH} characters without control characters; null or "" for none.`,
};

/** A webhook's tokens in a create or update body (parseWebhookInput). */
const TOKENS_FIELD: ApiPropertyOptions = {
  type: [String],
  nullable: true,
  minItems: 1,
  maxItems: MAX_WEBHOOK_TOKENS,
  example: ['tether', 'usd-coin'],
  description:
    'Extension: announce only transfers of these tokens (ids as GET /v2/tokens shows them; an id no token has is refused); absent or null: every token.',
};

/** A webhook's minimum value in a create or update body (parseWebhookInput). */
const MIN_VALUE_FIELD = {
  type: Number,
  nullable: true,
  minimum: 0,
  maximum: MAX_MIN_VALUE_USD,
  example: 10000,
  description:
    "Extension: announce only transfers worth at least this many USD, at the token's newest price when the follower records them (a token without a price is worth 0); absent or null: every transfer.",
};

export class CreateWebhookDto {
  @ApiProperty({
    example: 'https://hooks.example.com/chaintags',
    description: 'http or https, at most 2048 characters.',
  })
  url!: string;

  @ApiProperty({
    type: [String],
    minItems: 1,
    maxItems: 50,
    example: ['exchange_hot_wallets'],
    description: 'Tags of this account (or `0`, the tracked addresses without a tag).',
  })
  tags!: string[];

  @ApiPropertyOptional({
    type: [String],
    nullable: true,
    enum: CHAIN_IDS,
    minItems: 1,
    description: 'Only these chains; absent or null: every chain.',
  })
  chains?: string[] | null;

  @ApiPropertyOptional({
    type: [String],
    enum: SUBSCRIBABLE_EVENTS,
    minItems: 1,
    description: 'Absent: every event.',
  })
  events?: string[];

  @ApiPropertyOptional(DESCRIPTION_FIELD)
  description?: string | null;

  @ApiPropertyOptional(MIN_VALUE_FIELD)
  min_value_usd?: number | null;

  @ApiPropertyOptional(TOKENS_FIELD)
  tokens?: string[] | null;
}

export class UpdateWebhookDto {
  @ApiPropertyOptional({ description: 'http or https, at most 2048 characters.' })
  url?: string;

  @ApiPropertyOptional({ type: [String], minItems: 1, maxItems: 50 })
  tags?: string[];

  @ApiPropertyOptional({ type: [String], nullable: true, enum: CHAIN_IDS, minItems: 1 })
  chains?: string[] | null;

  @ApiPropertyOptional({ type: [String], enum: SUBSCRIBABLE_EVENTS, minItems: 1 })
  events?: string[];

  @ApiPropertyOptional(DESCRIPTION_FIELD)
  description?: string | null;

  @ApiPropertyOptional(MIN_VALUE_FIELD)
  min_value_usd?: number | null;

  @ApiPropertyOptional(TOKENS_FIELD)
  tokens?: string[] | null;

  @ApiPropertyOptional({
    enum: ['active', 'paused'],
    description: '`paused` stops deliveries; `active` resumes them, also after chaintags disabled the webhook.',
  })
  status?: 'active' | 'paused';
}

export function toWebhook(row: WebhookRow, tags: readonly string[]): WebhookDto {
  return {
    id: row.id,
    url: row.url,
    tags: [...tags].sort(binaryOrder),
    chains: row.chains === null ? null : (JSON.parse(row.chains) as string[]),
    events: JSON.parse(row.events) as string[],
    description: row.description,
    min_value_usd: row.min_value_usd === null ? null : Number(row.min_value_usd),
    tokens: row.tokens === null ? null : (JSON.parse(row.tokens) as string[]),
    status: row.status as WebhookStatus,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  };
}

export function toDeliveryWithPayload(row: DeliveryRow & { body: string }): DeliveryWithPayloadDto {
  return { ...toDelivery(row), payload: JSON.parse(row.body) as Record<string, unknown> };
}

export function toDelivery(row: DeliveryRow): DeliveryDto {
  return {
    id: row.id,
    event_type: row.event_type,
    status: row.status as DeliveryStatus,
    attempts: Number(row.attempts),
    last_attempt_at: row.last_attempt_at === null ? null : toIso(row.last_attempt_at),
    next_attempt_at: row.status !== 'pending' || row.next_attempt_at === null ? null : toIso(row.next_attempt_at),
    response_status: row.response_status === null ? null : Number(row.response_status),
    error: row.error,
    created_at: toIso(row.created_at),
  };
}

export class RedeliverDto {
  @ApiPropertyOptional({
    example: '2026-11-28T18:00:00Z',
    description:
      'Every `failed` delivery recorded at or after this instant (YYYY-MM-DDTHH:MM:SSZ, milliseconds allowed). Send this or `deliveries`.',
  })
  since?: string;

  @ApiPropertyOptional({
    type: [String],
    minItems: 1,
    maxItems: MAX_REDELIVERIES_NAMED,
    example: ['evt_2Nf8kq0sVb7WcX4yZ1mR5t'],
    description: 'These deliveries (their `id` in the delivery log), failed or delivered. Send this or `since`.',
  })
  deliveries?: string[];
}

export class RedeliveredDto {
  @ApiProperty({ example: 12, description: 'How many deliveries are pending again.' })
  redelivered!: number;
}

/** Query of GET /v2/webhooks/:id/deliveries. */
export class DeliveriesQueryDto extends PageQueryDto {
  @OneOf(
    DELIVERY_STATUSES,
    'Only the deliveries in this status: `failed` lists what `POST …/redeliver` can send again.',
  )
  status?: DeliveryStatus;
}
