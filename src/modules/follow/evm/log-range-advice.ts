/**
 * Providers refuse an `eth_getLogs` whose block range, or whose result, is larger than they serve,
 * each in its own words; several name the range they would accept. This reads those words, so the
 * reader can ask again for fewer blocks instead of failing.
 */

/** A failed JSON-RPC call reduced to its code and the node's own words. */
export interface RpcFailure {
  code?: number;
  message: string;
}

/** JSON-RPC "limit exceeded" (EIP-1474): a result too large, or, with some providers, a rate limit. */
const LIMIT_EXCEEDED = -32005;

/** An explicit range to try, as Infura and Alchemy write it: `[0x1a2b, 0x1a3f]`. */
const SUGGESTED_RANGE = /\[\s*(0x[0-9a-f]+|\d+)\s*,\s*(0x[0-9a-f]+|\d+)\s*\]/i;

/** Phrases that state the most blocks one query may span; the first group is the number. */
const MAX_BLOCKS: readonly RegExp[] = [
  /limited to an? ([\d,.]+k?)/i, // "eth_getLogs is limited to a 10,000 range"
  /limited to ([\d,.]+k?) blocks?/i,
  /up to an? ([\d,.]+k?)[ -]block range/i, // "requests with up to a 2K block range"
  /max(?:imum)? range:? ([\d,.]+k?)/i, // "Max range: 3500"
  /max(?:imum)? (?:allowed )?block range:? ([\d,.]+k?)/i, // "query exceeds max block range 100000"
  /maximum allowed number of requested blocks is ([\d,.]+k?)/i,
  /maximum is set to ([\d,.]+k?)/i, // "requested too many blocks from 1 to 9000, maximum is set to 2048"
  /at most ([\d,.]+k?) blocks/i, // "please limit the query to at most 1000 blocks"
  /ranges over ([\d,.]+k?) blocks/i, // "ranges over 10000 blocks are not supported"
  /block range greater than ([\d,.]+k?)/i,
  /block range exceeds ([\d,.]+k?)/i,
  /max is ([\d,.]+k?) blocks/i, // "range is too large, max is 10k blocks"
  /smaller than size ([\d,.]+k?)/i,
  /too wide \(maximum ([\d,.]+k?)\)/i,
  /blocks distance:? ([\d,.]+k?)/i, // "maximum [from, to] blocks distance: 100"
  /allowed for your plan \(\d+ > ([\d,.]+k?)\)/i,
];

/** Phrases that refuse a range or a result as too large without saying what would do. */
const TOO_LARGE: readonly RegExp[] = [
  /range (?:is )?too (?:large|wide|big)/i, // "block range is too wide", "Block range is too large"
  /range limit exceeded/i, // "Block range limit exceeded."
  /too many (?:results|logs|blocks)/i,
  /more than [\d,.]+ (?:results|logs)/i, // "query returned more than 10000 results"
  /exceeds? (?:the )?max(?:imum)? (?:results|logs)/i, // "query exceeds max results 20000"
  /logs matched by query exceeds limit/i,
  /response size (?:exceeded|should not)/i, // "Log response size exceeded."
  /response (?:is )?too (?:large|big)/i, // "backend response too large"
];

/** Words of a rate limit, which fewer blocks per query would only make worse. */
const RATE_LIMIT = /\brate\b|rate[- ]?limit|requests? per|per second|daily|credits|compute units|capacity/i;

/**
 * How many blocks to ask `eth_getLogs` for at once after a provider refused a query over
 * `requested` blocks: the range the provider suggests or states as its maximum, else half; always
 * fewer than `requested`. Undefined when the failure is not about the query's size, or when one
 * block was asked for (nothing left to split: the failure stands).
 */
export function logRangeAfterRefusal(failure: RpcFailure, requested: bigint): bigint | undefined {
  if (requested <= 1n || !refusesSize(failure)) return undefined;
  const half = requested / 2n;
  const stated = statedBlocks(failure.message);
  return stated !== undefined && stated >= 1n && stated < requested ? stated : half;
}

function refusesSize({ code, message }: RpcFailure): boolean {
  if (SUGGESTED_RANGE.test(message) && /range/i.test(message)) return true;
  if (MAX_BLOCKS.some((pattern) => pattern.test(message))) return true;
  if (TOO_LARGE.some((pattern) => pattern.test(message))) return true;
  return code === LIMIT_EXCEEDED && !RATE_LIMIT.test(message);
}

/** The number of blocks the message suggests or allows, when it names one. */
function statedBlocks(message: string): bigint | undefined {
  const suggested = SUGGESTED_RANGE.exec(message);
  if (suggested && /range/i.test(message)) {
    const first = BigInt(suggested[1]!);
    const last = BigInt(suggested[2]!);
    if (last >= first) return last - first + 1n;
  }
  for (const pattern of MAX_BLOCKS) {
    const match = pattern.exec(message);
    if (match) return parseCount(match[1]!);
  }
  return undefined;
}

/** "10,000", "10.000", "2K", "10k" as a whole number; a sentence's final period is not part of it. */
function parseCount(text: string): bigint | undefined {
  const thousands = /k$/i.test(text);
  const digits = text.replace(/k$/i, '').replace(/\.$/, '').replace(/[,.]/g, '');
  if (!/^\d+$/.test(digits)) return undefined;
  return BigInt(digits) * (thousands ? 1000n : 1n);
}

/**
 * The JSON-RPC code and the node's words of a thrown error. viem wraps the node's error object
 * (`{ code, message, data }`) in its own errors, whose `details` carry the node's message and whose
 * full `message` also quotes the request body; only the node's words are kept.
 */
export function rpcFailure(error: unknown): RpcFailure {
  const words: string[] = [];
  let code: number | undefined;
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth++) {
    const level = current as {
      code?: unknown;
      details?: unknown;
      shortMessage?: unknown;
      message?: unknown;
      data?: unknown;
    };
    if (code === undefined && typeof level.code === 'number' && level.code !== -1) code = level.code;
    if (typeof level.details === 'string') words.push(level.details);
    if (typeof level.shortMessage !== 'string' && typeof level.message === 'string') words.push(level.message);
    if (typeof level.data === 'string') words.push(level.data);
    current = (current as { cause?: unknown }).cause;
  }
  if (words.length === 0 && typeof error === 'string') words.push(error);
  return { code, message: [...new Set(words)].join(' | ') };
}

/** JSON-RPC "method not found". */
const METHOD_NOT_FOUND = -32601;

/** How nodes and providers say they do not serve a method, whatever code they send it with. */
const NOT_SERVED =
  /method not (?:found|supported|available|allowed)|(?:method|api) .*(?:does not exist|is not (?:available|supported|enabled)|not whitelisted|disabled)|unsupported method|unknown method|not supported/i;

/**
 * Whether a failed call says that the node does not serve the method at all (an older client, a
 * provider's plan), rather than failing this once: the caller then asks another way.
 */
export function refusesMethod(error: unknown): boolean {
  const { code, message } = rpcFailure(error);
  return code === METHOD_NOT_FOUND || NOT_SERVED.test(message);
}
