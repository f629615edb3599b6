import type { FollowedChainConfig } from '../../config/config';
import type { Chain, SourceKind } from '../../core/chains/chain-registry';
import type { ChainId } from '../../core/chains/chain-ids';
import type { AddressShape, ChainSource } from './chain-source';
import { evmAddressShape, EvmSource } from './evm/evm-source';
import { solanaAddressShape, SolanaSource } from './solana/solana-source';
import { utxoAddressShape, UtxoSource } from './utxo/utxo-source';
import type { UtxoRepository } from './utxo/utxo.repository';
import { tonAddressShape, TonSource } from './ton/ton-source';
import type { TonRepository } from './ton/ton.repository';

/** What sources keep in the database besides the followers' own tables. */
export interface SourceStores {
  utxo: UtxoRepository;
  ton: TonRepository;
}

/**
 * The chain families chaintags follows: one source per kind of node API in the chain registry
 * (`rpc`). Adding a family is a folder with its `ChainSource` and one entry here.
 */
const SOURCES: {
  [Kind in SourceKind]: (
    chain: Chain & { rpc: Kind },
    settings: FollowedChainConfig,
    stores: SourceStores,
  ) => ChainSource;
} = {
  'evm-json-rpc': (chain, settings) => new EvmSource(chain, settings),
  'bitcoin-json-rpc': (_chain, settings, stores) => new UtxoSource(settings, stores.utxo),
  'solana-json-rpc': (chain, settings) => new SolanaSource(chain, settings),
  'toncenter-http': (chain, settings, stores) => new TonSource(chain, settings, stores.ton),
};

/** Which tracked addresses each kind of chain can follow; `GET /v2/sync` asks it of chains this process does not follow too. */
const SHAPES: { [Kind in SourceKind]: (chain: ChainId) => AddressShape } = {
  'evm-json-rpc': evmAddressShape,
  'bitcoin-json-rpc': utxoAddressShape,
  'solana-json-rpc': solanaAddressShape,
  'toncenter-http': tonAddressShape,
};

export function addressShapeFor(chain: Chain): AddressShape | undefined {
  return chain.rpc === undefined ? undefined : SHAPES[chain.rpc](chain.id);
}

/** The source that follows `chain` with `settings`, undefined for a chain followed by import only. */
export function sourceFor(chain: Chain, settings: FollowedChainConfig, stores: SourceStores): ChainSource | undefined {
  if (chain.rpc === undefined) return undefined;
  const make = SOURCES[chain.rpc] as (chain: Chain, settings: FollowedChainConfig, stores: SourceStores) => ChainSource;
  return make(chain, settings, stores);
}
