import { isAddressOnChain } from '../../../core/addresses';
import type { ChainId } from '../../../core/chains/chain-ids';
import type { AddressShape } from '../chain-source';

/** Sui accounts: `0x` and 64 hex digits, lowercase (the shape Aptos shares). */
export function suiAddressShape(chain: ChainId): AddressShape {
  return { prefixes: ['0x'], minLength: 66, maxLength: 66, valid: (address) => isAddressOnChain(address, chain) };
}
