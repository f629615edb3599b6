import type { ChainNetwork } from '../../../config/config';
import type { SolanaRpc } from './solana-rpc';

/** Mainnet-beta's genesis hash, as `getGenesisHash` answers it on mainnet (Solana's cluster documentation). */
export const MAINNET_GENESIS_HASH = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d';

/**
 * The public clusters' genesis hashes (the ones Solana's explorer and its client libraries use to
 * name a cluster): a node that answers one of them is on that cluster, never a local one.
 */
const PUBLIC_CLUSTERS: ReadonlyMap<string, string> = new Map([
  [MAINNET_GENESIS_HASH, 'mainnet-beta'],
  ['EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG', 'devnet'],
  ['4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY', 'testnet'],
]);

/**
 * Undefined when a node whose genesis hash is `genesis` is on the network the settings name, else
 * a sentence saying why not, for `GET /v2/sync` (no URL in it). `mainnet`: the genesis hash must
 * be mainnet-beta's (devnet, testnet and a local validator each have their own). `localnet`: a
 * `solana-test-validator`, a Surfpool or a test's stand-in, whose genesis is made when it starts;
 * a node on mainnet-beta, devnet or testnet is refused, so that a wrong URL never writes a public
 * cluster's transfers as a local network's.
 */
export function genesisMismatch(network: ChainNetwork, genesis: string): string | undefined {
  const shown = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(genesis) ? ` (${genesis})` : '';
  if (network === 'localnet') {
    const cluster = PUBLIC_CLUSTERS.get(genesis);
    if (cluster === undefined) return undefined;
    return `NETWORK_SOLANA is localnet, but the node's genesis hash${shown} is ${cluster}'s`;
  }
  if (genesis === MAINNET_GENESIS_HASH) return undefined;
  return `NETWORK_SOLANA is mainnet, but the node's genesis hash${shown} is not mainnet-beta's`;
}

/** `genesisMismatch` for the node `rpc` reaches: asks its `getGenesisHash`. */
export async function networkMismatch(rpc: SolanaRpc, network: ChainNetwork): Promise<string | undefined> {
  return genesisMismatch(network, await rpc.call((client) => client.getGenesisHash()));
}
