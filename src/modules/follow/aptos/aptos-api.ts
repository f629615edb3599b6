import { describeTransportError, sleep } from '../http-transport';
import type { ApiErrorJson, BlockJson, LedgerInfoJson, TransactionJson } from './aptos-shapes';

/**
 * A client of the Aptos node API (REST, `/v1`), as a fullnode and the hosted APIs serve it.
 *
 * `RPC_URL_APTOS` entries are the API's base, `https://api.mainnet.aptoslabs.com/v1` (`/v1` is
 * added when the URL ends without it); later entries are fallbacks. An API key may ride in the URL
 * as `api_key=`: it is taken out and sent as `Authorization: Bearer`, as the hosted APIs take it,
 * so no URL this client requests or names carries it. A request that failed by transport, 5xx or
 * 429 is tried again on the same URL, then on the next; an answer of 4xx is the API's refusal
 * (`AptosApiError`, with the API's `error_code`). URLs are named "Aptos API URL #n" in every
 * message, and fetch's own errors, whose causes name the host, are never wrapped.
 */

export interface AptosApiOptions {
  /** Per request, default 30 s. */
  timeoutMs?: number;
  /** Further tries of a request that failed by transport, 5xx or 429 on the same URL, default 2. */
  retries?: number;
  /** Wait before the first retry, doubled for each further one, default 500 ms. */
  retryDelayMs?: number;
}

/** The API refused the request (4xx other than 429): a block it does not have, a pruned version, bad input. */
export class AptosApiError extends Error {
  constructor(
    readonly path: string,
    readonly status: number,
    /** The API's `error_code` (`block_not_found`, `resource_not_found`, `version_pruned`, …). */
    readonly code: string,
    apiMessage: string,
  ) {
    super(`${path}: ${apiMessage} (HTTP ${status}, ${code})`);
    this.name = 'AptosApiError';
  }
}

/** No URL answered. */
export class AptosUnavailable extends Error {
  constructor(
    readonly path: string,
    readonly reasons: readonly string[],
  ) {
    super(`no Aptos API answered ${path}: ${reasons.join('; ')}`);
    this.name = 'AptosUnavailable';
  }
}

interface Endpoint {
  base: string;
  apiKey: string | undefined;
  label: string;
}

type Params = Record<string, string | number | bigint | boolean | undefined>;

/** Error codes that say the thing asked for does not exist (at that version). */
const NOT_FOUND = new Set(['block_not_found', 'resource_not_found', 'account_not_found', 'version_not_found']);

export class AptosApi {
  private readonly endpoints: Endpoint[];
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly retryDelayMs: number;

  constructor(urls: readonly string[], options: AptosApiOptions = {}) {
    if (urls.length === 0) throw new Error('no Aptos API URL');
    this.endpoints = urls.map((raw, index) => endpointOf(raw, index));
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retries = options.retries ?? 2;
    this.retryDelayMs = options.retryDelayMs ?? 500;
  }

  /** `GET /v1`: the chain id and the newest block and version. */
  async ledger(): Promise<LedgerInfoJson> {
    return JSON.parse(await this.get('', {})) as LedgerInfoJson;
  }

  /** The block at `height`, with its first page of transactions when asked; undefined when the node has none there. */
  async block(height: bigint, withTransactions: boolean): Promise<BlockJson | undefined> {
    const text = await this.orMissing(`/blocks/by_height/${height}`, { with_transactions: withTransactions });
    return text === undefined ? undefined : (JSON.parse(text) as BlockJson);
  }

  /** Up to `limit` (at most 100) transactions from version `start` on. */
  async transactions(start: bigint, limit: number): Promise<TransactionJson[]> {
    return JSON.parse(await this.get('/transactions', { start, limit })) as TransactionJson[];
  }

  /**
   * What `address` holds of `assetType` (a coin type, or a fungible asset's metadata address) in
   * its primary store after `version`. The API answers a bare uint64, read from the text so that
   * no digit goes through a float.
   */
  async balance(address: string, assetType: string, version: bigint): Promise<bigint> {
    const text = await this.orMissing(`/accounts/${address}/balance/${encodeURIComponent(assetType)}`, {
      ledger_version: version,
    });
    if (text === undefined) return 0n;
    const digits = text.trim().replace(/^"(.*)"$/, '$1');
    if (!/^\d+$/.test(digits))
      throw new Error(`the Aptos API answered a balance that is not a number: ${digits.slice(0, 40)}`);
    return BigInt(digits);
  }

  /** The resource `type` at `address` after `version`; undefined when there is none. */
  async resource<T>(address: string, type: string, version: bigint): Promise<T | undefined> {
    const text = await this.orMissing(`/accounts/${address}/resource/${encodeURIComponent(type)}`, {
      ledger_version: version,
    });
    return text === undefined ? undefined : (JSON.parse(text) as { data: T }).data;
  }

  /** The answer's text, undefined for a 404 that says the thing does not exist. */
  private async orMissing(path: string, params: Params): Promise<string | undefined> {
    try {
      return await this.get(path, params);
    } catch (error) {
      if (error instanceof AptosApiError && error.status === 404 && NOT_FOUND.has(error.code)) return undefined;
      throw error;
    }
  }

  private async get(path: string, params: Params): Promise<string> {
    const reasons: string[] = [];
    for (const endpoint of this.endpoints) {
      for (let attempt = 0; ; attempt++) {
        const outcome = await this.once(endpoint, path, params);
        if (outcome.kind === 'answer') return outcome.text;
        if (outcome.kind === 'refused')
          throw new AptosApiError(path || '/', outcome.status, outcome.code, outcome.message);
        if (attempt >= this.retries || !outcome.retry) {
          reasons.push(`${endpoint.label}: ${outcome.reason}`);
          break;
        }
        await sleep(this.retryDelayMs * 2 ** attempt);
      }
    }
    throw new AptosUnavailable(path || '/', reasons);
  }

  private async once(
    endpoint: Endpoint,
    path: string,
    params: Params,
  ): Promise<
    | { kind: 'answer'; text: string }
    | { kind: 'refused'; status: number; code: string; message: string }
    | { kind: 'failed'; reason: string; retry: boolean }
  > {
    const url = new URL(`${endpoint.base}${path}`);
    for (const [key, value] of Object.entries(params))
      if (value !== undefined) url.searchParams.set(key, String(value));
    const headers: Record<string, string> = { accept: 'application/json' };
    if (endpoint.apiKey !== undefined) headers.authorization = `Bearer ${endpoint.apiKey}`;
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, { headers, signal: AbortSignal.timeout(this.timeoutMs) });
      text = await response.text();
    } catch (error) {
      return { kind: 'failed', reason: describeTransportError(error, this.timeoutMs), retry: true };
    }
    if (response.ok) return { kind: 'answer', text };
    if (response.status === 401 || response.status === 403)
      return { kind: 'failed', reason: `the API refused the key (HTTP ${response.status})`, retry: false };
    if (response.status === 429) return { kind: 'failed', reason: 'rate limited (HTTP 429)', retry: true };
    if (response.status >= 500) return { kind: 'failed', reason: `HTTP ${response.status}`, retry: true };
    const error = parseError(text);
    return {
      kind: 'refused',
      status: response.status,
      code: error?.error_code ?? 'unknown',
      message: error?.message ?? `HTTP ${response.status} without an Aptos API answer`,
    };
  }
}

function parseError(text: string): ApiErrorJson | undefined {
  try {
    const value = JSON.parse(text) as Partial<ApiErrorJson> | null;
    if (typeof value?.error_code !== 'string') return undefined;
    // The message is the API's; only its first line, and not too much of it.
    return {
      error_code: value.error_code,
      message: String(value.message ?? '')
        .split('\n')[0]!
        .slice(0, 200),
    };
  } catch {
    return undefined;
  }
}

function endpointOf(raw: string, index: number): Endpoint {
  const url = new URL(raw);
  const apiKey = url.searchParams.get('api_key') ?? undefined;
  url.search = '';
  url.hash = '';
  let base = url.toString().replace(/\/+$/, '');
  if (!base.endsWith('/v1')) base += '/v1';
  return { base, apiKey: apiKey === '' ? undefined : apiKey, label: `Aptos API URL #${index + 1}` };
}
