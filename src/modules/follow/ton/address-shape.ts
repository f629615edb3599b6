import { isAddressOnChain } from '../../../core/addresses';
import type { ChainId } from '../../../core/chains/chain-ids';
import type { AddressShape } from '../chain-source';

/** TON accounts chaintags follows live: basechain addresses in raw form (`0:` and 64 hex digits). */
export function tonAddressShape(chain: ChainId): AddressShape {
  return {
    prefixes: ['0:'],
    minLength: 66,
    maxLength: 66,
    valid: (address) => isAddressOnChain(address, chain),
  };
}
