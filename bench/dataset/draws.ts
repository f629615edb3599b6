/**
 * The skewed draws of the dataset: chains by their share of the transactions, and addresses by
 * activity, a Zipf distribution (s = 1) over each chain's ranking of its addresses.
 */
import { CHAIN_IDS, ChainId } from '../../src/core/chains/chain-ids';
import { Random, weightedPicker } from '../lib/random';
import type { Population } from './addresses';

/** Share of the transactions per chain, in percent; a chain not listed gets 1. */
const CHAIN_SHARE: Partial<Record<ChainId, number>> = {
  bitcoin: 8,
  ethereum: 20,
  bnb: 12,
  solana: 15,
  dogecoin: 2,
  bitcoincash: 1,
  ton: 5,
  polygon: 8,
  arbitrum: 8,
  optimism: 4,
  base: 10,
  sui: 4,
  aptos: 3,
};

/** A chain, drawn by its share of the transactions. */
export const chainPicker = weightedPicker(CHAIN_IDS.map((chain) => [chain, CHAIN_SHARE[chain] ?? 1] as const));

/** Rank in [0, n) with P(rank < k) ≈ ln(k + 1) / ln(n + 1): Zipf with s = 1. */
export function zipf(random: Random, n: number): number {
  return Math.min(n - 1, Math.floor((n + 1) ** random.float()) - 1);
}

/** An address of `chain` drawn by activity: the higher it ranks in the chain's pool, the likelier. */
export function busyOn(random: Random, population: Population, chain: ChainId): number {
  const pool = population.pools.get(chain)!;
  return pool[zipf(random, pool.length)]!;
}

/** An address drawn like a transaction's sender: the busier an address, the likelier. */
export function activeAddressDraw(random: Random, population: Population): () => number {
  return () => busyOn(random, population, chainPicker(random));
}
