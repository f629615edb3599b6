import type { ChainId } from './chain-ids';

// The chain registry will hold this as each EVM chain's `coingeckoPlatform`.
/** CoinGecko's asset platform id of each EVM chain, for pricing tokens by contract address. */
export const COINGECKO_PLATFORMS: Partial<Record<ChainId, string>> = {
  ethereum: 'ethereum',
  bnb: 'binance-smart-chain',
  polygon: 'polygon-pos',
  arbitrum: 'arbitrum-one',
  optimism: 'optimistic-ethereum',
  base: 'base',
};
