import { base64, base64url } from '@scure/base';
// The one function of @ton/core needed to check an address, from its own file: the package's index
// loads the whole TON library (about 12 MiB of memory), which only the TON follower needs.
import { crc16 } from '@ton/core/dist/utils/crc16';

import { FamilyMatch, matched, rejected } from './address-families';

const RAW_SHAPE = /^(-?[0-9]+):(.*)$/s;
const RAW_HASH = /^[0-9a-fA-F]{64}$/;
const FRIENDLY_SHAPE = /^[A-Za-z0-9+/_-]{48}$/;
const STANDARD_ONLY_CHARS = /[+/]/;
const URL_SAFE_ONLY_CHARS = /[_-]/;

// User-friendly layout: 1 flag byte, 1 workchain byte, 32-byte account hash, 2-byte CRC16 of the first 34.
const CHECKED_BYTES = 34;
const HASH_START = 2;
const BOUNCEABLE = 0x11;
const NON_BOUNCEABLE = 0x51;
const TEST_ONLY = 0x80;
const WORKCHAIN_BY_BYTE: ReadonlyMap<number, string> = new Map([
  [0x00, '0'], // basechain
  [0xff, '-1'], // masterchain, stored as a signed byte
]);

/** TON accounts in raw (`wc:hex`) or 48-character user-friendly form; canonical form is raw with lowercase hex. */
export function parseTonAddress(input: string): FamilyMatch | undefined {
  const raw = RAW_SHAPE.exec(input);
  if (raw) return parseRaw(raw[1] ?? '', raw[2] ?? '');
  if (FRIENDLY_SHAPE.test(input)) return parseFriendly(input);
  return undefined;
}

function parseRaw(workchain: string, hash: string): FamilyMatch {
  // Only the literal spellings are accepted so that "00:…" or "-0:…" cannot become a second name for an account.
  if (workchain !== '0' && workchain !== '-1') return rejected('TON workchain must be 0 or -1');
  if (!RAW_HASH.test(hash)) return rejected('raw TON address needs 64 hex digits after the workchain');
  return matched('ton', `${workchain}:${hash.toLowerCase()}`);
}

function parseFriendly(input: string): FamilyMatch {
  const standard = STANDARD_ONLY_CHARS.test(input);
  if (standard && URL_SAFE_ONLY_CHARS.test(input)) return rejected('TON address mixes base64 and base64url characters');

  const bytes = Buffer.from((standard ? base64 : base64url).decode(input));
  const checked = bytes.subarray(0, CHECKED_BYTES);
  if (!crc16(checked).equals(bytes.subarray(CHECKED_BYTES))) return rejected('TON address CRC16 checksum mismatch');

  const flags = bytes[0] ?? 0;
  if (flags & TEST_ONLY) return rejected('testnet-only TON addresses are not supported');
  if (flags !== BOUNCEABLE && flags !== NON_BOUNCEABLE) return rejected('unknown TON address flags');

  const workchain = WORKCHAIN_BY_BYTE.get(bytes[1] ?? -1);
  if (workchain === undefined) return rejected('TON workchain must be 0 or -1');
  return matched('ton', `${workchain}:${checked.subarray(HASH_START).toString('hex')}`);
}

const BYTE_BY_WORKCHAIN: ReadonlyMap<string, number> = new Map(
  [...WORKCHAIN_BY_BYTE].map(([byte, workchain]) => [workchain, byte]),
);

/**
 * A canonical raw TON address (`0:<hex>`, `-1:<hex>`) in user-friendly form, bounceable and
 * base64url, as explorers and price sources name contracts (`EQ…` on the basechain).
 */
export function tonFriendlyAddress(raw: string): string {
  const [, workchain = '', hash = ''] = RAW_SHAPE.exec(raw) ?? [];
  const byte = BYTE_BY_WORKCHAIN.get(workchain);
  if (byte === undefined || !RAW_HASH.test(hash)) throw new Error(`not a raw TON address: ${JSON.stringify(raw)}`);
  const checked = Buffer.concat([Buffer.from([BOUNCEABLE, byte]), Buffer.from(hash, 'hex')]);
  return base64url.encode(Buffer.concat([checked, crc16(checked)]));
}
