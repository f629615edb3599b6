import type { ChainNetwork } from '../../../config/config';

/** Aptos's chain ids (its `NamedChain`): mainnet 1, testnet 2, and 4 for a local network (`aptos node run-localnet`). */
export const MAINNET_CHAIN_ID = 1;
const TESTNET_CHAIN_ID = 2;
export const LOCALNET_CHAIN_ID = 4;

/**
 * Undefined when a node whose `GET /v1` says `chainId` is on the network the settings name, else a
 * sentence saying why not, for `GET /v2/sync` (no URL in it). `mainnet` takes chain id 1 alone,
 * `localnet` 4 alone: testnet (2) and devnet (an id of its own for each reset) are neither.
 */
export function chainIdMismatch(network: ChainNetwork, chainId: number): string | undefined {
  const expected = network === 'localnet' ? LOCALNET_CHAIN_ID : MAINNET_CHAIN_ID;
  if (chainId === expected) return undefined;
  const named =
    chainId === MAINNET_CHAIN_ID
      ? "mainnet's"
      : chainId === TESTNET_CHAIN_ID
        ? "testnet's"
        : chainId === LOCALNET_CHAIN_ID
          ? "a local network's"
          : 'not a network chaintags follows';
  return `NETWORK_APTOS is ${network}, but the node's chain id ${chainId} is ${named}`;
}
