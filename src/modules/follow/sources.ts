import type { FollowedChainConfig } from '../../config/config';
import type { Chain, SourceKind } from '../../core/chains/chain-registry';
import type { ChainId } from '../../core/chains/chain-ids';
import type { AddressShape, ChainSource } from './chain-source';
import { aptosAddressShape } from './aptos/address-shape';
import { evmAddressShape } from './evm/address-shape';
import { solanaAddressShape } from './solana/address-shape';
import { suiAddressShape } from './sui/address-shape';
import { tonAddressShape } from './ton/address-shape';
import { utxoAddressShape } from './utxo/address-shape';
import type { UtxoRepository } from './utxo/utxo.repository';
import type { TonRepository } from './ton/ton.repository';

/** What sources keep in the database besides the followers' own tables. */
export interface SourceStores {
  utxo: UtxoRepository;
  ton: TonRepository;
}

/**
 * The chain families chaintags follows: one source per kind of node API in the chain registry
 * (`rpc`). Adding a family is a folder with its `ChainSource` and address shape, and one entry
 * here and in SHAPES. A family's module (and the node client it is built on) is required when a
 * chain of the family is followed, not before: a process that serves the API only, or follows
 * the EVM chains, does not carry the Solana and TON clients (about 37 MiB of memory between them).
 * `require`, not `import()`: the module setting keeps `import()` as ES module loading, and a
 * source is made synchronously.
 */
const SOURCES: {
  [Kind in SourceKind]: (
    chain: Chain & { rpc: Kind },
    settings: FollowedChainConfig,
    stores: SourceStores,
  ) => ChainSource;
} = {
  'evm-json-rpc': (chain, settings) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when followed, see above
    const { EvmSource } = require('./evm/evm-source') as typeof import('./evm/evm-source');
    return new EvmSource(chain, settings);
  },
  'bitcoin-json-rpc': (_chain, settings, stores) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when followed, see above
    const { UtxoSource } = require('./utxo/utxo-source') as typeof import('./utxo/utxo-source');
    return new UtxoSource(settings, stores.utxo);
  },
  'solana-json-rpc': (chain, settings) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when followed, see above
    const { SolanaSource } = require('./solana/solana-source') as typeof import('./solana/solana-source');
    return new SolanaSource(chain, settings);
  },
  'toncenter-http': (chain, settings, stores) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when followed, see above
    const { TonSource } = require('./ton/ton-source') as typeof import('./ton/ton-source');
    return new TonSource(chain, settings, stores.ton);
  },
  'aptos-rest': (chain, settings) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when followed, see above
    const { AptosSource } = require('./aptos/aptos-source') as typeof import('./aptos/aptos-source');
    return new AptosSource(chain, settings);
  },
  'sui-grpc': (chain, settings) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when followed, see above
    const { SuiSource } = require('./sui/sui-source') as typeof import('./sui/sui-source');
    return new SuiSource(chain, settings);
  },
};

/** Which tracked addresses each kind of chain can follow; `GET /v2/sync` asks it of chains this process does not follow too. */
const SHAPES: { [Kind in SourceKind]: (chain: ChainId) => AddressShape } = {
  'evm-json-rpc': evmAddressShape,
  'bitcoin-json-rpc': utxoAddressShape,
  'solana-json-rpc': solanaAddressShape,
  'toncenter-http': tonAddressShape,
  'aptos-rest': aptosAddressShape,
  'sui-grpc': suiAddressShape,
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
