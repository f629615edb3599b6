// libauth's package entry uses top-level await, which CommonJS cannot require; this module of it has none.
import { CashAddressDecodingError, decodeCashAddress } from '@bitauth/libauth/build/lib/address/cash-address.js';

import { FamilyMatch, isSingleCase, matched, rejected } from './address-families';

const MAINNET_PREFIX = 'bitcoincash';
const NON_MAINNET_PREFIXES: readonly string[] = ['bchtest', 'bchreg'];
const CASHADDR_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
// Payload lengths of the standard types: 42 characters for a 20-byte hash, 61 for a 32-byte P2SH hash.
// The first character encodes the type (q P2PKH, p P2SH, z/r their token-aware variants).
const UNPREFIXED_SHAPE = new RegExp(`^[qpzr](?:[${CASHADDR_CHARSET}]{41}|[${CASHADDR_CHARSET}]{60})$`, 'i');
const SUPPORTED_TYPES: readonly string[] = ['p2pkh', 'p2sh'];

/** Bitcoin Cash CashAddr, with or without the `bitcoincash:` prefix. */
export function parseCashAddress(input: string): FamilyMatch | undefined {
  const colon = input.indexOf(':');
  if (colon === -1) {
    return UNPREFIXED_SHAPE.test(input) ? decodeMainnet(input, `${MAINNET_PREFIX}:${input}`) : undefined;
  }

  const prefix = input.slice(0, colon).toLowerCase();
  if (NON_MAINNET_PREFIXES.includes(prefix)) {
    return rejected('only mainnet (bitcoincash:) CashAddr addresses are supported');
  }
  if (prefix !== MAINNET_PREFIX) return undefined;
  return decodeMainnet(input, input);
}

function decodeMainnet(input: string, prefixed: string): FamilyMatch {
  // The decoder folds case itself; CashAddr forbids mixing cases, so that is checked on the raw input.
  if (!isSingleCase(input)) return rejected('CashAddr must not mix upper and lower case');

  const decoded = decodeCashAddress(prefixed);
  if (typeof decoded === 'string') return rejected(describeDecodingError(decoded));
  if (!SUPPORTED_TYPES.includes(decoded.type)) return rejected('only P2PKH and P2SH CashAddr types are supported');
  return matched('bitcoin_cash', prefixed.toLowerCase());
}

function describeDecodingError(error: string): string {
  if (error.startsWith(CashAddressDecodingError.invalidChecksum)) return 'CashAddr checksum mismatch';
  if (error.startsWith(CashAddressDecodingError.unknownAddressType)) {
    return 'only P2PKH and P2SH CashAddr types are supported';
  }
  return 'malformed CashAddr address';
}
