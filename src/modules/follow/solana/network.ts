import type { ChainNetwork } from '../../../config/config';
import type { SolanaRpc } from './solana-rpc';

/** Mainnet-beta's genesis hash, as `getGenesisHash` answers it on mainnet (Solana's cluster documentation). */
export const MAINNET_GENESIS_HASH = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d';

/**
 * Undefined when the node is on the network the settings name, else a sentence saying why not, for
 * `GET /v2/sync` (no URL in it). `mainnet`: `getGenesisHash` must be mainnet-beta's (devnet,
 * testnet and a local validator each have their own). `localnet`: any node is accepted; that is a
 * `solana-test-validator`, a Surfpool or a test's stand-in, whose genesis is made when it starts.
 */
export async function networkMismatch(rpc: SolanaRpc, network: ChainNetwork): Promise<string | undefined> {
  const genesis = await rpc.call((client) => client.getGenesisHash());
  if (network === 'localnet' || genesis === MAINNET_GENESIS_HASH) return undefined;
  const shown = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(genesis) ? ` (${genesis})` : '';
  return `NETWORK_SOLANA is mainnet, but the node's genesis hash${shown} is not mainnet-beta's`;
}
