import { NATIVE } from './reading';

/**
 * Transfers from what a transaction did to balances, for chains whose node tells that and not who
 * paid whom: Aptos's store events, Sui's balance changes.
 */

/** One owner's change of one token's balance (negative: it went out); `token` as records write it. */
export interface NetChange {
  owner: string;
  token: string;
  amount: bigint;
}

/** One transfer the changes make: `from` `0` (`NATIVE`, as records write a mint's sender) is a mint, `to` the chain's burn address a burn. */
export interface PairedTransfer {
  token: string;
  from: string;
  to: string;
  value: bigint;
}

/**
 * Sums the changes per token and owner; per token, in the order the changes first name them, owners
 * whose sum is negative sent and owners whose sum is positive received, and each receiver is paid
 * by the senders in turn (a pair per sender that pays it: what the one still has to send or the
 * other to receive, the smaller). A receiver nobody left to pay received a mint (from `0`), a
 * sender nobody left to receive made a burn (to `burned`). So a payment is one transfer, a payment
 * to several one to each, several payers into one account one from each, and what goes out and
 * comes back to the same owner nothing. Transfers come out in a fixed order (token by token, receiver
 * by receiver), which callers number for ids.
 */
export function pairNetChanges(changes: Iterable<NetChange>, burned: string): PairedTransfer[] {
  const sums = new Map<string, Map<string, bigint>>();
  for (const change of changes) {
    const owners = sums.get(change.token) ?? new Map<string, bigint>();
    owners.set(change.owner, (owners.get(change.owner) ?? 0n) + change.amount);
    sums.set(change.token, owners);
  }
  const transfers: PairedTransfer[] = [];
  for (const [token, owners] of sums) {
    const senders = [...owners].filter(([, sum]) => sum < 0n).map(([owner, sum]) => ({ owner, left: -sum }));
    const receivers = [...owners].filter(([, sum]) => sum > 0n).map(([owner, sum]) => ({ owner, left: sum }));
    let next = 0;
    for (const receiver of receivers) {
      while (receiver.left > 0n && next < senders.length) {
        const sender = senders[next]!;
        const value = sender.left < receiver.left ? sender.left : receiver.left;
        transfers.push({ token, from: sender.owner, to: receiver.owner, value });
        sender.left -= value;
        receiver.left -= value;
        if (sender.left === 0n) next++;
      }
      if (receiver.left > 0n) transfers.push({ token, from: NATIVE, to: receiver.owner, value: receiver.left });
    }
    for (const sender of senders.slice(next))
      if (sender.left > 0n) transfers.push({ token, from: sender.owner, to: burned, value: sender.left });
  }
  return transfers;
}

/** The owners whose sum of some token's changes is not zero, with the token: the balances the changes moved. */
export function changedBalances(changes: Iterable<NetChange>): { owner: string; token: string }[] {
  const sums = new Map<string, { owner: string; token: string; sum: bigint }>();
  for (const change of changes) {
    const key = `${change.owner} ${change.token}`;
    const entry = sums.get(key) ?? { owner: change.owner, token: change.token, sum: 0n };
    entry.sum += change.amount;
    sums.set(key, entry);
  }
  return [...sums.values()].filter((entry) => entry.sum !== 0n).map(({ owner, token }) => ({ owner, token }));
}
