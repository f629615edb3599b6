import type { Sql } from '../../database/db.service';
import { bigSum } from '../../database/dialect';
import { chunks, list, raw, sql } from '../../database/sql';
import { binaryOrder } from '../../core/text/binary-order';
import type { TagPart } from './kept-aggregate';
import { KEPT_AGGREGATES } from './registry';
import { shareAddressRows } from './tables/address-stats';
import { lockTag, lockTags } from './tables/tag-stats';

/**
 * What a set of addresses brings to a tag's aggregates, read before the tag's row is locked: it
 * does not depend on who the tag's members are.
 */
export interface MembersPart {
  /** Canonical and distinct, in binary order. */
  addresses: readonly string[];
  /** Their holdings above zero, per token in key order: how many, and their balance sum. */
  holdings: TagPart['holdings'];
  /** Transactions with an end among the addresses, each once. */
  transactions: number;
  /**
   * Of those, the ones whose other end is not among the addresses, counted by that other end.
   * Not read (undefined) when the tag had no members; applyMembersPart checks that again under the
   * tag's lock and reads them then if it has some by now.
   */
  counterparties: Map<string, number> | undefined;
}

/**
 * Takes a shared lock on the addresses' address_stats rows (creating empty ones), then reads their
 * part for the tag. Costs in proportion to their holdings and transactions, not to the tag's size.
 *
 * When the tag has no members, the addresses' transactions (each once) are the sum of their kept
 * txn_count (exact: the rows are locked against data writes) less the transactions between two of
 * them, which that sum counts for both ends; those are found in the recipient's index, which
 * carries the sender, without reading rows. That is the cheap case, and the common one: a new
 * tag's first addresses, and most tags are written in one request. Otherwise the transactions are
 * read grouped by their other end (byOtherEnd), so that under the tag's lock only those other ends
 * are looked up among the members.
 */
export async function readMembersPart(tx: Sql, tagId: number, addresses: readonly string[]): Promise<MembersPart> {
  const ordered = [...new Set(addresses)].sort(binaryOrder);
  const txnCounts = await shareAddressRows(tx, ordered);
  const held = new Map<string, TagPart['holdings'][number]>();
  for (const chunk of chunks(ordered)) {
    const holdings = await tx.query<{ chain: string; token_address: string; n: number | string; balance: string }>(
      sql`SELECT chain, token_address, COUNT(*) AS n, ${bigSum(tx.dialect, raw('balance'))} AS balance FROM holdings
          WHERE address IN (${list(chunk)}) AND balance <> '0' GROUP BY chain, token_address`,
    );
    for (const row of holdings) {
      const key = `${row.chain} ${row.token_address}`;
      const entry = held.get(key) ?? { chain: row.chain, token_address: row.token_address, count: 0, balance: 0n };
      entry.count += Number(row.n);
      entry.balance += BigInt(row.balance);
      held.set(key, entry);
    }
  }
  const part = {
    addresses: ordered,
    holdings: [...held.values()].sort(
      (a, b) => binaryOrder(a.chain, b.chain) || binaryOrder(a.token_address, b.token_address),
    ),
  };
  if (await hasMembers(tx, tagId)) return { ...part, ...(await byOtherEnd(tx, ordered)) };
  // An address without transactions is an end of none.
  const active = ordered.filter((address) => (txnCounts.get(address) ?? 0) > 0);
  const ends = active.reduce((sum, address) => sum + txnCounts.get(address)!, 0);
  return { ...part, transactions: ends - (await betweenThemselves(tx, active)), counterparties: undefined };
}

/**
 * Adds (`sign` 1) or takes away (-1) the part of `part.addresses` in the tag's aggregates: their
 * holdings, and their transactions whose other end is none of the tag's other members. Locks the
 * tag's row first, so call it while those addresses are not members: before their memberships are
 * inserted, or after they are deleted. A tag deleted meanwhile is left alone.
 */
export async function applyMembersPart(tx: Sql, tagId: number, part: MembersPart, sign: 1 | -1): Promise<void> {
  if (part.addresses.length === 0) return;
  const members = await lockTag(tx, tagId);
  if (members === undefined) return;
  let { transactions, counterparties } = part;
  // The tag had no members when the part was read; another change may have added some since.
  if (counterparties === undefined && (await hasMembers(tx, tagId))) {
    ({ transactions, counterparties } = await byOtherEnd(tx, part.addresses));
  }
  if (counterparties !== undefined) transactions -= await countWithMembers(tx, tagId, counterparties, members);
  const tagPart: TagPart = {
    addresses: part.addresses.length,
    members: part.addresses,
    holdings: part.holdings,
    transactions,
  };
  for (const aggregate of KEPT_AGGREGATES) await aggregate.membersChanged?.(tx, tagId, tagPart, sign);
}

/** Whether the tag has any member now (addresses being added are not yet, those being removed no longer). */
async function hasMembers(tx: Sql, tagId: number): Promise<boolean> {
  const found = await tx.query(sql`SELECT 1 AS member FROM address_tags WHERE tag_id = ${tagId} LIMIT 1`);
  return found.length > 0;
}

/**
 * The addresses' transactions, each once, and those whose other end is not among them counted by
 * that other end: per chunk, the sent ones by recipient and the received ones by sender. A
 * transaction between two of them counts with its sender only, a transfer to oneself once.
 */
async function byOtherEnd(
  tx: Sql,
  ordered: readonly string[],
): Promise<{ transactions: number; counterparties: Map<string, number> }> {
  const inPart = new Set(ordered);
  const counterparties = new Map<string, number>();
  let transactions = 0;
  for (const chunk of chunks(ordered)) {
    const sent = await tx.query<{ other: string; n: number | string }>(
      sql`SELECT to_address AS other, COUNT(*) AS n FROM transactions WHERE from_address IN (${list(chunk)})
          GROUP BY to_address`,
    );
    const received = await tx.query<{ other: string; n: number | string }>(
      sql`SELECT from_address AS other, COUNT(*) AS n FROM transactions WHERE to_address IN (${list(chunk)})
          GROUP BY from_address`,
    );
    for (const row of [...sent, ...received.filter((row) => !inPart.has(row.other))]) {
      const n = Number(row.n);
      transactions += n;
      if (!inPart.has(row.other)) counterparties.set(row.other, (counterparties.get(row.other) ?? 0) + n);
    }
  }
  return { transactions, counterparties };
}

/** Senders to match in one statement: one reading of the recipients' index entries for all of them. */
const SENDERS_PER_STATEMENT = 10_000;

/** Transactions from one of the addresses to another one of them (not to itself). */
async function betweenThemselves(tx: Sql, ordered: readonly string[]): Promise<number> {
  let count = 0;
  for (const recipients of chunks(ordered)) {
    for (const senders of chunks(ordered, SENDERS_PER_STATEMENT)) {
      const [row] = await tx.query<{ n: number | string }>(
        sql`SELECT COUNT(*) AS n FROM transactions WHERE to_address IN (${list(recipients)})
            AND from_address IN (${list(senders)}) AND from_address <> to_address`,
      );
      count += Number(row?.n ?? 0);
    }
  }
  return count;
}

/** A tag with at most this many times as many members as counterparties is read whole, rather than probed. */
const READ_MEMBERS_WHOLE = 4;

/**
 * The transactions among `counterparties` whose other end is a member of the tag. Under the tag's
 * lock, so it reads the fewer of the two sides: the tag's members (about `members`), or the
 * counterparties' memberships of it.
 */
async function countWithMembers(
  tx: Sql,
  tagId: number,
  counterparties: ReadonlyMap<string, number>,
  members: number,
): Promise<number> {
  if (counterparties.size === 0) return 0;
  let shared = 0;
  if (members <= counterparties.size * READ_MEMBERS_WHOLE) {
    const found = await tx.query<{ address: string }>(sql`SELECT address FROM address_tags WHERE tag_id = ${tagId}`);
    for (const row of found) shared += counterparties.get(row.address) ?? 0;
    return shared;
  }
  for (const chunk of chunks([...counterparties.keys()])) {
    const found = await tx.query<{ address: string }>(
      sql`SELECT address FROM address_tags WHERE tag_id = ${tagId} AND address IN (${list(chunk)})`,
    );
    for (const row of found) shared += counterparties.get(row.address) ?? 0;
  }
  return shared;
}

/**
 * Before removing addresses from a tag or deleting it: the shared locks on the addresses' rows,
 * then the tag's row, as readMembersPart and applyMembersPart take them.
 */
export async function lockForMembershipChange(tx: Sql, tagId: number, addresses: readonly string[]): Promise<void> {
  await shareAddressRows(tx, [...new Set(addresses)].sort(binaryOrder));
  await lockTags(tx, [tagId]);
}
