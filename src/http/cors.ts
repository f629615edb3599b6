import type { CorsOptions } from '@nestjs/common/interfaces/external/cors-options.interface';

/** The request headers a page may send: the key, a JSON body, a creation's idempotency key, a conditional GET. */
export const CORS_REQUEST_HEADERS = ['Content-Type', 'X-API-Key', 'Idempotency-Key', 'If-None-Match'];

/**
 * The response headers a page may read besides the ones every browser shows: paging, conditional
 * requests, the rate limit, the request id to quote, a replayed creation.
 */
export const CORS_RESPONSE_HEADERS = [
  'Link',
  'ETag',
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-Request-Id',
  'Idempotent-Replayed',
];

/**
 * Cross-origin access for pages on `origins` (docs/operations.md, "Browsers"). Keys travel in a
 * header or the query string, never in cookies, so no credentials are allowed: a page calls with
 * a key it holds, and no page can borrow a browser's session. A preflight is answered before the
 * routes (no key, no rate limit) and may be cached by the browser for ten minutes.
 */
export function corsOptions(origins: '*' | readonly string[]): CorsOptions {
  return {
    origin: origins === '*' ? '*' : [...origins],
    methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
    allowedHeaders: CORS_REQUEST_HEADERS,
    exposedHeaders: CORS_RESPONSE_HEADERS,
    credentials: false,
    maxAge: 600,
  };
}
