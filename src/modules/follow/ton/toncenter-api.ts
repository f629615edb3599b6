import { describeTransportError, sleep } from '../http-transport';
import type { TransactionJson } from './toncenter-shapes';

/**
 * A client of toncenter's HTTP API v2, as toncenter.com and a self-hosted ton-http-api serve it
 * (REST: `GET <base>/<method>?…`, `POST <base>/runGetMethod`; answers `{ ok, result }` or
 * `{ ok: false, code, error }`). v3-only endpoints (the indexer's) are never called.
 *
 * `RPC_URL_TON` entries are the API's base, `https://toncenter.com/api/v2/` (a trailing `jsonRPC`
 * is dropped). An API key may ride in the URL as `api_key=`: it is taken out and sent as the
 * `X-API-Key` header, so no URL this client requests or names carries it. URLs are named "TON API
 * URL #n" in every message; fetch's own errors, whose causes name the host, are never wrapped.
 */

export interface ToncenterOptions {
  /** Per request, default 30 s. */
  timeoutMs?: number;
  /** Further tries of a request that failed by transport, 5xx or 429 on the same URL, default 2. */
  retries?: number;
  /** Wait before the first retry, doubled for each further one, default 500 ms. */
  retryDelayMs?: number;
}

/** The API answered `ok: false` (a refused parameter, a block the liteserver does not have, …). */
export class ToncenterError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    readonly apiMessage: string,
  ) {
    super(`${method}: ${apiMessage} (code ${code})`);
    this.name = 'ToncenterError';
  }
}

/** No URL answered. */
export class ToncenterUnavailable extends Error {
  constructor(
    readonly method: string,
    readonly reasons: readonly string[],
  ) {
    super(`no TON API answered ${method}: ${reasons.join('; ')}`);
    this.name = 'ToncenterUnavailable';
  }
}

interface Endpoint {
  base: string;
  apiKey: string | undefined;
  label: string;
}

export type Params = Record<string, string | number | bigint | undefined>;

export class ToncenterApi {
  private readonly endpoints: Endpoint[];
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly retryDelayMs: number;

  constructor(urls: readonly string[], options: ToncenterOptions = {}) {
    if (urls.length === 0) throw new Error('no TON API URL');
    this.endpoints = urls.map((raw, index) => endpointOf(raw, index));
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retries = options.retries ?? 2;
    this.retryDelayMs = options.retryDelayMs ?? 500;
  }

  get<T>(method: string, params: Params = {}): Promise<T> {
    return this.request<T>(method, params, undefined);
  }

  post<T>(method: string, body: Record<string, unknown>): Promise<T> {
    return this.request<T>(method, {}, body);
  }

  /**
   * `tryLocateSourceTx`: the transaction on `source` that sent the internal message to
   * `destination` created at logical time `createdLt` (the message's `created_lt`). The API
   * answers `ok: false` (a `ToncenterError`) when it finds none.
   */
  tryLocateSourceTx(source: string, destination: string, createdLt: bigint): Promise<TransactionJson> {
    return this.get<TransactionJson>('tryLocateSourceTx', { source, destination, created_lt: createdLt });
  }

  private async request<T>(method: string, params: Params, body: Record<string, unknown> | undefined): Promise<T> {
    const reasons: string[] = [];
    for (const endpoint of this.endpoints) {
      for (let attempt = 0; ; attempt++) {
        const outcome = await this.once<T>(endpoint, method, params, body);
        if (outcome.kind === 'answer') return outcome.result;
        if (outcome.kind === 'refused') throw new ToncenterError(method, outcome.code, outcome.message);
        if (attempt >= this.retries || !outcome.retry) {
          reasons.push(`${endpoint.label}: ${outcome.reason}`);
          break;
        }
        await sleep(this.retryDelayMs * 2 ** attempt);
      }
    }
    throw new ToncenterUnavailable(method, reasons);
  }

  private async once<T>(
    endpoint: Endpoint,
    method: string,
    params: Params,
    body: Record<string, unknown> | undefined,
  ): Promise<
    | { kind: 'answer'; result: T }
    | { kind: 'refused'; code: number; message: string }
    | { kind: 'failed'; reason: string; retry: boolean }
  > {
    const url = new URL(`${endpoint.base}/${method}`);
    for (const [key, value] of Object.entries(params))
      if (value !== undefined) url.searchParams.set(key, String(value));
    const headers: Record<string, string> = { accept: 'application/json' };
    if (endpoint.apiKey !== undefined) headers['x-api-key'] = endpoint.apiKey;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(url, {
        method: body === undefined ? 'GET' : 'POST',
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      return { kind: 'failed', reason: describeTransportError(error, this.timeoutMs), retry: true };
    }
    let answer: { ok?: boolean; result?: T; code?: number; error?: string } | undefined;
    try {
      answer = (await response.json()) as typeof answer;
    } catch {
      answer = undefined;
    }
    if (response.status === 401 || response.status === 403) {
      return { kind: 'failed', reason: `the API refused the key (HTTP ${response.status})`, retry: false };
    }
    if (response.status === 429) return { kind: 'failed', reason: 'rate limited (HTTP 429)', retry: true };
    if (answer?.ok === true) return { kind: 'answer', result: answer.result as T };
    if (response.status >= 500 && (answer?.error === undefined || /LITE_SERVER_NETWORK|timeout/i.test(answer.error))) {
      return {
        kind: 'failed',
        reason: `HTTP ${response.status}${answer?.error ? ` (${answer.error})` : ''}`,
        retry: true,
      };
    }
    if (answer?.ok === false) {
      return { kind: 'refused', code: answer.code ?? response.status, message: String(answer.error ?? 'error') };
    }
    return {
      kind: 'failed',
      reason: `HTTP ${response.status} without a toncenter answer`,
      retry: response.status >= 500,
    };
  }
}

function endpointOf(raw: string, index: number): Endpoint {
  const url = new URL(raw);
  const apiKey = url.searchParams.get('api_key') ?? undefined;
  url.search = '';
  url.hash = '';
  const base = url
    .toString()
    .replace(/\/jsonRPC\/?$/, '')
    .replace(/\/+$/, '');
  return { base, apiKey: apiKey === '' ? undefined : apiKey, label: `TON API URL #${index + 1}` };
}
