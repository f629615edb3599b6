/**
 * The set of addresses a tag stands for, within one account: the addresses carrying a real tag, or
 * for the reserved `0` the account's tracked addresses that carry no tag. Holdings, transactions and
 * stats filter by it; the database layer spells it as SQL (`addressSet` in src/database/address-sets.ts).
 */
export type TagScope =
  | {
      kind: 'tag';
      accountId: number;
      tagId: number;
      /** The tag's revision when the scope was resolved; it goes up with every change to its addresses. */
      revision: number;
    }
  | { kind: 'untagged'; accountId: number };

/** A real tag by its account and name, not looked up yet: the statement that reads for it finds it. */
export interface NamedTag {
  accountId: number;
  name: string;
}

/**
 * A tag named by a request, checked but not looked up: a route whose one statement reads a real
 * tag's kept rows finds the tag by its name in that statement (one round trip, not two) and
 * answers TAG_NOT_FOUND when it finds none.
 */
export type NamedScope = { kind: 'untagged'; accountId: number } | ({ kind: 'named' } & NamedTag);
