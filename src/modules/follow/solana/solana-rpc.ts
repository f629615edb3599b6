import { createSolanaRpc, isSolanaError, type SolanaRpcApiMainnet, type Rpc } from '@solana/kit';

/** Solana's JSON-RPC, as `@solana/kit` types it. */
export type SolanaRpcClient = Rpc<SolanaRpcApiMainnet>;

/** A request built on one client, sent by `SolanaRpc.call`. */
type Request<T> = (rpc: SolanaRpcClient) => { send(options?: { abortSignal?: AbortSignal }): Promise<T> };

/** JSON-RPC answers that say this node cannot answer now; another URL may. */
const TRY_ELSEWHERE = new Set([
  -32005, // node unhealthy (behind)
  -32016, // minimum context slot not reached
  -32019, // long-term storage unreachable
]);

/** The node's own error answer: a JSON-RPC error code and its message. */
export class SolanaNodeError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'SolanaNodeError';
  }
}

/**
 * Solana's JSON-RPC over `@solana/kit`, with fallbacks: each request goes to the URLs in order and
 * the next one is asked when a URL fails to answer (connection, timeout, HTTP error) or answers that
 * it cannot now (node unhealthy, minimum context slot not reached). Other JSON-RPC errors are the
 * node's answer (a skipped slot) and throw `SolanaNodeError` at once. Nothing thrown names a URL:
 * providers put API keys in them; credentials in a URL are sent as HTTP Basic auth.
 */
export class SolanaRpc {
  private readonly clients: SolanaRpcClient[];

  constructor(
    urls: readonly string[],
    private readonly timeoutMs = 30_000,
  ) {
    if (urls.length === 0) throw new Error('no Solana RPC URL');
    this.clients = urls.map((url) => clientFor(url));
  }

  async call<T>(request: Request<T>): Promise<T> {
    let last: Error | undefined;
    for (const [index, client] of this.clients.entries()) {
      try {
        return await request(client).send({ abortSignal: AbortSignal.timeout(this.timeoutMs) });
      } catch (error) {
        const answer = nodeError(error);
        if (answer !== undefined && !TRY_ELSEWHERE.has(answer.code)) throw answer;
        last = new Error(`RPC URL #${index + 1}: ${answer?.message ?? failureKind(error)}`);
      }
    }
    throw last!;
  }
}

/**
 * A client for `url`. Credentials in the URL (a node behind a proxy with Basic auth) travel as an
 * `Authorization` header: fetch refuses URLs that hold them.
 */
function clientFor(url: string): SolanaRpcClient {
  const parsed = new URL(url);
  if (parsed.username === '' && parsed.password === '') return createSolanaRpc(url);
  const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
  parsed.username = '';
  parsed.password = '';
  return createSolanaRpc(parsed.toString(), {
    headers: { Authorization: `Basic ${Buffer.from(credentials).toString('base64')}` },
  });
}

/** The JSON-RPC error a node answered with, undefined for a failure to reach it. */
function nodeError(error: unknown): SolanaNodeError | undefined {
  if (!isSolanaError(error)) return undefined;
  const code = error.context.__code as number;
  // Kit numbers JSON-RPC errors with their own (negative) codes; its transport errors are positive.
  if (code >= 0) return undefined;
  return new SolanaNodeError(code, `the node answered ${code}: ${firstLine(error.message)}`);
}

function failureKind(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
    return 'no answer in time';
  if (isSolanaError(error)) {
    const status = (error.context as { statusCode?: unknown }).statusCode;
    return typeof status === 'number' ? `HTTP ${status}` : 'the request failed';
  }
  const code = systemCode(error);
  if (code === 'ECONNREFUSED') return 'the connection was refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host was not found';
  if (code === 'ECONNRESET') return 'the connection was reset';
  return 'the request failed';
}

/** The system error code (ECONNREFUSED, …) somewhere in an error's causes, as fetch nests them. */
function systemCode(error: unknown, depth = 0): string | undefined {
  if (typeof error !== 'object' || error === null || depth > 5) return undefined;
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && code.startsWith('E')) return code;
  if (Array.isArray(errors) && errors.length > 0) return systemCode(errors[0], depth + 1);
  return systemCode(cause, depth + 1);
}

function firstLine(text: string): string {
  // A node's message is repeated for a person; URLs (a proxy may echo one) never are.
  return (text.split('\n')[0] ?? '').replace(/https?:\/\/\S+/g, '<rpc url>').slice(0, 200);
}
