/**
 * The dataset's addresses: a population drawn family by family, each address spelled as a wallet
 * prints it beside its canonical form, and ranked per chain for the skewed draws (draws.ts).
 */
import { encodeCashAddress } from '@bitauth/libauth/build/lib/address/cash-address.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base58, bech32, createBase58check } from '@scure/base';
import { Address } from '@ton/core';
import { getAddress } from 'viem';
import { canonicalAddressOnChain, type AddressFamily } from '../../src/core/addresses';
import { chainsOfFamily } from '../../src/core/addresses/address-families';
import { ADDRESS_FAMILIES } from '../../src/core/addresses/families';
import { CHAIN_IDS, ChainId } from '../../src/core/chains/chain-ids';
import { Random, weightedPicker } from '../lib/random';

/** Share of the address population per family, in percent. */
const FAMILY_SHARE: readonly [AddressFamily, number][] = [
  ['evm', 55],
  ['bitcoin_segwit', 6],
  ['bitcoin_legacy', 4],
  ['bitcoin_cash', 3],
  ['dogecoin', 4],
  ['solana', 14],
  ['ton', 6],
  ['move', 8],
];

/** The chains each family's addresses are valid on, from the chain registry. */
const FAMILY_CHAINS = new Map(ADDRESS_FAMILIES.map((family) => [family, chainsOfFamily(family)]));
export const chainsOf = (family: AddressFamily): readonly ChainId[] => FAMILY_CHAINS.get(family) ?? [];
export const EVM_CHAINS = chainsOf('evm');

const base58check = createBase58check(sha256);

export interface Population {
  /** As a wallet prints it. */
  spelling: string[];
  canonical: string[];
  family: AddressFamily[];
  /** Address indexes by chain, most active first. */
  pools: Map<ChainId, number[]>;
}

export function buildPopulation(random: Random, count: number): Population {
  const familyPicker = weightedPicker(FAMILY_SHARE);
  const spelling: string[] = [];
  const canonical: string[] = [];
  const family: AddressFamily[] = [];
  for (let index = 0; index < count; index += 1) {
    const chosen = familyPicker(random);
    const address = newAddress(random, chosen);
    spelling.push(address.spelling);
    canonical.push(address.canonical);
    family.push(chosen);
  }
  checkSpellings(spelling, canonical, family);
  return { spelling, canonical, family, pools: rankPools(random, family) };
}

/** Every spelling must be what chaintags reads back as the canonical form, on every chain of the family. */
function checkSpellings(spelling: string[], canonical: string[], family: AddressFamily[]): void {
  for (let index = 0; index < spelling.length; index += 1) {
    for (const chain of chainsOf(family[index]!)) {
      const parsed = canonicalAddressOnChain(spelling[index]!, chain);
      if (!parsed.ok || parsed.address.canonical !== canonical[index]) {
        throw new Error(`generated an address chaintags reads differently on ${chain}: ${spelling[index]}`);
      }
    }
  }
}

/** Each chain's addresses in a random order, which is their ranking by activity. */
function rankPools(random: Random, family: AddressFamily[]): Map<ChainId, number[]> {
  const pools = new Map<ChainId, number[]>();
  for (const chain of CHAIN_IDS) {
    const members: number[] = [];
    for (let index = 0; index < family.length; index += 1) {
      if (chainsOf(family[index]!).includes(chain)) members.push(index);
    }
    if (members.length === 0) throw new Error(`no addresses on ${chain}: the dataset needs more addresses`);
    pools.set(chain, members);
  }
  // One ranking for all EVM chains, so the same addresses are busy everywhere; others rank on their own.
  const evmRanking = random.shuffle([...pools.get(EVM_CHAINS[0]!)!]);
  for (const chain of CHAIN_IDS) {
    pools.set(chain, EVM_CHAINS.includes(chain) ? evmRanking : random.shuffle(pools.get(chain)!));
  }
  return pools;
}

function newAddress(random: Random, family: AddressFamily): { spelling: string; canonical: string } {
  switch (family) {
    case 'evm': {
      const canonical = `0x${random.hex(20)}`;
      return { spelling: random.chance(0.5) ? getAddress(canonical) : canonical, canonical };
    }
    case 'bitcoin_segwit': {
      const address = bech32.encode('bc', [0, ...bech32.toWords(random.bytes(20))]);
      return { spelling: address, canonical: address };
    }
    case 'bitcoin_legacy': {
      const address = base58check.encode(Uint8Array.from([0x00, ...random.bytes(20)]));
      return { spelling: address, canonical: address };
    }
    case 'bitcoin_cash': {
      const canonical = encodeCashAddress({ payload: random.bytes(20), type: 'p2pkh' }).address;
      return { spelling: canonical.slice('bitcoincash:'.length), canonical };
    }
    case 'dogecoin': {
      const address = base58check.encode(Uint8Array.from([0x1e, ...random.bytes(20)]));
      return { spelling: address, canonical: address };
    }
    case 'solana': {
      const address = base58.encode(random.bytes(32));
      return { spelling: address, canonical: address };
    }
    case 'ton': {
      const address = new Address(0, Buffer.from(random.bytes(32)));
      return {
        spelling: address.toString({ bounceable: random.chance(0.5), urlSafe: true }),
        canonical: address.toRawString(),
      };
    }
    case 'move': {
      const canonical = `0x${random.hex(32)}`;
      return { spelling: canonical, canonical };
    }
  }
}
