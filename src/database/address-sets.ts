import type { TagScope } from '../core/tags/tag-scope';
import { sql, SqlFragment } from './sql';

/**
 * The addresses a tag scope stands for, as a subquery of one column, `address`: the addresses
 * carrying the tag, or for the reserved `0` the account's tracked addresses that carry no tag. Any
 * repository embeds it (`h.address IN (${addressSet(scope)})`) with its values bound where it lands.
 *
 * Either way it is a plain SELECT from one table whose `created_at` is when the address joined the
 * scope (was tagged, or was tracked), which `addressSetInJoinOrder` orders by.
 */
export function addressSet(scope: TagScope): SqlFragment {
  if (scope.kind === 'tag') return sql`SELECT address FROM address_tags WHERE tag_id = ${scope.tagId}`;
  return sql`SELECT tr.address FROM tracked_addresses tr WHERE tr.account_id = ${scope.accountId}
    AND NOT EXISTS (SELECT 1 FROM address_tags at2 WHERE at2.account_id = tr.account_id AND at2.address = tr.address)`;
}

/** The scope's addresses by the time they joined it, then by address: ready for LIMIT and OFFSET. */
export function addressSetInJoinOrder(scope: TagScope): SqlFragment {
  return sql`${addressSet(scope)} ORDER BY created_at, address`;
}
