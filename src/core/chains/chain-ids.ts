import { CHAINS, type ChainId } from './chain-registry';

export type { ChainId };

/**
 * The supported chains' identifiers, in the order `GET /v2/chains` lists them (the registry's).
 * Every list of chain identifiers the API returns (an address's `chains`, for instance) follows it.
 */
export const CHAIN_IDS: readonly ChainId[] = CHAINS.map((chain) => chain.id);

const chainIdSet: ReadonlySet<string> = new Set(CHAIN_IDS);

export function isChainId(value: string): value is ChainId {
  return chainIdSet.has(value);
}

export function sortChains(chains: Iterable<ChainId>): ChainId[] {
  const wanted = new Set(chains);
  return CHAIN_IDS.filter((chain) => wanted.has(chain));
}
