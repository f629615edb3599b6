/**
 * What a node client says when fetch itself failed (no HTTP answer), for a person and without the
 * node's URL: fetch's own errors name the host and port in their causes, so only the error code's
 * meaning is repeated. Read by shape, not `instanceof`: fetch's errors may come from another realm
 * (jest's test sandbox).
 */
export function describeTransportError(error: unknown, timeoutMs: number): string {
  const name = fieldOf(error, 'name');
  if (name === 'TimeoutError' || name === 'AbortError') {
    return `no answer within ${timeoutMs} ms`;
  }
  const code = causeCode(error);
  if (code === undefined) return 'the request failed';
  switch (code) {
    case 'ECONNREFUSED':
      return 'the connection was refused';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'the connection was closed before an answer';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name did not resolve';
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'the connection timed out';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'the host is unreachable';
    default:
      return `the request failed (${code})`;
  }
}

/**
 * Why a client's request failed below HTTP, when the error it threw wraps fetch's (viem's
 * `HttpRequestError` does, and says only "HTTP request failed."): the meaning of the socket's error
 * code, as describeTransportError gives it, or undefined when there is none.
 */
export function wrappedTransportError(error: unknown): string | undefined {
  const wrapped = fieldOf(error, 'cause');
  return causeCode(wrapped) === undefined ? undefined : describeTransportError(wrapped, 0);
}

function causeCode(error: unknown): string | undefined {
  const code = fieldOf(fieldOf(error, 'cause'), 'code');
  // Only an error code's own shape is repeated: nothing that could carry an address.
  return typeof code === 'string' && /^[A-Z_]{2,40}$/.test(code) ? code : undefined;
}

function fieldOf(value: unknown, field: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[field] : undefined;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
