/**
 * The set of addresses a tag stands for, within one account: the addresses carrying a real tag, or
 * for the reserved `0` the account's tracked addresses that carry no tag. Holdings, transactions and
 * stats filter by it through `scopeAddressesSql`.
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

/**
 * A subquery selecting the scope's addresses (one column, `address`). `next` is the number of the
 * first free `$n` placeholder; the returned params fill the placeholders it used.
 */
export function scopeAddressesSql(scope: TagScope, next: number): { sql: string; params: number[] } {
  if (scope.kind === 'tag') {
    return { sql: `SELECT address FROM address_tags WHERE tag_id = $${next}`, params: [scope.tagId] };
  }
  return {
    sql: `SELECT tr.address FROM tracked_addresses tr WHERE tr.account_id = $${next}
          AND NOT EXISTS (SELECT 1 FROM address_tags at2 WHERE at2.account_id = tr.account_id AND at2.address = tr.address)`,
    params: [scope.accountId],
  };
}
