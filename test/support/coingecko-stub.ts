import { createServer, IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { CHAINS } from '../../src/core/chains/chain-registry';

/** One request the stub received. */
export interface StubRequest {
  /** Below the API root, e.g. `/simple/price`. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** `performance.now()`-style milliseconds when it arrived. */
  at: number;
}

/** How the stub answers one request (the next one, or the next one for `path`) instead of answering well. */
export type Misbehaviour = { path?: string } &
  /** Accepts the request and never answers. */
  (
    | { kind: 'hang' }
    | { kind: 'status'; status: number; retryAfter?: string }
    /** 200 with this body as it is: malformed JSON, absurd values, anything. */
    | { kind: 'body'; body: string }
  );

export interface StubPrice {
  usd: number;
  /** Unix seconds. */
  last_updated_at: number;
}

const ROOT = '/api/v3';

/** The platforms whose contracts are hex, found in any case. */
const EVM_PLATFORMS = new Set(
  CHAINS.flatMap((chain) => (chain.rpc === 'evm-json-rpc' ? [chain.coingeckoPlatform] : [])),
);

/** A contract as the stub keys and answers it. */
function contractKey(platform: string, contract: string): string {
  return EVM_PLATFORMS.has(platform) ? contract.toLowerCase() : contract;
}

/**
 * A CoinGecko-compatible price API on a loopback port, answering in the documented shapes:
 * `GET /simple/price?ids=…&vs_currencies=usd&include_last_updated_at=true` and
 * `GET /simple/token_price/{platform}?contract_addresses=…&vs_currencies=usd…` both answer
 * `{"<id or contract>": {"usd": …, "last_updated_at": …}}` for the coins it knows and leave out the
 * others. An EVM platform's contracts are found in any case and answered lowercased; other
 * platforms' (Solana mints, TON masters, Move coin types) as they are spelled. Queued misbehaviours
 * answer the next requests, one each.
 */
export class CoinGeckoStub {
  readonly requests: StubRequest[] = [];
  /** Requests whose client hung up before an answer. */
  aborted = 0;
  private readonly coins = new Map<string, StubPrice>();
  private readonly contracts = new Map<string, StubPrice>();
  private readonly queue: Misbehaviour[] = [];
  private readonly waiters: (() => void)[] = [];

  private constructor(private readonly server: Server) {}

  static async start(): Promise<CoinGeckoStub> {
    const server = createServer();
    const stub = new CoinGeckoStub(server);
    server.on('request', (request: IncomingMessage, response: ServerResponse) => stub.handle(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return stub;
  }

  /** The value for PRICE_SOURCE_URL. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${ROOT}`;
  }

  setPrice(id: string, price: StubPrice): void {
    this.coins.set(id, price);
  }

  setContractPrice(platform: string, contract: string, price: StubPrice): void {
    this.contracts.set(`${platform}/${contractKey(platform, contract)}`, price);
  }

  misbehave(...misbehaviours: Misbehaviour[]): void {
    this.queue.push(...misbehaviours);
  }

  /** Resolves once `check` holds; checked again after every request and every hang-up. */
  async until(check: () => boolean): Promise<void> {
    while (!check()) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** Resolves once `count` requests in all have arrived. */
  async received(count: number): Promise<StubRequest[]> {
    await this.until(() => this.requests.length >= count);
    return this.requests.slice(0, count);
  }

  /** Resolves with the first request, from the `from`-th on, that matches. */
  async receivedWhere(from: number, matches: (request: StubRequest) => boolean): Promise<StubRequest> {
    for (let seen = from; ; seen += 1) {
      const [request] = (await this.received(seen + 1)).slice(seen);
      if (matches(request!)) return request!;
    }
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://stub');
    this.requests.push({
      path: url.pathname.slice(ROOT.length),
      query: url.searchParams,
      headers: request.headers,
      at: performance.now(),
    });
    this.wake();
    response.once('close', () => {
      if (response.writableFinished) return;
      this.aborted += 1;
      this.wake();
    });

    const path = url.pathname.slice(ROOT.length);
    const index = this.queue.findIndex((queued) => queued.path === undefined || queued.path === path);
    const misbehaviour = index < 0 ? undefined : this.queue.splice(index, 1)[0];
    if (misbehaviour?.kind === 'hang') return;
    if (misbehaviour?.kind === 'status') {
      const headers = misbehaviour.retryAfter === undefined ? {} : { 'retry-after': misbehaviour.retryAfter };
      response.writeHead(misbehaviour.status, { 'content-type': 'application/json', ...headers });
      response.end(JSON.stringify({ status: { error_code: misbehaviour.status, error_message: 'stub' } }));
      return;
    }
    if (misbehaviour?.kind === 'body') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(misbehaviour.body);
      return;
    }
    this.answer(url, response);
  }

  private wake(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }

  private answer(url: URL, response: ServerResponse): void {
    const path = url.pathname.slice(ROOT.length);
    const query = url.searchParams;
    const withTime = query.get('include_last_updated_at') === 'true';
    if (query.get('vs_currencies') !== 'usd') {
      response
        .writeHead(400, { 'content-type': 'application/json' })
        .end('{"error":"Missing parameter vs_currencies"}');
      return;
    }
    const shape = (price: StubPrice) => (withTime ? price : { usd: price.usd });
    const body: Record<string, unknown> = {};
    const platform = /^\/simple\/token_price\/([a-z0-9-]+)$/.exec(path)?.[1];
    if (path === '/simple/price') {
      for (const id of (query.get('ids') ?? '').split(',')) {
        const price = this.coins.get(id);
        if (price !== undefined) body[id] = shape(price);
      }
    } else if (platform !== undefined) {
      for (const contract of (query.get('contract_addresses') ?? '').split(',')) {
        const key = contractKey(platform, contract);
        const price = this.contracts.get(`${platform}/${key}`);
        if (price !== undefined) body[key] = shape(price);
      }
    } else {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }
}
