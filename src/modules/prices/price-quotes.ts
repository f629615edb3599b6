import { tonFriendlyAddress } from '../../core/addresses/ton-address';
import { isChainId } from '../../core/chains/chain-ids';
import { chainFacts } from '../../core/chains/chain-registry';
import { plainDecimal } from '../../core/money/plain-decimal';
import { discoveredTokenId } from '../../core/tokens/discovered-token-id';

/**
 * What chaintags asks a CoinGecko-compatible source, and what it accepts from the answers. Pure:
 * the service sends the requests and stores the quotes.
 */

/** A token as the poller sees it: its id, and its deployment when it has exactly one. */
export interface KnownToken {
  id: string;
  deployment?: { chain: string; address: string };
}

/** How one token is priced: by its id, or by its contract on the chain's CoinGecko platform. */
export type PriceTarget =
  { tokenId: string; by: 'id' } | { tokenId: string; by: 'contract'; platform: string; contract: string };

/**
 * A token a follower discovered (its one deployment's discoveredTokenId is its id) is priced by its
 * contract on the chain's CoinGecko platform, in the form CoinGecko lists it: an EVM contract or a
 * Solana mint as stored, a TON master user-friendly (`EQ…`), a Sui coin type or an Aptos asset's
 * address as stored. Every other token (shipped, imported) is priced by its id, a CoinGecko id.
 */
export function priceTarget(token: KnownToken): PriceTarget {
  const { id: tokenId, deployment } = token;
  if (deployment === undefined || !isChainId(deployment.chain)) return { tokenId, by: 'id' };
  const platform = chainFacts(deployment.chain).coingeckoPlatform;
  if (platform === undefined || discoveredTokenId(deployment.chain, deployment.address) !== tokenId) {
    return { tokenId, by: 'id' };
  }
  const contract = deployment.chain === 'ton' ? tonFriendlyAddress(deployment.address) : deployment.address;
  return { tokenId, by: 'contract', platform, contract };
}

export interface PriceRequest {
  /** Path and query, appended to PRICE_SOURCE_URL. */
  path: string;
  /** The keys asked for (ids, or contracts as sent) and the token each one prices. */
  tokens: ReadonlyMap<string, string>;
}

export interface RequestLimits {
  /** CoinGecko documents at most 515 ids or contract addresses per request. */
  maxKeys: number;
  /** Full URLs stay below what proxies and servers commonly accept. */
  maxUrlLength: number;
}

export const REQUEST_LIMITS: RequestLimits = { maxKeys: 500, maxUrlLength: 4000 };

const USD_QUERY = 'vs_currencies=usd&include_last_updated_at=true';

/**
 * The requests that price every target: `/simple/price` for ids, `/simple/token_price/{platform}`
 * for contracts, each batch as large as the limits allow. Targets come in a stable order, so the
 * same tokens give the same requests.
 */
export function planRequests(
  targets: readonly PriceTarget[],
  baseUrlLength: number,
  limits: RequestLimits = REQUEST_LIMITS,
): PriceRequest[] {
  const groups = new Map<string, Map<string, string>>();
  for (const target of targets) {
    const prefix =
      target.by === 'id' ? '/simple/price?ids=' : `/simple/token_price/${target.platform}?contract_addresses=`;
    const key = target.by === 'id' ? target.tokenId : target.contract;
    const group = groups.get(prefix) ?? new Map<string, string>();
    groups.set(prefix, group);
    group.set(key, target.tokenId);
  }
  const requests: PriceRequest[] = [];
  for (const [prefix, group] of groups) {
    const fixedLength = baseUrlLength + prefix.length + 1 + USD_QUERY.length;
    let keys: string[] = [];
    let length = fixedLength;
    const flush = () => {
      if (keys.length === 0) return;
      requests.push({
        path: `${prefix}${keys.map(encodeURIComponent).join(',')}&${USD_QUERY}`,
        tokens: new Map(keys.map((key) => [key, group.get(key)!])),
      });
      keys = [];
      length = fixedLength;
    };
    for (const key of group.keys()) {
      const encoded = encodeURIComponent(key).length;
      if (keys.length >= limits.maxKeys || (keys.length > 0 && length + 1 + encoded > limits.maxUrlLength)) flush();
      length += (keys.length > 0 ? 1 : 0) + encoded;
      keys.push(key);
    }
    flush();
  }
  return requests;
}

/** A price to store: `usd` as exact decimal text, `at` the source's `last_updated_at`. */
export interface Quote {
  tokenId: string;
  usd: string;
  at: string;
}

export interface Rejected {
  tokenId: string;
  reason: string;
}

export interface ReadAnswer {
  quotes: Quote[];
  /** Entries whose value is absurd: not stored. */
  rejected: Rejected[];
  /** Tokens the answer says nothing about: ids or contracts the source does not know. */
  unknown: string[];
}

/** No token is worth a trillion dollars; a larger value is a unit or decimal-point error. */
export const MAX_USD = 1e12;
/** CoinGecko's data starts in 2013; an earlier `last_updated_at` is not a real one. */
const EARLIEST_AT_SECONDS = Date.UTC(2009, 0, 1) / 1000;
/** Tolerated clock difference between the source and this host. */
const FUTURE_SKEW_SECONDS = 3600;

export class MalformedAnswer extends Error {}

/**
 * Reads a `/simple/price` or `/simple/token_price` answer, `{"<key>": {"usd": <number>,
 * "last_updated_at": <unix seconds>}}`. A key is found as it was sent, else in any case (CoinGecko
 * lowercases EVM contracts). An answer that is not such an object is malformed as a whole; a
 * single absurd entry is rejected and the others are kept.
 */
export function readAnswer(body: unknown, request: PriceRequest, nowMs: number): ReadAnswer {
  if (!isPlainObject(body)) throw new MalformedAnswer(`answered ${describe(body)}, not an object of prices`);
  const exact = new Map(Object.entries(body));
  const folded = new Map(Object.entries(body).map(([key, value]) => [key.toLowerCase(), value]));
  const result: ReadAnswer = { quotes: [], rejected: [], unknown: [] };
  for (const [key, tokenId] of request.tokens) {
    const entry = exact.get(key) ?? folded.get(key.toLowerCase());
    if (entry === undefined) {
      result.unknown.push(tokenId);
      continue;
    }
    const problem = checkEntry(entry, nowMs);
    if (typeof problem === 'string') result.rejected.push({ tokenId, reason: problem });
    else result.quotes.push({ tokenId, ...problem });
  }
  return result;
}

function checkEntry(entry: unknown, nowMs: number): string | { usd: string; at: string } {
  if (!isPlainObject(entry)) return `the entry is ${describe(entry)}, not an object`;
  const { usd, last_updated_at: updated } = entry;
  if (typeof usd !== 'number' || !Number.isFinite(usd)) return `usd is ${describe(usd)}, not a number`;
  if (usd <= 0) return `usd is ${usd}, not above 0`;
  if (usd > MAX_USD) return `usd is ${usd}, above ${MAX_USD}`;
  if (typeof updated !== 'number' || !Number.isFinite(updated)) {
    return `last_updated_at is ${describe(updated)}, not unix seconds`;
  }
  if (updated < EARLIEST_AT_SECONDS || updated > nowMs / 1000 + FUTURE_SKEW_SECONDS) {
    return `last_updated_at ${updated} is not a plausible time`;
  }
  return { usd: plainDecimal(usd), at: new Date(Math.floor(updated * 1000)).toISOString() };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value quoted for a log line, cut short. */
function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (typeof value === 'number') return String(value);
  const text = JSON.stringify(value) ?? typeof value;
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}
