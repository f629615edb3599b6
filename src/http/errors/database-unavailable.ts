/** Seconds a client is told to wait (Retry-After) when the database cannot be reached. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** Socket errors of a connection that cannot be opened or was cut. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);

/**
 * PostgreSQL SQLSTATEs meaning "no usable server": connection exceptions (class 08), the server
 * shutting down or starting up (57P01 admin_shutdown, 57P02 crash_shutdown, 57P03
 * cannot_connect_now) and no free connection slot (53300 too_many_connections).
 */
const POSTGRES_UNAVAILABLE = /^(08...|57P0[123]|53300)$/;

/**
 * SQLite result codes (with their extended forms) meaning the file cannot be used right now: it
 * cannot be opened, the disk fails, or another process held the write lock for longer than the
 * busy timeout (a long import).
 */
const SQLITE_UNAVAILABLE = /^SQLITE_(CANTOPEN|IOERR|BUSY)(_|$)/;

/** node-postgres reports a lost or never-opened connection by message only, without a code. */
const POSTGRES_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect$/,
  /^Client has encountered a connection error and is not queryable$/,
  /^Client was closed and is not queryable$/,
];

/**
 * Whether an error means the database cannot be reached (as opposed to a statement that failed):
 * the pool could not connect, the connection was lost mid-request, or the server is shutting down.
 * Looks through the wrappers drivers and TypeORM put around the original error.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 3) return false;
  const { code, message, driverError, cause, errors } = error as {
    code?: unknown;
    message?: unknown;
    driverError?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || POSTGRES_UNAVAILABLE.test(code) || SQLITE_UNAVAILABLE.test(code)) return true;
  }
  if (typeof message === 'string' && POSTGRES_MESSAGES.some((pattern) => pattern.test(message))) return true;
  if (Array.isArray(errors) && errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return isDatabaseUnavailable(driverError, depth + 1) || isDatabaseUnavailable(cause, depth + 1);
}
