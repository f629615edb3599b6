import { HttpRequestError, RpcRequestError, TimeoutError } from 'viem';
import { getHttpRpcClient, type HttpRpcClient } from 'viem/utils';

/** One call of a batch. */
export interface BatchCall {
  method: string;
  params: unknown[];
}

/** A call's answer: its result, or the node's error for it. */
export type BatchAnswer = { result: unknown } | { error: { code: number; message: string } };

export interface BatchOptions {
  /** Errors that are a call's answer, never tried again (a revert of an eth_call). */
  isAnswer: (error: { code: number; message: string }) => boolean;
  batchSize: number;
  retryCount: number;
  retryDelay: number;
  timeout: number;
}

/** A JSON-RPC answer as it comes. */
interface RawAnswer {
  id: unknown;
  result?: unknown;
  error?: { code: unknown; message: unknown };
}

/** HTTP statuses after which a request is tried again, as viem's http transport does. */
const RETRY_STATUSES = new Set([403, 408, 413, 429, 500, 502, 503, 504]);
/** JSON-RPC codes of a call tried again: limit exceeded, internal error, resource unavailable, 429. */
const RETRY_CODES = new Set([-32005, -32603, -32002, -32007, 429]);

/**
 * Many independent JSON-RPC calls as raw batches of `batchSize` in one HTTP request each, all sent
 * at once: the follower's bulk reads (balances at a block, receipts of candidate transactions).
 * Through viem's client each call costs the reader 0.1-0.3 ms of CPU (its promise, the retry
 * wrapper, the batch scheduler), most of the cost of a small call; here a batch costs about one
 * call (bench/README.md, "The chain reader on anvil").
 *
 * Failures are handled as the reader's viem transport (an http transport per URL under a fallback)
 * handles them: a request failing with HTTP 403, 408, 413, 429 or 5xx, a timeout or a broken
 * connection, and calls answered with -32005, -32603, -32002, -32007 or 429, are tried again up to
 * `retryCount` times on the same URL (waiting `retryDelay` ms doubled each time, or what a
 * Retry-After header asks), then on the next URL; other failures of a request, and calls answered
 * with another error, go to the next URL at once. An error `isAnswer` accepts (a revert) is the
 * call's answer at once. On the last URL a failing request throws, and a call's last error is its
 * answer.
 */
export class RpcBatches {
  private readonly clients: HttpRpcClient[];

  constructor(
    urls: readonly string[],
    private readonly options: BatchOptions,
  ) {
    this.clients = urls.map((url) => getHttpRpcClient(url, { timeout: options.timeout }));
  }

  /** The answers of `calls`, in their order. */
  async send(calls: readonly BatchCall[]): Promise<BatchAnswer[]> {
    const answers: BatchAnswer[] = new Array<BatchAnswer>(calls.length);
    const starts: number[] = [];
    for (let start = 0; start < calls.length; start += this.options.batchSize) starts.push(start);
    await Promise.all(
      starts.map(async (start) => {
        const part = await this.batch(calls.slice(start, start + this.options.batchSize));
        part.forEach((answer, i) => (answers[start + i] = answer));
      }),
    );
    return answers;
  }

  /** One batch, tried on each URL in turn. */
  private async batch(calls: readonly BatchCall[]): Promise<BatchAnswer[]> {
    const answers: BatchAnswer[] = new Array<BatchAnswer>(calls.length);
    /** The last error each call still pending was answered with. */
    const errors = new Map<number, { code: number; message: string }>();
    let pending = calls.map((_call, i) => i);
    let failure: unknown;
    for (const client of this.clients) {
      for (let attempt = 0; attempt <= this.options.retryCount; attempt++) {
        if (attempt > 0) await sleep(this.waitBefore(attempt, failure));
        try {
          const body = pending.map((i) => ({ jsonrpc: '2.0' as const, id: i, ...calls[i]! }));
          const answered = (await client.request({ body })) as RawAnswer[];
          const byId = new Map(answered.map((answer) => [Number(answer.id), answer]));
          const again: number[] = [];
          let nextUrl = false;
          for (const i of pending) {
            const answer = byId.get(i);
            const error =
              answer?.error === undefined
                ? undefined
                : { code: Number(answer.error.code), message: String(answer.error.message) };
            if (answer !== undefined && (error === undefined || this.options.isAnswer(error))) {
              answers[i] = error === undefined ? { result: answer.result } : { error };
              continue;
            }
            again.push(i);
            if (error === undefined) continue;
            errors.set(i, error);
            // An error the node may not repeat is tried again here; another one on the next URL.
            if (!RETRY_CODES.has(error.code)) nextUrl = true;
          }
          pending = again;
          failure = undefined;
          if (pending.length === 0) return answers;
          if (nextUrl) break;
        } catch (error) {
          failure = error;
          // Another failure of the request (a 400, a 401): the next URL, as viem's fallback does.
          if (!worthRetrying(error)) break;
        }
      }
    }
    // Calls still refused after every try have that refusal as their answer; a failing request throws.
    if (failure !== undefined || pending.some((i) => !errors.has(i))) {
      throw failure instanceof Error
        ? failure
        : new Error(`the node left ${pending.length} calls of a batch unanswered`);
    }
    for (const i of pending) answers[i] = { error: errors.get(i)! };
    return answers;
  }

  private waitBefore(attempt: number, failure: unknown): number {
    const headers =
      failure instanceof HttpRequestError || failure instanceof RpcRequestError ? failure.headers : undefined;
    const retryAfter = Number(headers?.get('retry-after'));
    if (Number.isFinite(retryAfter) && retryAfter > 0) return retryAfter * 1000;
    return this.options.retryDelay * 2 ** (attempt - 1);
  }
}

/** A failure of the request as a whole that a later attempt may not meet. */
function worthRetrying(error: unknown): boolean {
  if (error instanceof TimeoutError) return true;
  if (error instanceof HttpRequestError || error instanceof RpcRequestError) {
    return error.status === undefined || RETRY_STATUSES.has(error.status);
  }
  return false;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
