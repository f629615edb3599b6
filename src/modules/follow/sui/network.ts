import type { ChainNetwork } from '../../../config/config';

/**
 * Undefined when a node whose `GetServiceInfo` names the chain `chain` is on the network the
 * settings name, else a sentence saying why not, for `GET /v2/sync` (no URL in it). A Sui node
 * names its chain `mainnet`, `testnet`, or something else for any other (a local network, devnet):
 * `mainnet` takes `mainnet` alone, `localnet` anything but mainnet and testnet, so that a wrong URL
 * never writes a public network's transfers as a local one's.
 */
export function chainMismatch(network: ChainNetwork, chain: string | undefined): string | undefined {
  const named = chain === undefined || chain === '' ? 'names no chain' : `is on ${chain.slice(0, 40)}`;
  if (network === 'localnet') {
    if (chain !== 'mainnet' && chain !== 'testnet') return undefined;
    return `NETWORK_SUI is localnet, but the node ${named}`;
  }
  if (chain === 'mainnet') return undefined;
  return `NETWORK_SUI is mainnet, but the node ${named}`;
}
