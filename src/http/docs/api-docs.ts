import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';
import { ERROR_STATUS, ErrorCode, reasonPhrase } from '../../core/errors';
import { MAX_TAGS_PER_ADDRESS, TAG_RULE } from '../../core/tags/tag-rules';
import { KEY_REJECTED } from '../auth/api-key.guard';
import { READ_ONLY_MESSAGE } from '../auth/key-access.guard';
import { INTERNAL_MESSAGE, noRoute, RATE_LIMITED_MESSAGE } from '../errors/api-exception.filter';
import { BODY_TOO_LARGE, JSON_REQUIRED } from '../json-body';
import { unknownParameter } from '../validation/validation';

/** The example of INVALID_QUERY, in the error body's schema and in the route examples. */
const UNKNOWN_LIMIT = unknownParameter('limit').message;

export class ErrorDto {
  @ApiProperty({ example: 400 })
  statusCode!: number;

  @ApiProperty({ example: 'Bad Request' })
  error!: string;

  @ApiProperty({ enum: Object.keys(ERROR_STATUS), example: 'INVALID_QUERY' })
  code!: string;

  @ApiProperty({ example: UNKNOWN_LIMIT })
  message!: string;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'object' },
    description: 'Per-item problems, where there are several.',
  })
  details?: unknown[];
}

/**
 * One example message per code: the very text the service sends where it is fixed, written here
 * only where the message is built from the request or lives in a feature module.
 */
const EXAMPLE_MESSAGES: Record<ErrorCode, string> = {
  UNAUTHORIZED: KEY_REJECTED,
  READ_ONLY_KEY: READ_ONLY_MESSAGE,
  INVALID_TAG: TAG_RULE,
  INVALID_ADDRESS: 'Not an address of any supported chain: "0x12"',
  INVALID_BODY: 'The body must be a JSON array of 1 to 1000 address strings.',
  INVALID_QUERY: UNKNOWN_LIMIT,
  BAD_REQUEST: 'Bad request',
  INVALID_WEBHOOK_URL: 'The webhook URL must not resolve to a loopback, private or link-local address.',
  TAG_NOT_FOUND: 'No tag "whales" in this account.',
  NOT_FOUND: noRoute('GET', '/v2/nothing'),
  WEBHOOK_NOT_FOUND: 'No webhook "wh_3kTq8b2PZ4w6X9rYc1dV" in this account.',
  DELIVERY_NOT_FOUND: 'No delivery "evt_2Nf8kq0sVb7WcX4yZ1mR5t" of webhook "wh_3kTq8b2PZ4w6X9rYc1dV".',
  TRANSACTION_NOT_FOUND: 'No transaction "ethereum:0x5c50…:native".',
  TAG_EXISTS: 'The account has a tag "whales" already.',
  PAYLOAD_TOO_LARGE: BODY_TOO_LARGE,
  UNSUPPORTED_MEDIA_TYPE: JSON_REQUIRED,
  TAG_LIMIT_EXCEEDED: `An address can carry at most ${MAX_TAGS_PER_ADDRESS} tags.`,
  WEBHOOK_LIMIT_EXCEEDED: 'An account can have at most 20 webhooks.',
  RATE_LIMITED: RATE_LIMITED_MESSAGE,
  INTERNAL: INTERNAL_MESSAGE,
  DATABASE_UNAVAILABLE: 'The database does not answer.',
};

/**
 * Documents the contract errors a route can answer, one response per status listing its codes.
 * Every keyed route can answer UNAUTHORIZED and RATE_LIMITED, and every route INVALID_QUERY
 * (StrictQueryGuard), listed where the route names it or else last.
 */
export function ApiErrors(...codes: ErrorCode[]): MethodDecorator & ClassDecorator {
  const all: ErrorCode[] = ['UNAUTHORIZED', 'RATE_LIMITED', ...codes];
  if (!all.includes('INVALID_QUERY')) all.push('INVALID_QUERY');
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of all) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  return applyDecorators(
    ...[...byStatus.entries()].map(([status, statusCodes]) =>
      ApiResponse({
        status,
        description: `${reasonPhrase(status)}: ${statusCodes.join(', ')}`,
        type: ErrorDto,
        example: {
          statusCode: status,
          error: reasonPhrase(status),
          code: statusCodes[0],
          message: EXAMPLE_MESSAGES[statusCodes[0]!],
        },
      }),
    ),
  );
}
