import type { TagScope } from '../core/tags/tag-scope';
import { sql, SqlFragment } from './sql';

/**
 * The addresses a tag scope stands for, as a subquery of one column, `address`: the addresses
 * carrying the tag, or for the reserved `0` the account's tracked addresses that carry no tag. Any
 * repository embeds it (`h.address IN (${addressSet(scope)})`) with its values bound where it lands.
 *
 * Either way it is a plain SELECT from one table whose `created_at` is when the address joined the
 * scope (was tagged, or was tracked), which `addressSetInJoinOrder` orders by. The reserved tag's
 * is read from the partial index `tracked_addresses_untagged` (the kept flag `tagged`, see
 * src/modules/aggregates/tables/tracked-tagged.ts): it costs what the set holds.
 */
export function addressSet(scope: TagScope): SqlFragment {
  if (scope.kind === 'tag') return sql`SELECT address FROM address_tags WHERE tag_id = ${scope.tagId}`;
  return sql`SELECT tr.address FROM tracked_addresses tr WHERE tr.account_id = ${scope.accountId} AND tr.tagged = 0`;
}

/** The scope's addresses by the time they joined it, then by address: ready for LIMIT and OFFSET. */
export function addressSetInJoinOrder(scope: TagScope): SqlFragment {
  return sql`${addressSet(scope)} ORDER BY created_at, address`;
}

/**
 * The account id for a lookup of some of its addresses (`account_id = … AND address IN (…)`), as
 * a value the planner does not see when it estimates. PostgreSQL's statistics on `account_id` lag
 * behind an account that has just tracked many addresses: until the next ANALYZE a new account is
 * not among the column's common values and its rows are estimated at one. It then read all of the
 * account's rows instead of looking the addresses up, and when that was the inner side of a join,
 * once per address: 23 s for 500 addresses of a 70,000-address account (tagsOf). Unseen, the value
 * is estimated as an average account, and the addresses are looked up: 5 ms.
 */
export function accountKey(accountId: number): SqlFragment {
  return sql`(SELECT CAST(${accountId} AS BIGINT))`;
}
