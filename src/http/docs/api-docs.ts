import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';
import { ERROR_STATUS, ErrorCode, reasonPhrase } from '../../core/errors';

export class ErrorDto {
  @ApiProperty({ example: 400 })
  statusCode!: number;

  @ApiProperty({ example: 'Bad Request' })
  error!: string;

  @ApiProperty({ enum: Object.keys(ERROR_STATUS), example: 'INVALID_QUERY' })
  code!: string;

  @ApiProperty({ example: 'unknown query parameter "limit"' })
  message!: string;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'object' },
    description: 'Per-item problems, where there are several.',
  })
  details?: unknown[];
}

const EXAMPLE_MESSAGES: Record<ErrorCode, string> = {
  UNAUTHORIZED: 'The API key is unknown or has been revoked.',
  INVALID_TAG: 'Tags are 5-64 characters of a-z, 0-9 and "_", or the reserved "0".',
  INVALID_ADDRESS: 'Not an address of any supported chain: "0x12"',
  INVALID_BODY: 'The body must be a JSON array of 1 to 1000 address strings.',
  INVALID_QUERY: 'unknown query parameter "limit"',
  BAD_REQUEST: 'Bad request',
  TAG_NOT_FOUND: 'No tag "whales" in this account.',
  NOT_FOUND: 'No route GET /v2/nothing',
  PAYLOAD_TOO_LARGE: 'The request body is larger than 1 MiB.',
  UNSUPPORTED_MEDIA_TYPE: 'Send the body as JSON with the header Content-Type: application/json.',
  TAG_LIMIT_EXCEEDED: 'An address can carry at most 50 tags.',
  RATE_LIMITED: 'Rate limit exceeded for this API key; retry after the number of seconds in Retry-After.',
  INTERNAL: 'Internal server error; the request id in X-Request-Id identifies it in the logs.',
  DATABASE_UNAVAILABLE: 'The database does not answer.',
};

/** Documents the contract errors a route can answer, one response per status listing its codes. */
export function ApiErrors(...codes: ErrorCode[]): MethodDecorator & ClassDecorator {
  const all: ErrorCode[] = ['UNAUTHORIZED', 'RATE_LIMITED', ...codes];
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
