import { isAddressOnChain } from '../../../core/addresses';
import type { ChainId } from '../../../core/chains/chain-ids';
import type { AddressShape } from '../chain-source';

/** Bitcoin-family addresses: Base58 (legacy, Dogecoin), bech32 (`bc1`) and CashAddr forms. */
export function utxoAddressShape(chain: ChainId): AddressShape {
  const prefixes: Record<string, string[]> = {
    bitcoin: ['1', '3', 'bc1'],
    bitcoincash: ['1', '3', 'bitcoincash:'],
    dogecoin: ['D', 'A', '9'],
  };
  return {
    prefixes: prefixes[chain] ?? [],
    minLength: 25,
    maxLength: 90,
    valid: (address) => isAddressOnChain(address, chain),
  };
}
