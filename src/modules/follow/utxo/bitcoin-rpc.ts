import { describeTransportError, sleep } from '../http-transport';

/**
 * A JSON-RPC client for nodes that speak Bitcoin Core's interface (Bitcoin Core, Bitcoin Cash Node,
 * Dogecoin Core, Litecoin Core), over Node's fetch.
 *
 * Credentials travel in the URL (`http://user:password@host:port`, contract §13). They are taken
 * out of it and sent as a Basic `Authorization` header; fetch never sees a URL with credentials.
 * Nothing this class throws names a URL, a user or a password: endpoints are called "RPC URL #1",
 * "#2", … in the order given, and transport failures are described by their kind only (the error
 * objects of fetch carry host and port in their causes, so they are never wrapped or chained).
 */

export interface BitcoinRpcOptions {
  /** Per HTTP request, default 30 s. */
  timeoutMs?: number;
  /** Further tries of a failed request on the same URL before the next URL is asked, default 1. */
  retries?: number;
  /** The most calls sent in one JSON-RPC batch; larger batches are split, default 500. */
  maxBatch?: number;
  /** Wait before a retry on the same URL, default 200 ms (doubled for each further retry). */
  retryDelayMs?: number;
  /**
   * After a fallback URL answered, requests start there rather than at the first URL (which would
   * cost every request a timeout while the first one hangs) for this long, default 60 s; then the
   * first URL is tried first again.
   */
  stickyMs?: number;
}

export interface BitcoinRpcCall {
  method: string;
  params?: unknown[];
}

/** The node answered a call with a JSON-RPC error. */
export class BitcoinRpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    /** The node's own message. */
    readonly nodeMessage: string,
  ) {
    super(`${method}: ${nodeMessage} (RPC error ${code})`);
    this.name = 'BitcoinRpcError';
  }
}

/** No URL gave an answer: every one failed to connect, timed out, or answered with an HTTP failure. */
export class BitcoinRpcUnavailable extends Error {
  constructor(
    readonly method: string,
    /** One sentence per URL tried, in order, without the URL. */
    readonly reasons: readonly string[],
  ) {
    super(`no node answered ${method}: ${reasons.join('; ')}`);
    this.name = 'BitcoinRpcUnavailable';
  }
}

/** Bitcoin Core's RPC_IN_WARMUP: the node is starting (loading its block index) and cannot answer yet. */
const RPC_IN_WARMUP = -28;

/**
 * Amounts arrive as decimal strings, exactly as the node printed them: a JSON number holding a
 * Dogecoin amount of 2^26 DOGE (67,108,864) or more cannot be read into a double exactly.
 * Numbers under these keys are quoted before JSON.parse sees them.
 */
const AMOUNT_KEYS = ['value', 'amount', 'total_amount'] as const;
const AMOUNT_NUMBER = new RegExp(
  `(?<!\\\\)"(${AMOUNT_KEYS.join('|')})"\\s*:\\s*(-?\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?)`,
  'g',
);

interface Endpoint {
  /** The URL without its credentials. */
  url: string;
  authorization: string | undefined;
  /** "RPC URL #1": how messages name it. */
  label: string;
}

interface JsonRpcAnswer {
  id: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown } | null;
}

/** How one try on one URL ended, when it gave no usable answer. */
interface Failure {
  reason: string;
  /** Worth a retry on the same URL (timeouts, connection errors, 5xx, 429); otherwise go to the next URL. */
  transient: boolean;
}

type Attempt = { ok: true; body: unknown } | { ok: false; failure: Failure };

export class BitcoinRpc {
  private readonly endpoints: readonly Endpoint[];
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly maxBatch: number;
  private readonly retryDelayMs: number;
  private readonly stickyMs: number;
  private nextId = 1;
  /** The URL that answered last, when it is not the first, and since when. */
  private sticky: { index: number; since: number } | undefined;

  constructor(urls: readonly string[], options: BitcoinRpcOptions = {}) {
    if (urls.length === 0) throw new Error('BitcoinRpc needs at least one RPC URL');
    this.endpoints = urls.map((url, index) => endpointOf(url, `RPC URL #${index + 1}`));
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retries = options.retries ?? 1;
    this.maxBatch = options.maxBatch ?? 500;
    this.retryDelayMs = options.retryDelayMs ?? 200;
    this.stickyMs = options.stickyMs ?? 60_000;
    if (!Number.isInteger(this.maxBatch) || this.maxBatch < 1) throw new Error('maxBatch must be a positive integer');
  }

  /** One call; an error answer throws BitcoinRpcError, no answer from any URL BitcoinRpcUnavailable. */
  async call<T>(method: string, params: unknown[] = []): Promise<T> {
    const id = this.nextId++;
    const body = await this.send(method, { jsonrpc: '1.0', id, method, params });
    if (!isAnswer(body) || body.id !== id) throw malformed(method, 'an answer that is not a JSON-RPC response to it');
    return resultOf<T>(method, body);
  }

  /**
   * The calls in JSON-RPC batches of at most `maxBatch`, one batch after another. Answers come back
   * in call order (matched by id, whatever order the node used); an error answer to any call throws
   * BitcoinRpcError for the first such call.
   */
  async batch<T>(calls: readonly BitcoinRpcCall[]): Promise<T[]> {
    const results: T[] = [];
    for (let start = 0; start < calls.length; start += this.maxBatch) {
      results.push(...(await this.sendBatch<T>(calls.slice(start, start + this.maxBatch))));
    }
    return results;
  }

  private async sendBatch<T>(calls: readonly BitcoinRpcCall[]): Promise<T[]> {
    const requests = calls.map((call) => ({
      jsonrpc: '1.0',
      id: this.nextId++,
      method: call.method,
      params: call.params ?? [],
    }));
    const name = describeBatch(calls);
    const body = await this.send(name, requests);
    if (!Array.isArray(body)) {
      // A node that refuses the batch as a whole answers with one error object.
      if (isAnswer(body) && body.error) throw rpcError(name, body.error);
      throw malformed(name, 'an answer that is not a JSON-RPC batch response');
    }
    const byId = new Map<unknown, JsonRpcAnswer>();
    for (const answer of body) if (isAnswer(answer)) byId.set(answer.id, answer);
    return requests.map((request) => {
      const answer = byId.get(request.id);
      if (answer === undefined) throw malformed(request.method, 'a batch answer without this call');
      return resultOf<T>(request.method, answer);
    });
  }

  /** The request to each URL in turn, retried on the same URL first; the parsed body of the first answer. */
  private async send(method: string, payload: unknown): Promise<unknown> {
    const text = JSON.stringify(payload);
    const reasons: string[] = [];
    if (this.sticky !== undefined && Date.now() - this.sticky.since > this.stickyMs) this.sticky = undefined;
    const first = this.sticky?.index ?? 0;
    const order = this.endpoints.map((_, offset) => (first + offset) % this.endpoints.length);
    for (const index of order) {
      const endpoint = this.endpoints[index]!;
      let failure: Failure | undefined;
      for (let attempt = 0; attempt <= this.retries; attempt++) {
        if (attempt > 0) await sleep(this.retryDelayMs * 2 ** (attempt - 1));
        const outcome = await this.attempt(endpoint, text);
        if (outcome.ok) {
          if (index === 0) this.sticky = undefined;
          else if (this.sticky?.index !== index) this.sticky = { index, since: Date.now() };
          return outcome.body;
        }
        failure = outcome.failure;
        if (!failure.transient) break;
      }
      reasons.push(`${endpoint.label}: ${failure!.reason}`);
    }
    throw new BitcoinRpcUnavailable(method, reasons);
  }

  private async attempt(endpoint: Endpoint, text: string): Promise<Attempt> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (endpoint.authorization !== undefined) headers.authorization = endpoint.authorization;
    let status: number;
    let body: string;
    try {
      const response = await fetch(endpoint.url, {
        method: 'POST',
        headers,
        body: text,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      status = response.status;
      body = await response.text();
    } catch (error) {
      return { ok: false, failure: { reason: describeTransportError(error, this.timeoutMs), transient: true } };
    }

    if (status === 401 || status === 403) {
      return { ok: false, failure: { reason: `the node refused the credentials (HTTP ${status})`, transient: false } };
    }
    // Bitcoin Core answers a single call's RPC error with HTTP 500 (404 for an unknown method) and a
    // JSON-RPC body: that is the node's answer, not a failure of the node.
    const parsed = parseJson(body);
    if (parsed !== undefined && (Array.isArray(parsed) || isAnswer(parsed))) {
      if (isAnswer(parsed) && parsed.error && parsed.error.code === RPC_IN_WARMUP) {
        return { ok: false, failure: { reason: 'the node is still starting (RPC error -28)', transient: true } };
      }
      return { ok: true, body: parsed };
    }
    if (status === 429 || status >= 500) {
      return { ok: false, failure: { reason: `the node answered HTTP ${status}`, transient: true } };
    }
    if (status >= 200 && status < 300) {
      return {
        ok: false,
        failure: { reason: 'the node answered with something other than JSON-RPC', transient: false },
      };
    }
    return { ok: false, failure: { reason: `the node answered HTTP ${status}`, transient: false } };
  }
}

function endpointOf(text: string, label: string): Endpoint {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // The text itself may hold a password: it is not repeated.
    throw new Error(`${label} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${label} is not an http(s) URL`);
  let user: string;
  let password: string;
  try {
    user = decodeURIComponent(url.username);
    password = decodeURIComponent(url.password);
  } catch {
    throw new Error(`${label} has a malformed %-escape in its credentials`);
  }
  url.username = '';
  url.password = '';
  const authorization =
    user === '' && password === '' ? undefined : `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  return { url: url.toString(), authorization, label };
}

/** A node's JSON answer, with its amounts as the decimal strings it printed (see AMOUNT_KEYS). */
export function parseNodeJson(text: string): unknown {
  return JSON.parse(text.replace(AMOUNT_NUMBER, '"$1":"$2"')) as unknown;
}

function parseJson(text: string): unknown {
  try {
    return parseNodeJson(text);
  } catch {
    return undefined;
  }
}

function isAnswer(value: unknown): value is JsonRpcAnswer {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'id' in value;
}

function resultOf<T>(method: string, answer: JsonRpcAnswer): T {
  if (answer.error) throw rpcError(method, answer.error);
  if (!('result' in answer)) throw malformed(method, 'an answer with neither result nor error');
  return answer.result as T;
}

function rpcError(method: string, error: { code?: unknown; message?: unknown }): BitcoinRpcError {
  const code = typeof error.code === 'number' ? error.code : NaN;
  const message = typeof error.message === 'string' ? error.message : 'no message';
  return new BitcoinRpcError(method, code, message);
}

function malformed(method: string, what: string): Error {
  return new Error(`${method}: the node gave ${what}`);
}

function describeBatch(calls: readonly BitcoinRpcCall[]): string {
  const methods = [...new Set(calls.map((call) => call.method))];
  return `a batch of ${calls.length} (${methods.join(', ')})`;
}
