import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

/**
 * A JSON-RPC proxy on a loopback port in front of a node (anvil), for the follower's fault tests:
 * it forwards single and batched JSON-RPC POSTs to `upstream` and misbehaves as the tests ask, the
 * way public providers do. It records every call it receives (batch elements one by one), whether
 * it forwarded it or not.
 *
 * Rules apply from the first one added; each applies to at most `times` requests (default: until
 * removed). `drop`, `delay`, `status429` and `status` act on a whole HTTP request (a batch as one),
 * when it holds a call of `method` (any call when no method is given). `rangeTooLarge`,
 * `wrongChainId` and `error` answer single calls of a request, in place of the node, and the rest
 * of a batch is forwarded. When the node cannot be reached, the proxy answers HTTP 502.
 */
export type ProxyMisbehaviour = {
  /** Only requests (whole-request kinds) or calls (per-call kinds) of this JSON-RPC method. */
  method?: string;
  /** How many requests or calls it acts on before it retires; default: until removed. */
  times?: number;
} & (
  | /** Destroys the connection without an answer. */ { kind: 'drop' }
  | /** Forwards the request `ms` milliseconds late. */ { kind: 'delay'; ms: number }
  | /** HTTP 429 Too Many Requests with `Retry-After` (default `0`). */ { kind: 'status429'; retryAfter?: string }
  | /** Any HTTP status with a plain-text body. */ { kind: 'status'; status: number }
    /**
     * `eth_getLogs` over more than `maxBlocks` blocks (from `fromBlock` to `toBlock`, tags resolved
     * against the node's head) fails as providers fail it:
     * - `infura` (default): -32005 "query returned more than 10000 results. Try with this block
     *   range [0x…, 0x…]." (the hint is the first `maxBlocks` blocks of the asked range);
     * - `alchemy`: -32602 "Log response size exceeded. … this block range should work: [0x…, 0x…]";
     * - `plain`: -32000 "block range too large", no hint.
     * Narrower queries and queries by `blockHash` go through.
     */
  | { kind: 'rangeTooLarge'; maxBlocks: number; style?: 'infura' | 'alchemy' | 'plain' }
  | /** `eth_chainId` answers `chainId` instead of the node's id. */ { kind: 'wrongChainId'; chainId: number }
  | /** The call fails with this JSON-RPC error. */ { kind: 'error'; code: number; message: string }
);

/** One JSON-RPC call the proxy received. */
export interface ProxiedCall {
  method: string;
  params: unknown[];
  /** `Date.now()` when it arrived. */
  at: number;
  /** The HTTP request it came in (1 for the first): the calls of one batch share it. */
  request: number;
  /** `Date.now()` when the proxy's answer to its request was written; undefined until then. */
  answered?: number;
}

interface JsonRpcRequest {
  jsonrpc?: string;
  id?: number | string | null;
  method: string;
  params?: unknown[];
}

interface JsonRpcAnswer {
  jsonrpc: '2.0';
  id: number | string | null;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

interface Rule {
  misbehaviour: ProxyMisbehaviour;
  left: number;
}

const WHOLE_REQUEST = new Set<ProxyMisbehaviour['kind']>(['drop', 'delay', 'status429', 'status']);

export class RpcProxy {
  /** Where calls are forwarded; may be changed at any time (a node replaced by another). */
  upstream: string;
  /** HTTP requests received (a batch counts once). */
  requests = 0;
  private readonly received: ProxiedCall[] = [];
  private rules: Rule[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly waiters: (() => void)[] = [];

  private constructor(
    private readonly server: Server,
    upstream: string,
  ) {
    this.upstream = upstream;
  }

  static async start(upstream: string): Promise<RpcProxy> {
    const server = createServer();
    const proxy = new RpcProxy(server, upstream);
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      proxy.handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500).end(String(error));
        else response.destroy();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  /** The URL clients use instead of the node's. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Adds a rule; the function returned removes it. */
  misbehave(misbehaviour: ProxyMisbehaviour): () => void {
    const rule = { misbehaviour, left: misbehaviour.times ?? Infinity };
    this.rules.push(rule);
    return () => {
      this.rules = this.rules.filter((other) => other !== rule);
    };
  }

  /** Removes every rule: the proxy forwards faithfully again. */
  behave(): void {
    this.rules = [];
  }

  /** The calls received, of `method` or all, in arrival order. */
  calls(method?: string): ProxiedCall[] {
    return method === undefined ? [...this.received] : this.received.filter((call) => call.method === method);
  }

  /** Forgets the calls and requests received so far. */
  resetCalls(): void {
    this.received.length = 0;
    this.requests = 0;
  }

  /** Resolves once `check` holds; checked again after every request received and every answer written. */
  async until(check: () => boolean): Promise<void> {
    while (!check()) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  async close(): Promise<void> {
    this.timers.forEach((timer) => clearTimeout(timer));
    this.timers.clear();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      response.writeHead(400, { 'content-type': 'text/plain' }).end('not JSON');
      return;
    }
    const batch = Array.isArray(parsed);
    const calls = (batch ? parsed : [parsed]) as JsonRpcRequest[];
    this.requests += 1;
    const now = Date.now();
    const received: ProxiedCall[] = calls.map((call) => ({
      method: call.method,
      params: call.params ?? [],
      at: now,
      request: this.requests,
    }));
    this.received.push(...received);
    this.wake();

    const whole = this.take((rule) => WHOLE_REQUEST.has(rule.kind) && this.concerns(rule, calls));
    if (whole) {
      switch (whole.kind) {
        case 'drop':
          request.socket.destroy();
          return;
        case 'status429':
          response
            .writeHead(429, { 'content-type': 'text/plain', 'retry-after': whole.retryAfter ?? '0' })
            .end('Too Many Requests');
          return;
        case 'status':
          response.writeHead(whole.status, { 'content-type': 'text/plain' }).end(`status ${whole.status}`);
          return;
        case 'delay':
          await new Promise<void>((resolve) => {
            const timer = setTimeout(() => {
              this.timers.delete(timer);
              resolve();
            }, whole.ms);
            this.timers.add(timer);
          });
          if (request.socket.destroyed) return;
          break;
        case 'rangeTooLarge':
        case 'wrongChainId':
        case 'error':
          break;
      }
    }

    const answers = new Map<JsonRpcRequest, JsonRpcAnswer>();
    for (const call of calls) {
      const answer = await this.answerInstead(call);
      if (answer) answers.set(call, answer);
    }
    const forwarded = calls.filter((call) => !answers.has(call));
    if (forwarded.length > 0) {
      let upstreamAnswers: JsonRpcAnswer[];
      try {
        upstreamAnswers = await this.forward(forwarded);
      } catch (error) {
        response.writeHead(502, { 'content-type': 'text/plain' }).end(`upstream: ${String(error)}`);
        return;
      }
      forwarded.forEach((call, index) => {
        const answer = upstreamAnswers.find((candidate) => candidate.id === call.id) ?? upstreamAnswers[index];
        if (answer) answers.set(call, answer);
      });
    }
    const ordered = calls.map((call) => answers.get(call)).filter((answer) => answer !== undefined);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(batch ? ordered : ordered[0]));
    const answered = Date.now();
    for (const call of received) call.answered = answered;
    this.wake();
  }

  /** The answer a per-call rule gives in place of the node, if one applies. */
  private async answerInstead(call: JsonRpcRequest): Promise<JsonRpcAnswer | undefined> {
    const id = call.id ?? null;
    let range: { from: bigint; to: bigint } | undefined;
    const tooLarge = async (maxBlocks: number): Promise<boolean> => {
      range ??= await this.logRange(call);
      return range !== undefined && range.to - range.from + 1n > BigInt(maxBlocks);
    };
    for (const rule of this.rules) {
      const misbehaviour = rule.misbehaviour;
      if (rule.left <= 0 || WHOLE_REQUEST.has(misbehaviour.kind)) continue;
      if (misbehaviour.method !== undefined && misbehaviour.method !== call.method) continue;
      switch (misbehaviour.kind) {
        case 'wrongChainId':
          if (call.method !== 'eth_chainId') continue;
          rule.left -= 1;
          return { jsonrpc: '2.0', id, result: `0x${misbehaviour.chainId.toString(16)}` };
        case 'error':
          rule.left -= 1;
          return { jsonrpc: '2.0', id, error: { code: misbehaviour.code, message: misbehaviour.message } };
        case 'rangeTooLarge':
          if (call.method !== 'eth_getLogs' || !(await tooLarge(misbehaviour.maxBlocks)) || !range) continue;
          rule.left -= 1;
          return { jsonrpc: '2.0', id, error: rangeTooLarge(range, misbehaviour.maxBlocks, misbehaviour.style) };
        case 'drop':
        case 'delay':
        case 'status429':
        case 'status':
          continue;
      }
    }
    return undefined;
  }

  /** The block range an eth_getLogs call asks for; undefined for a query by block hash. */
  private async logRange(call: JsonRpcRequest): Promise<{ from: bigint; to: bigint } | undefined> {
    const filter = (call.params?.[0] ?? {}) as { fromBlock?: string; toBlock?: string; blockHash?: string };
    if (filter.blockHash !== undefined) return undefined;
    let head: bigint | undefined;
    const block = async (tag: string | undefined): Promise<bigint> => {
      if (tag === 'earliest') return 0n;
      if (tag !== undefined && tag.startsWith('0x')) return BigInt(tag);
      if (head === undefined) {
        const [answer] = await this.forward([{ jsonrpc: '2.0', id: 0, method: 'eth_blockNumber', params: [] }]);
        head = BigInt(answer?.result as string);
      }
      return head;
    };
    return { from: await block(filter.fromBlock), to: await block(filter.toBlock) };
  }

  private async forward(calls: JsonRpcRequest[]): Promise<JsonRpcAnswer[]> {
    // A node that wants credentials (bitcoind's style: in the URL) gets them as Basic auth; fetch takes no URL with them.
    const target = new URL(this.upstream);
    const authorization =
      target.username === ''
        ? undefined
        : `Basic ${Buffer.from(`${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`).toString('base64')}`;
    target.username = '';
    target.password = '';
    const response = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(authorization === undefined ? {} : { authorization }) },
      body: JSON.stringify(calls.length === 1 ? calls[0] : calls),
    });
    const answer = (await response.json()) as JsonRpcAnswer | JsonRpcAnswer[];
    return Array.isArray(answer) ? answer : [answer];
  }

  /** The first live whole-request rule that `matches`, with one use taken. */
  private take(matches: (misbehaviour: ProxyMisbehaviour) => boolean): ProxyMisbehaviour | undefined {
    const rule = this.rules.find((candidate) => candidate.left > 0 && matches(candidate.misbehaviour));
    if (rule) rule.left -= 1;
    return rule?.misbehaviour;
  }

  private concerns(misbehaviour: ProxyMisbehaviour, calls: JsonRpcRequest[]): boolean {
    return misbehaviour.method === undefined || calls.some((call) => call.method === misbehaviour.method);
  }

  private wake(): void {
    this.waiters.splice(0).forEach((wake) => wake());
  }
}

/** The error a provider answers for an eth_getLogs over more than `maxBlocks` blocks. */
function rangeTooLarge(
  range: { from: bigint; to: bigint },
  maxBlocks: number,
  style: 'infura' | 'alchemy' | 'plain' = 'infura',
): { code: number; message: string; data?: unknown } {
  const hex = (block: bigint) => `0x${block.toString(16)}`;
  const hint = `[${hex(range.from)}, ${hex(range.from + BigInt(maxBlocks) - 1n)}]`;
  switch (style) {
    case 'infura':
      return {
        code: -32005,
        message: `query returned more than 10000 results. Try with this block range ${hint}.`,
        data: { from: hex(range.from), to: hex(range.to), limit: 10000 },
      };
    case 'alchemy':
      return {
        code: -32602,
        message:
          `Log response size exceeded. You can make eth_getLogs requests with up to a ${maxBlocks} block range and ` +
          `no limit on the response size, or you can request any block range with a cap of 10K logs in the ` +
          `response. Based on your parameters, this block range should work: ${hint}`,
      };
    case 'plain':
      return { code: -32000, message: 'block range too large' };
  }
}

/** Starts a proxy in front of `upstream` on a free loopback port. */
export function startRpcProxy(upstream: string): Promise<RpcProxy> {
  return RpcProxy.start(upstream);
}
