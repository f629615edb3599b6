import { isAddress } from 'viem';

import { chainNamesOfFamily, FamilyMatch, isSingleCase, matched, rejected } from './address-families';

const EVM_HEX_DIGITS = 40;
const MOVE_HEX_DIGITS = 64;
const HEX_DIGITS = /^[0-9a-fA-F]*$/;
const WRONG_LENGTH = `0x addresses need ${EVM_HEX_DIGITS} (EVM) or ${MOVE_HEX_DIGITS} (${chainNamesOfFamily('move')}) hex digits`;

/** `0x…` inputs: 20-byte EVM accounts and 32-byte Move (Sui, Aptos) accounts. */
export function parseHexAddress(input: string): FamilyMatch | undefined {
  if (!/^0[xX]/.test(input)) return undefined;
  if (!input.startsWith('0x')) return rejected('hex addresses must start with a lowercase "0x"');

  const digits = input.slice(2);
  if (!HEX_DIGITS.test(digits)) return rejected('address contains a non-hex character after "0x"');
  if (digits.length === EVM_HEX_DIGITS) return parseEvmAddress(input, digits);
  if (digits.length === MOVE_HEX_DIGITS) return matched('move', input.toLowerCase());
  return rejected(`${WRONG_LENGTH}, got ${digits.length}`);
}

function parseEvmAddress(input: string, digits: string): FamilyMatch {
  // EIP-55 hides its checksum in the letter case, so only mixed-case input carries one; single-case input
  // (what many explorers and exchanges print) has nothing to verify and is accepted as is.
  if (!isSingleCase(digits) && !isAddress(input, { strict: true })) {
    return rejected('EIP-55 checksum mismatch');
  }
  return matched('evm', input.toLowerCase());
}
