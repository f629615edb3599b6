import { binaryOrder } from '../text/binary-order';

/** The reserved tag: "tracked, no label". */
export const UNTAGGED = '0';
export const MAX_TAGS_PER_ADDRESS = 50;
export const TAG_FORMAT = /^[a-z0-9_]{5,64}$/;
export const TAG_RULE = 'Tags are 5-64 characters of a-z, 0-9 and "_", or the reserved "0".';

export function isValidTag(tag: string): boolean {
  return tag === UNTAGGED || TAG_FORMAT.test(tag);
}

/**
 * How an address's tags are listed to an account: its tags in ascending (binary) order, the
 * reserved tag alone when the account tracks it without one, none when the account does not track it.
 */
export function listedTags(tracked: boolean, names: string[]): string[] {
  if (!tracked) return [];
  return names.length === 0 ? [UNTAGGED] : names.sort(binaryOrder);
}
