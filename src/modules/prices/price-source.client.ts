import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig, PriceSourceConfig } from '../../config/config';
import { parseRetryAfter } from './poll-schedule';

export type SourceFailure = 'unreachable' | 'timeout' | 'rate-limited' | 'server-error' | 'refused' | 'malformed';

/** The source failed a request. The message is for a person and never contains the API key. */
export class PriceSourceError extends Error {
  constructor(
    readonly kind: SourceFailure,
    message: string,
    /** The source's `Retry-After`, in milliseconds. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** A price answer is a few kB per hundred tokens; anything far larger is not one. */
const MAX_BODY_CHARACTERS = 5_000_000;

/**
 * GET requests to the CoinGecko-compatible source with Node's fetch: the plan's key header, a
 * timeout over the whole exchange (body included), and every way a request can fail turned into a
 * PriceSourceError. Aborting `signal` (the poller stopping) rejects with the abort reason instead.
 */
@Injectable()
export class PriceSourceClient {
  private readonly source: PriceSourceConfig;
  private readonly headers: Record<string, string>;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.source = config.prices;
    this.headers = { accept: 'application/json' };
    if (this.source.apiKey !== undefined) {
      this.headers[this.source.plan === 'pro' ? 'x-cg-pro-api-key' : 'x-cg-demo-api-key'] = this.source.apiKey;
    }
  }

  /** Where the source is, for log lines: without credentials, query or key. */
  get location(): string {
    const url = new URL(this.source.url);
    return `${url.protocol}//${url.host}${url.pathname}`;
  }

  async getJson(path: string, signal: AbortSignal): Promise<unknown> {
    const timeout = AbortSignal.timeout(this.source.timeoutMs);
    const both = AbortSignal.any([signal, timeout]);
    let text: string;
    try {
      // The key travels in a header, which a redirect to another host would carry along.
      const response = await fetch(`${this.source.url}${path}`, {
        headers: this.headers,
        signal: both,
        redirect: 'error',
      });
      if (!response.ok) {
        await response.body?.cancel();
        throw statusError(response.status, parseRetryAfter(response.headers.get('retry-after'), Date.now()));
      }
      text = await response.text();
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (error instanceof PriceSourceError) throw error;
      if (timeout.aborted) {
        throw new PriceSourceError('timeout', `gave no complete answer within ${this.source.timeoutMs / 1000} s`);
      }
      throw new PriceSourceError('unreachable', `cannot be reached (${networkReason(error)})`);
    }
    if (text.length > MAX_BODY_CHARACTERS) {
      throw new PriceSourceError('malformed', `answered ${text.length} characters, too many for prices`);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new PriceSourceError('malformed', 'answered something that is not JSON');
    }
  }
}

function statusError(status: number, retryAfterMs: number | undefined): PriceSourceError {
  if (status === 429) {
    const wait = retryAfterMs === undefined ? '' : `, Retry-After ${Math.ceil(retryAfterMs / 1000)} s`;
    return new PriceSourceError('rate-limited', `answered 429 Too Many Requests${wait}`, retryAfterMs);
  }
  if (status >= 500) return new PriceSourceError('server-error', `answered HTTP ${status}`, retryAfterMs);
  const hint =
    status === 401 || status === 403
      ? ' (check PRICE_API_KEY and PRICE_API_PLAN)'
      : status === 404
        ? ' (check PRICE_SOURCE_URL)'
        : '';
  return new PriceSourceError('refused', `answered HTTP ${status}${hint}`, retryAfterMs);
}

/** fetch reports network trouble as "fetch failed" with the system error as its cause. */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}
