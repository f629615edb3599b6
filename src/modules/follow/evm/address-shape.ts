import { isAddressOnChain } from '../../../core/addresses';
import type { ChainId } from '../../../core/chains/chain-ids';
import type { AddressShape } from '../chain-source';

/** EVM accounts: lowercase 0x and 40 hex digits (Sui and Aptos addresses are longer). */
export function evmAddressShape(chain: ChainId): AddressShape {
  return { prefixes: ['0x'], minLength: 42, maxLength: 42, valid: (address) => isAddressOnChain(address, chain) };
}
