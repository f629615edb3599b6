import type { Sql } from '../../../database/db.service';
import { accountKey } from '../../../database/address-sets';
import { forUpdate, inTextsLookedUp } from '../../../database/dialect';
import { addressChunks, prepared, sql } from '../../../database/sql';
import type { KeptAggregate, TagPart } from '../kept-aggregate';

/**
 * tracked_addresses.tagged (account_id, address): 1 while the tracked address carries a tag of its
 * account, so that the reserved tag `0` (tracked, untagged) is read from the partial index
 * `tracked_addresses_untagged` (migration 1763700000150) in proportion to what it holds. A column
 * of a table the tags module owns, not a table of its own: `stats verify --repair` rewrites the
 * column in place.
 *
 * Its rows are also the cap's lock (lockTrackedRows): every change of an address's memberships
 * holds its tracked row, so the flag is written under that lock, and only when it flips (an
 * address gaining a second tag writes nothing here).
 */
export const trackedTagged: KeptAggregate = {
  table: 'tracked_addresses',
  key: ['account_id', 'address'],
  kept: () => sql`SELECT account_id, address FROM tracked_addresses WHERE tagged = 1`,
  reference: () => sql`SELECT DISTINCT account_id, address FROM address_tags`,
  // Losing a tag: after the memberships are deleted, so an address keeps the flag only for the tags
  // it still carries. Gaining one is flagged by the change itself, before the tag's lock
  // (flagFirstTags): it knows which of its addresses carry no tag yet.
  async membersChanged(tx: Sql, tagId: number, part: TagPart, sign: 1 | -1): Promise<void> {
    if (sign === 1) return;
    const account = sql`(SELECT account_id FROM tags WHERE id = ${tagId})`;
    for (const chunk of addressChunks(part.members)) {
      await tx.execute(
        sql`UPDATE tracked_addresses SET tagged = 0
            WHERE account_id = ${account} AND address ${inTextsLookedUp(tx.dialect, chunk)} AND tagged = 1
            AND NOT EXISTS (SELECT 1 FROM address_tags a
                            WHERE a.account_id = tracked_addresses.account_id AND a.address = tracked_addresses.address)`,
      );
    }
  },
  // While the tag's memberships are still there: its members that carry no other tag.
  async tagDeleted(tx: Sql, tagId: number): Promise<void> {
    await tx.execute(
      sql`UPDATE tracked_addresses SET tagged = 0
          WHERE account_id = (SELECT account_id FROM tags WHERE id = ${tagId}) AND tagged = 1
          AND address IN (SELECT address FROM address_tags WHERE tag_id = ${tagId})
          AND NOT EXISTS (SELECT 1 FROM address_tags a WHERE a.account_id = tracked_addresses.account_id
                          AND a.address = tracked_addresses.address AND a.tag_id <> ${tagId})`,
    );
  },
  async rebuild(tx: Sql): Promise<void> {
    const carries = sql`EXISTS (SELECT 1 FROM address_tags a
      WHERE a.account_id = tracked_addresses.account_id AND a.address = tracked_addresses.address)`;
    await tx.execute(
      sql`UPDATE tracked_addresses SET tagged = CASE WHEN ${carries} THEN 1 ELSE 0 END
          WHERE tagged <> CASE WHEN ${carries} THEN 1 ELSE 0 END`,
    );
  },
};

/**
 * PostgreSQL's advisory lock on an account's tracked set: this key and the account's id (two keys of
 * 32 bits; ids beyond share a lock with a smaller one, which only makes their changes take turns).
 */
const TRACKED_SET_LOCK = 7_211_004;

/**
 * The account's set of tracked addresses as a whole, until the commit (PostgreSQL; SQLite's writers
 * take turns). A change that may add to it (a POST, an import's merge) holds it shared; an import's
 * replace, which changes the whole set, holds it alone. Locks on the rows cannot do that: a row
 * that does not exist yet cannot be locked, and two replaces that each tracked an address the
 * other did not see would fit no order. Taken first, before the change creates a tag or takes
 * any row (src/modules/aggregates/README.md, "Locking"): a change waiting for it holds nothing
 * another waits for, and a replace that holds it reads the account's members as final when it
 * takes their address_stats rows.
 */
export async function lockTrackedSet(tx: Sql, accountId: number, mode: 'adding' | 'replacing'): Promise<void> {
  if (tx.dialect !== 'postgres') return;
  const keys = sql`CAST(${TRACKED_SET_LOCK} AS integer), CAST(${accountId % 2_147_483_647} AS integer)`;
  await tx.query(
    mode === 'replacing'
      ? sql`SELECT pg_advisory_xact_lock(${keys})`
      : prepared(sql`SELECT pg_advisory_xact_lock_shared(${keys})`),
  );
}

/**
 * Locks the addresses' tracked rows (SELECT … FOR UPDATE) in canonical order, so that two changes
 * sharing addresses queue rather than deadlock. Every change of an address's memberships holds
 * them: the cap is counted under them, and the `tagged` flag written. Answers the addresses that
 * have no row to lock: on PostgreSQL a row that another change deleted while this one waited for
 * it (an untracking, an import's replace) is skipped, not locked.
 */
export async function lockTrackedRows(tx: Sql, accountId: number, ordered: readonly string[]): Promise<string[]> {
  const locked = new Set<string>();
  for (const chunk of addressChunks(ordered)) {
    const rows = await tx.query<{ address: string }>(
      sql`SELECT address FROM tracked_addresses WHERE account_id = ${accountKey(accountId)} AND address ${inTextsLookedUp(tx.dialect, chunk)}
       ORDER BY address${forUpdate(tx.dialect)}`,
    );
    for (const row of rows) locked.add(row.address);
  }
  return ordered.filter((address) => !locked.has(address));
}

/**
 * Flags the tracked rows of addresses that are about to get their first tag, while the change
 * holds them (lockTrackedRows) and before it takes the tag's row: the change knows which they are
 * (a POST counts their tags under that lock; rows it inserts itself start out flagged). `<> 1`,
 * not `= 0`, so that PostgreSQL looks the addresses up rather than reading the account's untagged
 * ones through the partial index.
 */
export async function flagFirstTags(tx: Sql, accountId: number, addresses: readonly string[]): Promise<void> {
  for (const chunk of addressChunks(addresses)) {
    await tx.execute(
      sql`UPDATE tracked_addresses SET tagged = 1
          WHERE account_id = ${accountKey(accountId)} AND address ${inTextsLookedUp(tx.dialect, chunk)} AND tagged <> 1`,
    );
  }
}
