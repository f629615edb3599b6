import type { FollowedChainConfig } from '../../config/config';
import type { ChainId } from '../../core/chains/chain-ids';
import { chainFacts } from '../../core/chains/chain-registry';
import type { SourceStores } from './sources';

const FAMILIES = [
  'evm/evm-source',
  'utxo/utxo-source',
  'solana/solana-source',
  'ton/ton-source',
  'aptos/aptos-source',
  'sui/sui-source',
];

function settings(chain: ChainId): FollowedChainConfig {
  return {
    chain,
    rpcUrls: ['http://127.0.0.1:9'],
    confirmations: 0,
    startBlock: 0n,
    nativeBackfillBlocks: 0n,
    network: 'localnet',
  };
}

describe('chain sources', () => {
  it("requires a family's module, and its node client, only when a chain of that family is followed", () => {
    const required: string[] = [];
    jest.isolateModules(() => {
      for (const family of FAMILIES) {
        jest.doMock(`./${family}`, () => {
          required.push(family);
          return jest.requireActual(`./${family}`);
        });
      }
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh copy, inside isolateModules
      const { addressShapeFor, sourceFor } = require('./sources') as typeof import('./sources');
      for (const chain of ['ethereum', 'bitcoin', 'solana', 'ton', 'aptos', 'sui'] as const) {
        expect(addressShapeFor(chainFacts(chain))?.valid).toBeInstanceOf(Function);
      }
      expect(required).toEqual([]);
      const stores = {} as SourceStores;
      expect(sourceFor(chainFacts('solana'), settings('solana'), stores)?.constructor.name).toBe('SolanaSource');
      expect(required).toEqual(['solana/solana-source']);
      expect(sourceFor(chainFacts('ton'), settings('ton'), stores)?.constructor.name).toBe('TonSource');
      expect(required).toEqual(['solana/solana-source', 'ton/ton-source']);
      expect(sourceFor(chainFacts('aptos'), settings('aptos'), stores)?.constructor.name).toBe('AptosSource');
      expect(sourceFor(chainFacts('sui'), settings('sui'), stores)?.constructor.name).toBe('SuiSource');
      expect(required).toEqual(['solana/solana-source', 'ton/ton-source', 'aptos/aptos-source', 'sui/sui-source']);
    });
  });
});
