import type { ParsedAddress } from './address-families';
import { parseAddress } from './address-parser';
import { ApiError } from '../errors';

/** One listed string that is not an address: where it stood, its first 128 characters, and why. */
export interface UnparsedAddress {
  index: number;
  address: string;
  reason: string;
}

/**
 * Addresses a client listed (a tag assignment's body, a lookup's query): the distinct canonical
 * addresses in first-seen order, repeats in any accepted spelling collapsed to one, and every
 * string that is none.
 */
export function parseAddressList(inputs: readonly string[]): {
  addresses: ParsedAddress[];
  unparsed: UnparsedAddress[];
} {
  const unparsed: UnparsedAddress[] = [];
  const distinct = new Map<string, ParsedAddress>();
  inputs.forEach((input, index) => {
    const parsed = parseAddress(input);
    if (!parsed.ok) unparsed.push({ index, address: input.slice(0, 128), reason: parsed.reason });
    else if (!distinct.has(parsed.address.canonical)) distinct.set(parsed.address.canonical, parsed.address);
  });
  return { addresses: [...distinct.values()], unparsed };
}

/**
 * 400 INVALID_ADDRESS for a list with strings that are no address: the message names the first
 * five, `details` every one (with `extra`, such as the query parameter they came in).
 */
export function unparsedAddresses(unparsed: readonly UnparsedAddress[], extra: object = {}): ApiError {
  const names = unparsed
    .slice(0, 5)
    .map((entry) => `"${entry.address}"`)
    .join(', ');
  const count = unparsed.length;
  return new ApiError(
    'INVALID_ADDRESS',
    `${count} of the addresses ${count === 1 ? 'is' : 'are'} not valid on any supported chain: ${names}${count > 5 ? ', …' : ''}`,
    unparsed.map((entry) => ({ ...extra, ...entry })),
  );
}
