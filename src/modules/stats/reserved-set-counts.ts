/**
 * What the reserved tag's counts remember between requests: for each account's set (its tracked
 * addresses without a tag), each member's address_stats `version` and the transactions it
 * received from another member. A transaction between two members counts once for the set, so its
 * txn_count is its members' kept counts less those transactions, which cost reading the members'
 * received entries: their histories, which grow with the data (bench/README.md, change 78).
 *
 * A member's received transactions from the set change only when its own transactions change or
 * the set does. Every data write that changes an address's transactions stamps its address_stats
 * row with a version never used before (migration 1763700000190), so a member whose version is the
 * one remembered, in a set of the same addresses, received what it received then: only the others
 * are read again. Any other set (an address tagged, untagged, tracked or untracked) is read whole.
 * Version 0 (a row `stats verify --repair` rewrote) is never trusted.
 *
 * It is a memo, not kept state: the set and its versions are read on every request, in the same
 * snapshot as any entries read, so an answer is exact for that snapshot whatever was remembered,
 * and each process remembers its own. Sets over `reservedSets.remembered` members are not
 * remembered, and the accounts least recently read are let go beyond that many members in all.
 */
export class ReservedSetCounts {
  private readonly accounts = new Map<number, RememberedSet>();
  private held = 0;

  /** @param fixedLimit in place of `reservedSets.remembered` (unit tests). */
  constructor(private readonly fixedLimit?: number) {}

  /** Members remembered in all, and the largest set remembered (a larger one is counted whole on every read). */
  get limit(): number {
    return this.fixedLimit ?? reservedSets.remembered;
  }

  /**
   * What a read of the account's set (`members`, as one snapshot has it) must read: every member's
   * received transactions unless the set is the one remembered, otherwise those of the members
   * whose version moved or is 0. `settle` then answers the transactions between two members, from
   * the counts read (0 where none was found) and the ones remembered when the plan was made (so
   * that a request remembered meanwhile, from another snapshot, does not mix into this one), and
   * remembers the set as read.
   */
  plan(accountId: number, members: readonly MemberVersion[]): ReservedSetPlan {
    const remembered = this.accounts.get(accountId);
    const read = this.toRead(remembered, members);
    if (remembered !== undefined && read === UNCHANGED) {
      return {
        read: [],
        settle: () => {
          this.touch(accountId, remembered);
          return remembered.shared;
        },
      };
    }
    return {
      read: read === UNCHANGED ? [] : read,
      settle: (counts) => {
        const next: RememberedSet = { members: new Map(), shared: 0 };
        for (const { address, version } of members) {
          const received = counts.get(address) ?? remembered?.members.get(address)?.received;
          if (received === undefined) throw new Error(`the received transactions of ${address} were not read`);
          next.members.set(address, { version, received });
          next.shared += received;
        }
        this.remember(accountId, next);
        return next.shared;
      },
    };
  }

  /** Whether the account's set is remembered (otherwise a read reads it whole). */
  remembers(accountId: number): boolean {
    return this.accounts.has(accountId);
  }

  /** The members to read, or UNCHANGED: the set remembered, every version as it was. */
  private toRead(
    remembered: RememberedSet | undefined,
    members: readonly MemberVersion[],
  ): string[] | typeof UNCHANGED {
    const all = () => members.map((member) => member.address);
    if (remembered === undefined || remembered.members.size !== members.length) return all();
    const changed: string[] = [];
    for (const { address, version } of members) {
      const known = remembered.members.get(address);
      if (known === undefined) return all();
      if (version === 0 || known.version !== version) changed.push(address);
    }
    return changed.length === 0 ? UNCHANGED : changed;
  }

  /** Lets go of the account's set (one grown over the limit). */
  forget(accountId: number): void {
    const before = this.accounts.get(accountId);
    if (before === undefined) return;
    this.accounts.delete(accountId);
    this.held -= before.members.size;
  }

  /** The account's set as read last, within the limit, letting go of the accounts read least recently. */
  private remember(accountId: number, set: RememberedSet): void {
    this.forget(accountId);
    if (set.members.size > this.limit) return;
    this.accounts.set(accountId, set);
    this.held += set.members.size;
    for (const [oldest, other] of this.accounts) {
      if (this.held <= this.limit) break;
      this.accounts.delete(oldest);
      this.held -= other.members.size;
    }
  }

  /** Read again unchanged: the most recently read now, unless a later read replaced it meanwhile. */
  private touch(accountId: number, set: RememberedSet): void {
    if (this.accounts.get(accountId) !== set) return;
    this.accounts.delete(accountId);
    this.accounts.set(accountId, set);
  }
}

/** What to read for one snapshot of a set, and how to count it once read (ReservedSetCounts.plan). */
export interface ReservedSetPlan {
  /** The members whose received transactions from the set must be read. */
  read: string[];
  settle(counts: ReadonlyMap<string, number>): number;
}

/** A member of the set as read: its address_stats version (0 when it has no row or a rewritten one). */
export interface MemberVersion {
  address: string;
  version: number;
}

interface RememberedSet {
  members: Map<string, { version: number; received: number }>;
  /** The transactions between two members: the members' received counts summed. */
  shared: number;
}

const UNCHANGED = Symbol('unchanged');

/** Members remembered in all (about 100 bytes each), and the largest set remembered; tests lower it. */
export const reservedSets = { remembered: 200_000 };
