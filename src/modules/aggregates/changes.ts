import type { TransferChange, TransferEnds } from './kept-aggregate';

/** 1 for a holding above zero, 0 for none. */
export function positive(balance: string): number {
  return balance === '0' ? 0 : 1;
}

/** A transaction counts once for each distinct end: a transfer to oneself once. */
export function endsOf(ends: TransferEnds): string[] {
  return ends.from_address === ends.to_address ? [ends.from_address] : [ends.from_address, ends.to_address];
}

/** A transfer's ends as they were (taken away, -1) and as they are (added, +1), where there are any. */
export function signedEnds(change: TransferChange): [TransferEnds, -1 | 1][] {
  const sides: [TransferEnds, -1 | 1][] = [];
  if (change.before !== undefined) sides.push([change.before, -1]);
  if (change.after !== undefined) sides.push([change.after, 1]);
  return sides;
}

export function sameEnds(a: TransferEnds | undefined, b: TransferEnds | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.from_address === b.from_address && a.to_address === b.to_address;
}
