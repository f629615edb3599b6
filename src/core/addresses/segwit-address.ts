import { bech32, bech32m } from '@scure/base';

import { FamilyMatch, isSingleCase, matched, rejected } from './address-families';

const MAINNET_HRP = 'bc';
const BITCOIN_HRP = /^(bc|tb|bcrt)1/i;
const BECH32_DATA = /^[qpzry9x8gf2tvdw0s3jn54khce6mua7l]*$/i;
const MAX_LENGTH = 90;
const CHECKSUM_CHARS = 6;
const MAX_WITNESS_VERSION = 16;
const MIN_PROGRAM_BYTES = 2;
const MAX_PROGRAM_BYTES = 40;
const V0_PROGRAM_BYTES: readonly number[] = [20, 32]; // P2WPKH, P2WSH

type Encoding = 'bech32' | 'bech32m';

/** Native SegWit addresses (BIP-173 for witness v0, BIP-350 for v1..16 such as Taproot), mainnet only. */
export function parseSegwitAddress(input: string): FamilyMatch | undefined {
  const hrp = BITCOIN_HRP.exec(input)?.[1];
  if (hrp === undefined) return undefined;

  if (!isSingleCase(input)) return rejected('bech32 address must not mix upper and lower case');
  if (hrp.toLowerCase() !== MAINNET_HRP) return rejected('only mainnet (bc1) SegWit addresses are supported');
  if (input.length > MAX_LENGTH) return rejected(`bech32 address is longer than ${MAX_LENGTH} characters`);
  const data = input.slice(hrp.length + 1);
  if (!BECH32_DATA.test(data)) return rejected('bech32 address contains a character outside the bech32 alphabet');
  if (data.length < CHECKSUM_CHARS) return rejected('bech32 address is too short to hold a checksum');

  const decoded = decodeEitherChecksum(input);
  if (decoded === undefined) return rejected('bech32 checksum mismatch');
  return checkWitnessProgram(input, decoded.encoding, decoded.words);
}

function decodeEitherChecksum(input: string): { encoding: Encoding; words: number[] } | undefined {
  // The two checksum constants differ, so at most one of these can succeed.
  const asBech32 = bech32.decodeUnsafe(input, MAX_LENGTH);
  if (asBech32) return { encoding: 'bech32', words: asBech32.words };
  const asBech32m = bech32m.decodeUnsafe(input, MAX_LENGTH);
  if (asBech32m) return { encoding: 'bech32m', words: asBech32m.words };
  return undefined;
}

function checkWitnessProgram(input: string, encoding: Encoding, words: number[]): FamilyMatch {
  const [version, ...programWords] = words;
  if (version === undefined) return rejected('SegWit address has an empty data section');
  if (version > MAX_WITNESS_VERSION) return rejected(`invalid witness version ${version}`);

  const program = bech32.fromWordsUnsafe(programWords);
  if (!program) return rejected('witness program has invalid padding');
  if (program.length < MIN_PROGRAM_BYTES || program.length > MAX_PROGRAM_BYTES) {
    return rejected(
      `witness program must be ${MIN_PROGRAM_BYTES} to ${MAX_PROGRAM_BYTES} bytes, got ${program.length}`,
    );
  }
  if (version === 0 && !V0_PROGRAM_BYTES.includes(program.length)) {
    return rejected(`witness v0 program must be 20 or 32 bytes, got ${program.length}`);
  }

  // BIP-350: v0 keeps bech32, v1+ must use bech32m, so a checksum of the wrong kind is an invalid address.
  const expectedEncoding: Encoding = version === 0 ? 'bech32' : 'bech32m';
  if (encoding !== expectedEncoding) {
    return rejected(`witness v${version} address must use ${expectedEncoding}, not ${encoding}`);
  }
  return matched('bitcoin_segwit', input.toLowerCase());
}
