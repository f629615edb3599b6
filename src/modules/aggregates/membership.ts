import type { Db, Sql } from '../../database/db.service';
import { bigSum } from '../../database/dialect';
import { chunks, list, raw, sql } from '../../database/sql';
import { binaryOrder } from '../../core/text/binary-order';
import type { TagPart } from './kept-aggregate';
import { KEPT_AGGREGATES } from './registry';
import { pairOf } from './tables/address-pairs';
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
  /** Their transactions, each end counted (their kept txn_count summed). */
  ends: number;
  /** Transactions between two of them (kept pairs), each once: `ends` counts them twice. */
  between: number;
  /** Their pairs' other ends outside the set, with the transactions they share (light addresses only). */
  partners: Map<string, number>;
  /** Addresses with more transactions than reading their pairs is worth: matched against the members in SQL. */
  heavy: readonly string[];
}

/**
 * An address with more than this many times as many transactions as there are addresses to add and
 * members is not read pair by pair: its pairs are looked up for those addresses instead.
 */
const HEAVY_FACTOR = 4;

/**
 * Before a transaction that adds the addresses to a tag: commits, in a transaction of its own,
 * what the kept aggregates need before they can join (address_pairs pairs those not paired yet).
 * Kept out of the membership change's transaction so that concurrent changes sharing addresses
 * wait for each other only while those are paired, once in the addresses' life; undone by
 * nothing if the change then fails, which the aggregates allow.
 */
export async function prepareToJoin(db: Db, addresses: readonly string[]): Promise<void> {
  const ordered = [...new Set(addresses)].sort(binaryOrder);
  if (ordered.length === 0) return;
  await db.transaction(async (tx) => {
    for (const aggregate of KEPT_AGGREGATES) await aggregate.beforeJoining?.(tx, ordered);
  });
}

/**
 * Takes a shared lock on the addresses' address_stats rows (creating empty ones), makes sure the
 * kept aggregates are ready for them (prepareToJoin's work, normally done already), then reads their part
 * for the tag: their holdings, and their kept pairs. Costs in proportion to their holdings and
 * counterparties, or to the addresses and the tag's members for the busiest, never their
 * transactions (except the one time an address is paired).
 */
export async function readMembersPart(tx: Sql, tagId: number, addresses: readonly string[]): Promise<MembersPart> {
  const ordered = [...new Set(addresses)].sort(binaryOrder);
  const txnCounts = await shareAddressRows(tx, ordered);
  for (const aggregate of KEPT_AGGREGATES) await aggregate.beforeJoining?.(tx, ordered);

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

  const [estimate] = await tx.query<{ address_count: number | string }>(
    sql`SELECT address_count FROM tag_stats WHERE tag_id = ${tagId}`,
  );
  const limit = HEAVY_FACTOR * (ordered.length + Number(estimate?.address_count ?? 0));
  const active = ordered.filter((address) => (txnCounts.get(address) ?? 0) > 0);
  const heavy = active.filter((address) => txnCounts.get(address)! > limit);
  const light = active.filter((address) => txnCounts.get(address)! <= limit);
  const inSet = new Set(ordered);
  const between = new Map<string, number>();
  const partners = new Map<string, number>();
  const pair = (address: string, other: string, n: number) => {
    if (inSet.has(other)) {
      const [a, b] = pairOf(address, other);
      between.set(`${a}\n${b}`, n);
    } else {
      partners.set(other, (partners.get(other) ?? 0) + n);
    }
  };
  for (const chunk of chunks(light)) {
    for (const row of await pairsOf(tx, chunk)) pair(row.address, row.other, Number(row.n));
  }
  // The busiest addresses' pairs among the set, looked up (their other pairs: applyMembersPart).
  for (const address of heavy) {
    for (const chunk of chunks(active)) {
      for (const row of await pairsOf(tx, [address], chunk)) pair(row.address, row.other, Number(row.n));
    }
  }
  return {
    addresses: ordered,
    holdings: [...held.values()].sort(
      (a, b) => binaryOrder(a.chain, b.chain) || binaryOrder(a.token_address, b.token_address),
    ),
    ends: active.reduce((sum, address) => sum + txnCounts.get(address)!, 0),
    between: [...between.values()].reduce((sum, n) => sum + n, 0),
    partners,
    heavy,
  };
}

/** The addresses' kept pairs (with one of `others`, when given): the other end and their transactions. */
function pairsOf(
  tx: Sql,
  addresses: readonly string[],
  others?: readonly string[],
): Promise<{ address: string; other: string; n: number | string }[]> {
  const withA = others === undefined ? sql`` : sql`AND address_b IN (${list(others)})`;
  const withB = others === undefined ? sql`` : sql`AND address_a IN (${list(others)})`;
  return tx.query(
    sql`SELECT address_a AS address, address_b AS other, txn_count AS n FROM address_pairs
          WHERE address_a IN (${list(addresses)}) ${withA}
        UNION ALL SELECT address_b AS address, address_a AS other, txn_count AS n FROM address_pairs
          WHERE address_b IN (${list(addresses)}) ${withB}`,
  );
}

/**
 * Adds (`sign` 1) or takes away (-1) the part of `part.addresses` in the tag's aggregates: their
 * holdings, and their transactions whose other end is none of the tag's other members (a
 * transaction between two members counts once). Locks the tag's row first, so call it while those
 * addresses are not members: before their memberships are inserted, or after they are deleted. A
 * tag deleted meanwhile is left alone.
 */
export async function applyMembersPart(tx: Sql, tagId: number, part: MembersPart, sign: 1 | -1): Promise<void> {
  if (part.addresses.length === 0) return;
  const members = await lockTag(tx, tagId);
  if (members === undefined) return;
  let shared = 0;
  if (members > 0) {
    shared += await countWithMembers(tx, tagId, part.partners, members);
    for (const address of part.heavy) shared += await pairsWithMembers(tx, tagId, address);
  }
  const tagPart: TagPart = {
    addresses: part.addresses.length,
    holdings: part.holdings,
    transactions: part.ends - part.between - shared,
  };
  for (const aggregate of KEPT_AGGREGATES) await aggregate.membersChanged?.(tx, tagId, tagPart, sign);
}

/** A tag with at most this many times as many members as counterparties is read whole, rather than probed. */
const READ_MEMBERS_WHOLE = 4;

/**
 * The transactions with `partners` that are members of the tag. Under the tag's lock, so it reads
 * the fewer of the two sides: the tag's members (about `members`), or the partners' memberships.
 */
async function countWithMembers(
  tx: Sql,
  tagId: number,
  partners: ReadonlyMap<string, number>,
  members: number,
): Promise<number> {
  if (partners.size === 0) return 0;
  let shared = 0;
  if (members <= partners.size * READ_MEMBERS_WHOLE) {
    const found = await tx.query<{ address: string }>(sql`SELECT address FROM address_tags WHERE tag_id = ${tagId}`);
    for (const row of found) shared += partners.get(row.address) ?? 0;
    return shared;
  }
  for (const chunk of chunks([...partners.keys()])) {
    const found = await tx.query<{ address: string }>(
      sql`SELECT address FROM address_tags WHERE tag_id = ${tagId} AND address IN (${list(chunk)})`,
    );
    for (const row of found) shared += partners.get(row.address) ?? 0;
  }
  return shared;
}

/** A busy address's transactions with the tag's members, from its kept pairs (the database picks the side to read). */
async function pairsWithMembers(tx: Sql, tagId: number, address: string): Promise<number> {
  const [row] = await tx.query<{ n: number | string | null }>(
    sql`SELECT (SELECT COALESCE(SUM(p.txn_count), 0) FROM address_pairs p
          JOIN address_tags m ON m.address = p.address_b AND m.tag_id = ${tagId} WHERE p.address_a = ${address})
        + (SELECT COALESCE(SUM(p.txn_count), 0) FROM address_pairs p
          JOIN address_tags m ON m.address = p.address_a AND m.tag_id = ${tagId} WHERE p.address_b = ${address}) AS n`,
  );
  return Number(row?.n ?? 0);
}

/**
 * Before removing addresses from a tag or deleting it: the shared locks on the addresses' rows,
 * then the tag's row, as readMembersPart and applyMembersPart take them.
 */
export async function lockForMembershipChange(tx: Sql, tagId: number, addresses: readonly string[]): Promise<void> {
  await shareAddressRows(tx, [...new Set(addresses)].sort(binaryOrder));
  await lockTags(tx, [tagId]);
}
