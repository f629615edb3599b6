import { keccak_256 } from '@noble/hashes/sha3.js';

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
  if (!isSingleCase(digits) && !hasEip55Checksum(digits)) return rejected('EIP-55 checksum mismatch');
  return matched('evm', input.toLowerCase());
}

/**
 * EIP-55: a hex letter is upper case exactly where the nibble at its position of keccak-256 over
 * the lowercase digits (as ASCII) is 8 or more. Computed here with @noble/hashes rather than by
 * viem's `isAddress`: viem's index takes about 95 ms to load, which every server start and
 * command paid for this one check.
 */
function hasEip55Checksum(digits: string): boolean {
  const lower = digits.toLowerCase();
  const hash = keccak_256(Buffer.from(lower, 'latin1'));
  for (let index = 0; index < lower.length; index++) {
    const byte = hash[index >> 1] ?? 0;
    const nibble = index % 2 === 0 ? byte >> 4 : byte & 0x0f;
    const char = lower.charAt(index);
    if (digits.charAt(index) !== (nibble >= 8 ? char.toUpperCase() : char)) return false;
  }
  return true;
}
