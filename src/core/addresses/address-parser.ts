import { ChainId, isChainId } from '../chains/chain-ids';
import { AddressParseResult, chainsOfFamily, FAMILY_LABELS, FamilyMatch, FamilyParser } from './address-families';
import { parseBase58Address } from './base58-address';
import { parseCashAddress } from './cash-address';
import { parseHexAddress } from './hex-address';
import { parseSegwitAddress } from './segwit-address';
import { parseTonAddress } from './ton-address';

export const MAX_ADDRESS_LENGTH = 128;
export const NOT_AN_ADDRESS = 'not an address of any supported chain';

// Non-ASCII is refused before any decoder sees it: the decoders fold case with toLowerCase(), which maps
// look-alikes such as the Kelvin sign (U+212A) onto ASCII letters and would accept a string nobody could type back.
const PRINTABLE_ASCII = /^[\x21-\x7e]*$/;

// Tried in order; the first valid match wins. The families' shapes do not overlap on valid addresses, so the
// order only decides which family's explanation is reported for an input that no family accepts.
const FAMILY_PARSERS: readonly FamilyParser[] = [
  parseHexAddress,
  parseTonAddress,
  parseCashAddress,
  parseSegwitAddress,
  parseBase58Address,
];

/** Recognises an address of any supported chain and returns its canonical form; never throws. */
export function parseAddress(input: string): AddressParseResult {
  const problem = inputProblem(input);
  if (problem !== undefined) return { ok: false, reason: problem };
  try {
    return matchFamilies(input);
  } catch {
    // Every decoder is called on inputs it is meant to handle, so this is only a guard that keeps the
    // "never throws" promise if a library changes its behaviour.
    return { ok: false, reason: NOT_AN_ADDRESS };
  }
}

/** True when the input is a valid address that is used on `chain`. */
export function isAddressOnChain(input: string, chain: ChainId): boolean {
  return canonicalAddressOnChain(input, chain).ok;
}

/** Like `parseAddress`, but only succeeds when the address belongs to `chain`. */
export function canonicalAddressOnChain(input: string, chain: ChainId): AddressParseResult {
  if (typeof chain !== 'string' || !isChainId(chain)) return { ok: false, reason: 'unsupported chain' };
  const parsed = parseAddress(input);
  if (!parsed.ok || parsed.address.chains.includes(chain)) return parsed;
  return { ok: false, reason: `${FAMILY_LABELS[parsed.address.family]} address is not valid on ${chain}` };
}

function inputProblem(input: unknown): string | undefined {
  if (typeof input !== 'string') return 'address must be a string';
  if (input.length === 0) return 'address is empty';
  if (input.length > MAX_ADDRESS_LENGTH) return `address is longer than ${MAX_ADDRESS_LENGTH} characters`;
  if (input.trim() !== input) return 'address must not have leading or trailing whitespace';
  if (!PRINTABLE_ASCII.test(input)) return 'address contains a character that no supported address uses';
  return undefined;
}

function matchFamilies(input: string): AddressParseResult {
  let firstRejection: string | undefined;
  for (const parseFamily of FAMILY_PARSERS) {
    const match: FamilyMatch | undefined = parseFamily(input);
    if (match === undefined) continue;
    if (match.ok) {
      return {
        ok: true,
        address: { canonical: match.canonical, family: match.family, chains: chainsOfFamily(match.family) },
      };
    }
    firstRejection ??= match.reason;
  }
  return { ok: false, reason: firstRejection ?? NOT_AN_ADDRESS };
}
