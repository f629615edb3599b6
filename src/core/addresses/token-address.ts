import { ChainId, isChainId } from '../chains/chain-ids';
import { chainsOfFamily } from './address-families';
import { canonicalAddressOnChain } from './address-parser';

export type TokenAddressParseResult = { ok: true; canonical: string } | { ok: false; reason: string };

/** The token id chaintags uses for a chain's native coin. */
export const NATIVE_TOKEN = '0';

// A Move coin type may legitimately exceed the 128-character address limit (64-hex address plus two identifiers).
export const MAX_COIN_TYPE_LENGTH = 256;
const MOVE_ADDRESS_HEX_DIGITS = 64;
const MOVE_COIN_TYPE = /^0x([0-9a-fA-F]{1,64})::([A-Za-z_][A-Za-z0-9_]*)::([A-Za-z_][A-Za-z0-9_]*)$/;
/** The chains whose tokens may be Move coin types: those of the Move address family. */
export const MOVE_CHAINS: readonly ChainId[] = chainsOfFamily('move');

/**
 * A token id on `chain`: `'0'` for the native coin, a contract/mint/jetton address valid on that chain, or on
 * a Move chain (Sui, Aptos) a coin type `0x<address>::<module>::<Name>`.
 */
export function parseTokenAddress(chain: ChainId, input: string): TokenAddressParseResult {
  if (typeof chain !== 'string' || !isChainId(chain)) return { ok: false, reason: 'unsupported chain' };
  if (input === NATIVE_TOKEN) return { ok: true, canonical: NATIVE_TOKEN };
  if (MOVE_CHAINS.includes(chain) && typeof input === 'string' && input.includes('::')) return parseMoveCoinType(input);

  const parsed = canonicalAddressOnChain(input, chain);
  return parsed.ok ? { ok: true, canonical: parsed.address.canonical } : parsed;
}

function parseMoveCoinType(input: string): TokenAddressParseResult {
  if (input.length > MAX_COIN_TYPE_LENGTH) {
    return { ok: false, reason: `coin type is longer than ${MAX_COIN_TYPE_LENGTH} characters` };
  }
  const parts = MOVE_COIN_TYPE.exec(input);
  if (!parts) return { ok: false, reason: 'coin type must look like 0x<address>::<module>::<Name>' };

  const [, address = '', moduleName = '', typeName = ''] = parts;
  // Sui and Aptos both treat 0x2 and 0x00…02 as the same account; padding gives each coin type one spelling.
  const paddedAddress = address.toLowerCase().padStart(MOVE_ADDRESS_HEX_DIGITS, '0');
  return { ok: true, canonical: `0x${paddedAddress}::${moduleName}::${typeName}` };
}
