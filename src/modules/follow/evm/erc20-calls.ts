import { toFunctionSelector } from 'viem';

/**
 * The ERC-20 calls the reader makes with plain `eth_call`, and how it reads their answers, which
 * real tokens do not always give in the standard's types: older tokens return `bytes32` for
 * `name()` and `symbol()`, and some return nothing at all.
 */

export const BALANCE_OF = toFunctionSelector('balanceOf(address)');
export const NAME = toFunctionSelector('name()');
export const SYMBOL = toFunctionSelector('symbol()');
export const DECIMALS = toFunctionSelector('decimals()');

/** Call data of `balanceOf(owner)`. */
export function balanceOfData(owner: string): string {
  return BALANCE_OF + owner.slice(2).toLowerCase().padStart(64, '0');
}

/** The first 32-byte word of an answer as a number, or undefined when the answer is shorter. */
export function readWord(data: string): bigint | undefined {
  if (!/^0x[0-9a-fA-F]*$/.test(data) || data.length < 66) return undefined;
  return BigInt(data.slice(0, 66));
}

const utf8 = new TextDecoder('utf-8');

/**
 * The text of a `string` or `bytes32` answer: an ABI-encoded string (offset, length, bytes), or a
 * single word of bytes padded with zeros. NUL characters are dropped; bytes that are not UTF-8
 * become U+FFFD. Anything else reads as ''.
 */
export function readText(data: string): string {
  if (!/^0x(?:[0-9a-fA-F]{2})*$/.test(data)) return '';
  const bytes = Buffer.from(data.slice(2), 'hex');
  if (bytes.length === 32) return decode(bytes);
  if (bytes.length < 64) return '';
  const offset = wordAt(bytes, 0);
  if (offset === undefined || offset + 32 > bytes.length) return '';
  const length = wordAt(bytes, offset);
  if (length === undefined || offset + 32 + length > bytes.length) return '';
  return decode(bytes.subarray(offset + 32, offset + 32 + length));
}

/** A word read as an offset or length; undefined when it cannot be one in this answer. */
function wordAt(bytes: Buffer, at: number): number | undefined {
  const word = BigInt(`0x${bytes.subarray(at, at + 32).toString('hex')}`);
  return word <= BigInt(bytes.length) ? Number(word) : undefined;
}

function decode(bytes: Uint8Array): string {
  return utf8.decode(bytes).replace(/\0/g, '');
}
