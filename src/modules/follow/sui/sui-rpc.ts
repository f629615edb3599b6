import { SuiGrpcClient } from '@mysten/sui/grpc';
import { sleep } from '../http-transport';

/**
 * A client of a Sui full node's gRPC API (`sui.rpc.v2`), spoken as gRPC-web over HTTP through
 * `@mysten/sui`'s `SuiGrpcClient`, with fallback URLs: a call that failed for a reason that may pass
 * (UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, INTERNAL, UNKNOWN: the transport's own
 * failures come as INTERNAL) is tried again on the same URL, then on the next one; any other status
 * is the node's answer (`SuiNodeError`: NOT_FOUND, INVALID_ARGUMENT, …). URLs are named "RPC URL
 * #n" in every message, and the transport's errors carry no URL.
 */

export interface SuiRpcOptions {
  /** Per call, default 30 s. */
  timeoutMs?: number;
  /** Further tries of a call that failed for a passing reason on the same URL, default 2. */
  retries?: number;
  /** Wait before the first retry, doubled for each further one, default 500 ms. */
  retryDelayMs?: number;
}

/** The node answered with a status that is its answer, not a failure to answer. */
export class SuiNodeError extends Error {
  constructor(
    /** The gRPC status code's name: `NOT_FOUND`, `INVALID_ARGUMENT`, … */
    readonly code: string,
    readonly method: string,
    detail: string,
  ) {
    super(`${method}: ${detail} (${code})`);
    this.name = 'SuiNodeError';
  }
}

/** No URL answered. */
export class SuiUnavailable extends Error {
  constructor(
    readonly method: string,
    readonly reasons: readonly string[],
  ) {
    super(`no Sui node answered ${method}: ${reasons.join('; ')}`);
    this.name = 'SuiUnavailable';
  }
}

/** Statuses worth another try: the node or the way to it may come back. */
const PASSING = new Set(['UNAVAILABLE', 'DEADLINE_EXCEEDED', 'RESOURCE_EXHAUSTED', 'INTERNAL', 'UNKNOWN', 'CANCELLED']);

/** What one call of a service method gives: protobuf-ts's unary call, whose `response` is the answer. */
export type SuiCall<T> = (client: SuiGrpcClient, options: { abort: AbortSignal }) => { response: Promise<T> };

export class SuiRpc {
  private readonly endpoints: { client: SuiGrpcClient; label: string }[];
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly retryDelayMs: number;

  constructor(urls: readonly string[], network: 'mainnet' | 'localnet', options: SuiRpcOptions = {}) {
    if (urls.length === 0) throw new Error('no Sui RPC URL');
    this.endpoints = urls.map((url, index) => ({
      client: new SuiGrpcClient({ network, baseUrl: url.replace(/\/+$/, '') }),
      label: `RPC URL #${index + 1}`,
    }));
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retries = options.retries ?? 2;
    this.retryDelayMs = options.retryDelayMs ?? 500;
  }

  /** `call` on the first URL that answers; `method` names it in errors. */
  async call<T>(method: string, call: SuiCall<T>): Promise<T> {
    const reasons: string[] = [];
    for (const endpoint of this.endpoints) {
      for (let attempt = 0; ; attempt++) {
        try {
          return await call(endpoint.client, { abort: AbortSignal.timeout(this.timeoutMs) }).response;
        } catch (error) {
          const code = statusOf(error);
          if (code !== undefined && !PASSING.has(code)) throw new SuiNodeError(code, method, detailOf(error));
          if (attempt >= this.retries) {
            reasons.push(
              `${endpoint.label}: ${code === undefined ? 'the request failed' : `${code} (${detailOf(error)})`}`,
            );
            break;
          }
          await sleep(this.retryDelayMs * 2 ** attempt);
        }
      }
    }
    throw new SuiUnavailable(method, reasons);
  }
}

/** The gRPC status of a protobuf-ts `RpcError` (read by shape: it may come from another realm). */
function statusOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z_]{2,40}$/.test(code) ? code : undefined;
}

/** The error's first line, not too much of it: the node's own words, or the transport's (no URL in either). */
function detailOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.slice(0, 200);
}
