import { HttpStatus } from '@nestjs/common';

/** The error codes of the API contract, each with the one HTTP status it is answered with. */
export const ERROR_STATUS = {
  UNAUTHORIZED: HttpStatus.UNAUTHORIZED,
  INVALID_TAG: HttpStatus.BAD_REQUEST,
  INVALID_ADDRESS: HttpStatus.BAD_REQUEST,
  INVALID_BODY: HttpStatus.BAD_REQUEST,
  INVALID_QUERY: HttpStatus.BAD_REQUEST,
  BAD_REQUEST: HttpStatus.BAD_REQUEST,
  TAG_NOT_FOUND: HttpStatus.NOT_FOUND,
  NOT_FOUND: HttpStatus.NOT_FOUND,
  PAYLOAD_TOO_LARGE: HttpStatus.PAYLOAD_TOO_LARGE,
  UNSUPPORTED_MEDIA_TYPE: HttpStatus.UNSUPPORTED_MEDIA_TYPE,
  TAG_LIMIT_EXCEEDED: HttpStatus.UNPROCESSABLE_ENTITY,
  RATE_LIMITED: HttpStatus.TOO_MANY_REQUESTS,
  INTERNAL: HttpStatus.INTERNAL_SERVER_ERROR,
  DATABASE_UNAVAILABLE: HttpStatus.SERVICE_UNAVAILABLE,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * A failure the client can act on. Services throw these; the global filter turns them into the
 * contract's error body.
 */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: readonly unknown[],
  ) {
    super(message);
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export interface ErrorBody {
  statusCode: number;
  error: string;
  code: ErrorCode;
  message: string;
  details?: readonly unknown[];
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function reasonPhrase(status: number): string {
  return REASONS[status] ?? 'Error';
}

export function errorBody(code: ErrorCode, message: string, details?: readonly unknown[]): ErrorBody {
  const statusCode = ERROR_STATUS[code];
  return { statusCode, error: reasonPhrase(statusCode), code, message, ...(details ? { details } : {}) };
}
