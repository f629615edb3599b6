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
