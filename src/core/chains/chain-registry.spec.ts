import { ADDRESS_FAMILIES } from '../addresses/families';
import { CHAIN_IDS, isChainId, sortChains } from './chain-ids';
import { CHAINS, chainFacts, EVM_CHAINS, isEvmChain, isFollowable, isUtxoChain } from './chain-registry';

/** CoinGecko's asset platform ids (its `/asset_platforms` list) for the chains it prices tokens on. */
const COINGECKO_PLATFORMS: Record<string, string> = {
  ethereum: 'ethereum',
  bnb: 'binance-smart-chain',
  polygon: 'polygon-pos',
  arbitrum: 'arbitrum-one',
  optimism: 'optimistic-ethereum',
  base: 'base',
  solana: 'solana',
  ton: 'the-open-network',
  sui: 'sui',
  aptos: 'aptos',
};

/** Contract §10: the chains followed over standard Ethereum JSON-RPC. */
const CONTRACT_FOLLOWED = ['ethereum', 'bnb', 'polygon', 'arbitrum', 'optimism', 'base'];
/** The Bitcoin family, followed from a node speaking Bitcoin Core's JSON-RPC (contract §13), in display order. */
const CONTRACT_UTXO: string[] = ['bitcoin', 'dogecoin', 'bitcoincash'];
/** Contract §16: Solana, followed over its own JSON-RPC. */
const CONTRACT_SOLANA: string[] = ['solana'];

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

describe('chain registry', () => {
  it('gives each chain a unique lowercase id, usable in environment variable names', () => {
    const ids = CHAINS.map((chain) => chain.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][a-z0-9]*$/);
  });

  it('gives each chain a unique display name', () => {
    const names = CHAINS.map((chain) => chain.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('derives CHAIN_IDS, isChainId and sortChains from the registry order', () => {
    expect(CHAIN_IDS).toEqual(CHAINS.map((chain) => chain.id));
    for (const id of CHAIN_IDS) expect(isChainId(id)).toBe(true);
    expect(isChainId('Bitcoin')).toBe(false);
    expect(isChainId('toString')).toBe(false);
    expect(sortChains([...CHAIN_IDS].reverse())).toEqual(CHAIN_IDS);
    for (const id of CHAIN_IDS) expect(chainFacts(id).id).toBe(id);
  });

  it('maps every address family to at least one chain, and no chain lists a family twice', () => {
    const familiesWithoutChain = ADDRESS_FAMILIES.filter(
      (family) => !CHAINS.some((chain) => chain.families.includes(family)),
    );
    expect(familiesWithoutChain).toEqual([]);
    for (const chain of CHAINS) expect(new Set(chain.families).size).toBe(chain.families.length);
  });

  it('follows exactly the EVM chains of contract §10 over JSON-RPC, each with its own EIP-155 id', () => {
    expect(EVM_CHAINS.map((chain) => chain.id)).toEqual(CONTRACT_FOLLOWED);
    const ids = EVM_CHAINS.map((chain) => chain.chainId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const chain of CHAINS) {
      if (isEvmChain(chain)) {
        expect(Number.isSafeInteger(chain.chainId) && chain.chainId > 0).toBe(true);
        expect(chain.families).toEqual(['evm']);
      } else {
        expect({ chain: chain.id, chainId: chain.chainId, rpc: chain.rpc }).toEqual({
          chain: chain.id,
          chainId: -1,
          rpc: CONTRACT_UTXO.includes(chain.id)
            ? 'bitcoin-json-rpc'
            : CONTRACT_SOLANA.includes(chain.id)
              ? 'solana-json-rpc'
              : chain.id === 'ton'
                ? 'toncenter-http' // contract §16
                : chain.id === 'aptos'
                  ? 'aptos-rest' // its own source (src/modules/follow/aptos), where §10 waited for one
                  : chain.id === 'sui'
                    ? 'sui-grpc' // likewise (src/modules/follow/sui)
                    : undefined,
        });
      }
    }
  });

  it("follows the Bitcoin family of contract §13 over Bitcoin Core's JSON-RPC", () => {
    expect(CHAINS.filter(isUtxoChain).map((chain) => chain.id)).toEqual(CONTRACT_UTXO);
    expect(CHAINS.filter(isFollowable).map((chain) => chain.id)).toEqual(
      CHAINS.map((chain) => chain.id).filter(
        (id) =>
          CONTRACT_FOLLOWED.includes(id) ||
          CONTRACT_UTXO.includes(id) ||
          CONTRACT_SOLANA.includes(id) ||
          id === 'ton' ||
          id === 'aptos' ||
          id === 'sui',
      ),
    );
  });

  it('names the CoinGecko platform of every chain with contracts a follower discovers, and of no other', () => {
    expect(
      Object.fromEntries(
        CHAINS.flatMap((chain) => (chain.coingeckoPlatform ? [[chain.id, chain.coingeckoPlatform]] : [])),
      ),
    ).toEqual(COINGECKO_PLATFORMS);
  });

  it('keeps followers of EVM chains a positive whole number of blocks behind, 12 on ethereum (contract §10)', () => {
    for (const chain of EVM_CHAINS) {
      expect({
        chain: chain.id,
        ok: Number.isSafeInteger(chain.defaultConfirmations) && chain.defaultConfirmations > 0,
      }).toEqual({
        chain: chain.id,
        ok: true,
      });
    }
    expect(chainFacts('ethereum').defaultConfirmations).toBe(12);
    for (const chain of CHAINS) {
      expect(Number.isSafeInteger(chain.defaultConfirmations) && chain.defaultConfirmations >= 0).toBe(true);
    }
  });

  it('gives every native coin a CoinGecko slug, a symbol, whole decimals and an https icon', () => {
    for (const { id, native } of CHAINS) {
      expect({ id, slug: SLUG.test(native.coingeckoId) }).toEqual({ id, slug: true });
      expect(native.name.trim()).not.toBe('');
      expect(native.symbol).toMatch(/^[A-Z0-9]+$/);
      expect(Number.isInteger(native.decimals) && native.decimals >= 0 && native.decimals <= 78).toBe(true);
      expect(new URL(native.iconUrl).protocol).toBe('https:');
    }
  });

  it('describes a native coin shared by several chains the same way on each', () => {
    for (const chain of CHAINS) {
      for (const other of CHAINS.filter((c) => c.native.coingeckoId === chain.native.coingeckoId)) {
        expect(other.native).toEqual(chain.native);
      }
    }
  });
});
