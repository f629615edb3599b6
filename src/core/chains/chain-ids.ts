/**
 * The thirteen supported chains, in the order `GET /v2/chains` lists them. Every list of chain
 * identifiers the API returns (an address's `chains`, for instance) follows this order.
 */
export const CHAIN_IDS = [
  'bitcoin',
  'ethereum',
  'bnb',
  'solana',
  'dogecoin',
  'bitcoincash',
  'ton',
  'polygon',
  'arbitrum',
  'optimism',
  'base',
  'sui',
  'aptos',
] as const;

export type ChainId = (typeof CHAIN_IDS)[number];

const chainIdSet: ReadonlySet<string> = new Set(CHAIN_IDS);

export function isChainId(value: string): value is ChainId {
  return chainIdSet.has(value);
}

export function sortChains(chains: Iterable<ChainId>): ChainId[] {
  const wanted = new Set(chains);
  return CHAIN_IDS.filter((chain) => wanted.has(chain));
}
