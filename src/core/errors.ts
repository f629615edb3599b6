/** The error codes of the API contract, each with the one HTTP status it is answered with. */
export const ERROR_STATUS = {
  UNAUTHORIZED: 401,
  READ_ONLY_KEY: 403,
  INVALID_TAG: 400,
  INVALID_ADDRESS: 400,
  INVALID_BODY: 400,
  INVALID_QUERY: 400,
  BAD_REQUEST: 400,
  INVALID_WEBHOOK_URL: 400,
  TAG_NOT_FOUND: 404,
  NOT_FOUND: 404,
  WEBHOOK_NOT_FOUND: 404,
  DELIVERY_NOT_FOUND: 404,
  TRANSACTION_NOT_FOUND: 404,
  TAG_EXISTS: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  TAG_LIMIT_EXCEEDED: 422,
  WEBHOOK_LIMIT_EXCEEDED: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  DATABASE_UNAVAILABLE: 503,
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
  403: 'Forbidden',
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
