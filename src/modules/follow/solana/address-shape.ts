import { isAddressOnChain } from '../../../core/addresses';
import type { ChainId } from '../../../core/chains/chain-ids';
import type { AddressShape } from '../chain-source';

/** Solana accounts: Base58 32-byte keys, 32 to 44 characters, case kept. */
export function solanaAddressShape(chain: ChainId): AddressShape {
  // Any first character: Base58 strings of those lengths that are not 32-byte keys (Bitcoin's) fail `valid`.
  return { prefixes: [''], minLength: 32, maxLength: 44, valid: (address) => isAddressOnChain(address, chain) };
}
