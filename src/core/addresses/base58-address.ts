import { sha256 } from '@noble/hashes/sha2.js';
import { base58, createBase58check } from '@scure/base';

import { FamilyMatch, matched, rejected } from './address-families';
import { ADDRESS_FAMILIES, AddressFamily, FAMILY_FACTS } from './families';

const base58check = createBase58check(sha256);

// Shortest Bitcoin P2PKH address is 25 characters, longest Solana address 44; anything outside cannot be ours.
const BASE58_SHAPE = /^[1-9A-HJ-NP-Za-km-z]{25,44}$/;
const BASE58CHECK_BYTES = 25; // version byte + 20-byte hash + 4-byte checksum
const SOLANA_BYTES = 32;

/** Mainnet version byte → family, for the families written in Base58Check. */
const FAMILY_BY_VERSION_BYTE: ReadonlyMap<number, AddressFamily> = new Map(
  ADDRESS_FAMILIES.flatMap((family) =>
    (FAMILY_FACTS[family].base58CheckVersions ?? []).map((version) => [version, family] as const),
  ),
);

/**
 * Base58 inputs: Base58Check (Bitcoin legacy, Dogecoin) or a raw 32-byte Solana key. The two never collide:
 * a Base58 string has exactly one decoded length, 25 bytes for Base58Check and 32 for Solana.
 */
export function parseBase58Address(input: string): FamilyMatch | undefined {
  if (!BASE58_SHAPE.test(input)) return undefined;

  const byteLength = base58.decode(input).length;
  if (byteLength === BASE58CHECK_BYTES) return parseBase58CheckAddress(input);
  if (byteLength === SOLANA_BYTES) return matched('solana', input);
  return rejected(`Base58 string decodes to ${byteLength} bytes, not a 25-byte Base58Check or 32-byte Solana address`);
}

function parseBase58CheckAddress(input: string): FamilyMatch {
  let payload: Uint8Array;
  try {
    payload = base58check.decode(input);
  } catch {
    return rejected('Base58Check checksum mismatch');
  }
  const versionByte = payload[0] ?? -1;
  const family = FAMILY_BY_VERSION_BYTE.get(versionByte);
  if (family === undefined) {
    return rejected(
      `unsupported Base58Check version byte 0x${versionByte.toString(16).padStart(2, '0')} (testnet or another coin)`,
    );
  }
  return matched(family, input);
}
