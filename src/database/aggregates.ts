import type { Sql } from './db.service';
import { bigAdd, bigSum, bigSumValue, forShare, forUpdate } from './dialect';
import { chunks, list, raw, rows, sql, SqlFragment } from './sql';

/**
 * Kept aggregates (migration 1763700000030): what the stats and holder counts are read from, kept
 * exact in the transaction of every write that changes them.
 *
 * | table           | key                             | kept                                                  |
 * | --------------- | ------------------------------- | ----------------------------------------------------- |
 * | address_stats   | address                         | holdings with balance > 0; transactions (either end)  |
 * | tag_stats       | tag_id                          | addresses; holdings > 0; distinct transactions        |
 * | tag_balances    | tag_id, chain, token_address    | the members' balance sum (rows with a zero sum go)    |
 * | token_holders   | chain, token_address            | addresses with balance > 0 (rows at zero go)          |
 *
 * The reference computation of each (the exact SQL the stats were once computed with at read
 * time) is in this file too: the migration builds the tables with it and `stats verify`
 * compares them with it (and rewrites them with it under `--repair`).
 *
 * Locking (PostgreSQL; SQLite runs one writer at a time). Every writer takes these rows in this
 * order, each table's rows in key order: address_stats, tag_stats, tag_balances, token_holders.
 *
 * - A data write (an import, a follower's block) writes holdings and transactions, then updates
 *   the address_stats rows of the addresses it changed (which locks them until it commits), reads
 *   those addresses' memberships and gathers what their tags and tokens gain or lose
 *   (AggregateWrite.round). A long import does that in several rounds, each locking more
 *   address_stats rows; the tag and token rows are locked and updated once, at the end
 *   (AggregateWrite.finish), so that no round takes an address_stats row while holding a tag's.
 *   Data writes do not deadlock one another over those rounds: a whole-input write (a file) runs
 *   alone among them (IngestRepository.lockDataWriters).
 * - A change to a tag's addresses takes a shared lock on the address_stats rows of the addresses
 *   it adds or removes (an address without a row gets an empty one, so that there is a row to
 *   lock), reads what those addresses bring (readMembersPart: their holdings, and their
 *   transactions, grouped by the other end when the tag has members), then locks the tag's
 *   tag_stats row and only then reads which of those other ends are members (applyMembersPart).
 *   Shared, because two such changes need not exclude each other (below); an exclusive lock made
 *   tag requests that share addresses queue behind one another's whole transaction.
 *
 * Why the aggregates stay exact:
 * - A data write and a membership change that share an address are ordered by its address_stats
 *   row. When the data write holds it first, the membership change reads after it has committed
 *   (every statement under READ COMMITTED sees what has) and counts its rows. When the membership
 *   change holds it first, the data write waits for its commit before reading memberships, so it
 *   finds the new member (or no longer finds the removed one) and adds its own change to the tag.
 *   Rows that a data write has written but not yet locked for are invisible to the membership
 *   change; that write adds them to the tag itself, later.
 * - The memberships a data write reads in an early round still hold when it finishes: changing
 *   an address's memberships needs the shared lock that the write's row lock excludes. Only a
 *   tag's deletion does not, and a deleted tag has no tag_stats row left to update.
 * - The kept txn_count of a locked address_stats row is exact for the rest of the transaction:
 *   data writes that would change it wait, so readMembersPart may count with it.
 * - Two changes to one tag's addresses queue on the tag's row for the part that depends on who
 *   the members are, so the second finds the first's addresses committed and a transaction
 *   between the two sets counts once. What each reads before that lock, its own addresses' data,
 *   does not depend on the members, so that part of both runs at once; whether the tag has
 *   members at all, which decides how much of it is read, is checked again under the lock.
 * - Changes to different tags' addresses do not depend on each other, and shared locks do not
 *   conflict. (Within one account, the tag cap's lock on tracked_addresses orders changes whose
 *   addresses overlap anyway.)
 */

/** A holding as it was and as it is after a write; a balance of `0` stands for no row. */
export interface HoldingChange {
  chain: string;
  token_address: string;
  address: string;
  before: string;
  after: string;
}

/** Ends of a stored transaction. */
export interface TransferEnds {
  from_address: string;
  to_address: string;
}

/** A transaction as it was (undefined: new) and as it is after a write (undefined: removed). */
export interface TransferChange {
  before: TransferEnds | undefined;
  after: TransferEnds | undefined;
}

/** A transfer's ends as they were (taken away, -1) and as they are (added, +1), where there are any. */
function signedEnds(change: TransferChange): [TransferEnds, -1 | 1][] {
  const sides: [TransferEnds, -1 | 1][] = [];
  if (change.before !== undefined) sides.push([change.before, -1]);
  if (change.after !== undefined) sides.push([change.after, 1]);
  return sides;
}

interface TagDelta {
  holdings: number;
  txns: number;
}

interface BalanceDelta {
  tag_id: number;
  chain: string;
  token_address: string;
  delta: bigint;
}

interface HoldersDelta {
  chain: string;
  token_address: string;
  holders: number;
}

/**
 * One writing transaction's changes to the kept aggregates: the addresses' rows in each round, the
 * tags' and tokens' rows once at its end (see the locking notes above).
 */
export class AggregateWrite {
  private readonly tags = new Map<number, TagDelta>();
  private readonly balances = new Map<string, BalanceDelta>();
  private readonly tokens = new Map<string, HoldersDelta>();

  /** Updates the changed addresses' rows, and gathers what their tags and tokens gain or lose. */
  async round(tx: Sql, holdings: readonly HoldingChange[], transfers: readonly TransferChange[]): Promise<void> {
    const addresses = new Map<string, { holdings: number; txns: number }>();
    const addressDelta = (address: string) => {
      let delta = addresses.get(address);
      if (delta === undefined) addresses.set(address, (delta = { holdings: 0, txns: 0 }));
      return delta;
    };
    const changedHoldings = holdings.filter((change) => change.before !== change.after);
    for (const change of changedHoldings) {
      const step = positive(change.after) - positive(change.before);
      addressDelta(change.address).holdings += step;
      if (step === 0) continue;
      const key = `${change.chain} ${change.token_address}`;
      const token = this.tokens.get(key) ?? { chain: change.chain, token_address: change.token_address, holders: 0 };
      token.holders += step;
      this.tokens.set(key, token);
    }
    const changedTransfers = transfers.filter((change) => !sameEnds(change.before, change.after));
    for (const change of changedTransfers) {
      for (const [ends, step] of signedEnds(change)) {
        for (const address of endsOf(ends)) addressDelta(address).txns += step;
      }
    }
    if (addresses.size === 0) return;

    const ordered = [...addresses.keys()].sort(binaryOrder);
    for (const chunk of chunks(ordered)) {
      await tx.execute(
        sql`INSERT INTO address_stats (address, holding_count, txn_count)
            VALUES ${rows(chunk.map((address) => [address, addresses.get(address)!.holdings, addresses.get(address)!.txns]))}
            ON CONFLICT (address) DO UPDATE SET holding_count = address_stats.holding_count + excluded.holding_count,
              txn_count = address_stats.txn_count + excluded.txn_count`,
      );
    }

    const tagsOf = await memberships(tx, ordered);
    for (const change of changedHoldings) {
      const step = positive(change.after) - positive(change.before);
      const difference = BigInt(change.after) - BigInt(change.before);
      for (const tagId of tagsOf.get(change.address) ?? []) {
        this.tagDelta(tagId).holdings += step;
        const key = `${tagId} ${change.chain} ${change.token_address}`;
        const entry = this.balances.get(key) ?? {
          tag_id: tagId,
          chain: change.chain,
          token_address: change.token_address,
          delta: 0n,
        };
        entry.delta += difference;
        this.balances.set(key, entry);
      }
    }
    for (const change of changedTransfers) {
      for (const [ends, step] of signedEnds(change)) {
        // A transfer between two members of a tag counts once for it.
        const tags = new Set(endsOf(ends).flatMap((address) => tagsOf.get(address) ?? []));
        for (const tagId of tags) this.tagDelta(tagId).txns += step;
      }
    }
  }

  /** Updates the tags' and tokens' rows, in key order: once, after the last round, before the commit. */
  async finish(tx: Sql): Promise<void> {
    const tags = [...this.tags];
    const balances = [...this.balances.values()];
    const tokens = [...this.tokens.values()];
    this.tags.clear();
    this.balances.clear();
    this.tokens.clear();

    const live = new Set(
      await lockTags(
        tx,
        tags.map(([tagId]) => tagId),
      ),
    );
    for (const [tagId, delta] of tags.sort(([a], [b]) => a - b)) {
      if (!live.has(tagId) || (delta.holdings === 0 && delta.txns === 0)) continue;
      await tx.execute(
        sql`UPDATE tag_stats SET holding_count = holding_count + ${delta.holdings}, txn_count = txn_count + ${delta.txns}
            WHERE tag_id = ${tagId}`,
      );
    }
    const balanceRows = balances
      .filter((entry) => entry.delta !== 0n && live.has(entry.tag_id))
      .sort(
        (a, b) => a.tag_id - b.tag_id || binaryOrder(a.chain, b.chain) || binaryOrder(a.token_address, b.token_address),
      );
    for (const chunk of chunks(balanceRows)) {
      await tx.execute(
        sql`INSERT INTO tag_balances (tag_id, chain, token_address, balance)
            VALUES ${rows(chunk.map((entry) => [entry.tag_id, entry.chain, entry.token_address, entry.delta.toString()]))}
            ON CONFLICT (tag_id, chain, token_address)
            DO UPDATE SET balance = ${bigAdd(tx.dialect, raw('tag_balances.balance'), raw('excluded.balance'))}`,
      );
      // Sums back at zero go (every zero row of these tags: there are no others).
      await tx.execute(
        sql`DELETE FROM tag_balances WHERE balance = '0' AND tag_id IN (${list([...new Set(chunk.map((e) => e.tag_id))])})`,
      );
    }

    const tokenRows = tokens
      .filter((token) => token.holders !== 0)
      .sort((a, b) => binaryOrder(a.chain, b.chain) || binaryOrder(a.token_address, b.token_address));
    for (const chunk of chunks(tokenRows)) {
      await tx.execute(
        sql`INSERT INTO token_holders (chain, token_address, holders)
            VALUES ${rows(chunk.map((token) => [token.chain, token.token_address, token.holders]))}
            ON CONFLICT (chain, token_address) DO UPDATE SET holders = token_holders.holders + excluded.holders`,
      );
      await tx.execute(
        sql`DELETE FROM token_holders WHERE holders = 0
            AND token_address IN (${list([...new Set(chunk.map((token) => token.token_address))])})`,
      );
    }
  }

  private tagDelta(tagId: number): TagDelta {
    let delta = this.tags.get(tagId);
    if (delta === undefined) this.tags.set(tagId, (delta = { holdings: 0, txns: 0 }));
    return delta;
  }
}

/**
 * What a set of addresses brings to a tag's aggregates, read before the tag's row is locked: it
 * does not depend on who the tag's members are.
 */
export interface MembersPart {
  /** Canonical and distinct, in binary order. */
  addresses: readonly string[];
  /** Their holdings above zero, per token in key order: how many, and their balance sum. */
  holdings: { chain: string; token_address: string; count: number; balance: bigint }[];
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
  const held = new Map<string, { chain: string; token_address: string; count: number; balance: bigint }>();
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
  const [tag] = await tx.query<{ address_count: number | string }>(
    sql`SELECT address_count FROM tag_stats WHERE tag_id = ${tagId}${forUpdate(tx.dialect)}`,
  );
  if (tag === undefined) return;
  let { transactions, counterparties } = part;
  // The tag had no members when the part was read; another change may have added some since.
  if (counterparties === undefined && (await hasMembers(tx, tagId))) {
    ({ transactions, counterparties } = await byOtherEnd(tx, part.addresses));
  }
  if (counterparties !== undefined) {
    transactions -= await countWithMembers(tx, tagId, counterparties, Number(tag.address_count));
  }
  const heldCount = part.holdings.reduce((sum, row) => sum + row.count, 0);
  await tx.execute(
    sql`UPDATE tag_stats SET address_count = address_count + ${sign * part.addresses.length},
        holding_count = holding_count + ${sign * heldCount}, txn_count = txn_count + ${sign * transactions}
        WHERE tag_id = ${tagId}`,
  );
  for (const chunk of chunks(part.holdings)) {
    const values = chunk.map((row) => [tagId, row.chain, row.token_address, (BigInt(sign) * row.balance).toString()]);
    await tx.execute(
      sql`INSERT INTO tag_balances (tag_id, chain, token_address, balance) VALUES ${rows(values)}
          ON CONFLICT (tag_id, chain, token_address)
          DO UPDATE SET balance = ${bigAdd(tx.dialect, raw('tag_balances.balance'), raw('excluded.balance'))}`,
    );
  }
  if (sign < 0) await tx.execute(sql`DELETE FROM tag_balances WHERE tag_id = ${tagId} AND balance = '0'`);
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

/** The empty aggregates of a new tag, in the transaction that creates it. */
export async function createTagStats(tx: Sql, tagId: number): Promise<void> {
  await tx.execute(
    sql`INSERT INTO tag_stats (tag_id, address_count, holding_count, txn_count) VALUES (${tagId}, 0, 0, 0)
        ON CONFLICT (tag_id) DO NOTHING`,
  );
}

/**
 * Shared locks on the addresses' rows (in key order), creating empty rows where there are none;
 * answers each address's kept transaction count.
 */
async function shareAddressRows(tx: Sql, ordered: readonly string[]): Promise<Map<string, number>> {
  const txnCounts = new Map<string, number>();
  for (const chunk of chunks(ordered)) {
    await tx.execute(
      sql`INSERT INTO address_stats (address, holding_count, txn_count) VALUES ${rows(chunk.map((a) => [a, 0, 0]))}
          ON CONFLICT (address) DO NOTHING`,
    );
    const locked = await tx.query<{ address: string; txn_count: number | string }>(
      sql`SELECT address, txn_count FROM address_stats WHERE address IN (${list(chunk)})
          ORDER BY address${forShare(tx.dialect)}`,
    );
    for (const row of locked) txnCounts.set(row.address, Number(row.txn_count));
  }
  return txnCounts;
}

/** Locks the tags' rows in key order; answers the ids whose rows exist (a deleted tag has none). */
async function lockTags(tx: Sql, tagIds: readonly number[]): Promise<number[]> {
  const live: number[] = [];
  for (const chunk of chunks([...tagIds].sort((a, b) => a - b))) {
    const found = await tx.query<{ tag_id: number | string }>(
      sql`SELECT tag_id FROM tag_stats WHERE tag_id IN (${list(chunk)}) ORDER BY tag_id${forUpdate(tx.dialect)}`,
    );
    live.push(...found.map((row) => Number(row.tag_id)));
  }
  return live;
}

/** Each address's tags, over every account. */
async function memberships(tx: Sql, addresses: readonly string[]): Promise<Map<string, number[]>> {
  const result = new Map<string, number[]>();
  for (const chunk of chunks(addresses)) {
    const found = await tx.query<{ address: string; tag_id: number | string }>(
      sql`SELECT address, tag_id FROM address_tags WHERE address IN (${list(chunk)})`,
    );
    for (const row of found) {
      const tags = result.get(row.address) ?? [];
      tags.push(Number(row.tag_id));
      result.set(row.address, tags);
    }
  }
  return result;
}

function positive(balance: string): number {
  return balance === '0' ? 0 : 1;
}

/** A transaction counts once for each distinct end: a transfer to oneself once. */
function endsOf(ends: TransferEnds): string[] {
  return ends.from_address === ends.to_address ? [ends.from_address] : [ends.from_address, ends.to_address];
}

function sameEnds(a: TransferEnds | undefined, b: TransferEnds | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.from_address === b.from_address && a.to_address === b.to_address;
}

/** Binary (code unit) order, the order both databases use for these columns: writers lock rows in it. */
export function binaryOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// The reference computation.

/**
 * address_stats as it must be: (address, holding_count, txn_count) for every address with a
 * holding above zero or a transaction. A transaction counts for its sender, and for its recipient
 * unless that is the sender.
 */
export function referenceAddressStats(): SqlFragment {
  return sql`SELECT address, SUM(h) AS holding_count, SUM(t) AS txn_count FROM (
      SELECT address, 1 AS h, 0 AS t FROM holdings WHERE balance <> '0'
      UNION ALL SELECT from_address AS address, 0 AS h, 1 AS t FROM transactions
      UNION ALL SELECT to_address AS address, 0 AS h, 1 AS t FROM transactions WHERE to_address <> from_address
    ) e GROUP BY address`;
}

/**
 * tag_stats as it must be, for the tags `tagIds` selects (a subquery or a bound id; every tag when
 * omitted). A transaction counts once even when both ends are members: with the ones the members
 * sent, or with the ones they received from a non-member.
 */
export function referenceTagStats(tagIds?: SqlFragment): SqlFragment {
  const which = tagIds === undefined ? sql`` : sql`WHERE t.id IN (${tagIds})`;
  return sql`SELECT t.id AS tag_id,
      (SELECT COUNT(*) FROM address_tags m WHERE m.tag_id = t.id) AS address_count,
      (SELECT COUNT(*) FROM address_tags m JOIN holdings h ON h.address = m.address
        WHERE m.tag_id = t.id AND h.balance <> '0') AS holding_count,
      (SELECT COUNT(*) FROM address_tags m JOIN transactions x ON x.from_address = m.address WHERE m.tag_id = t.id)
      + (SELECT COUNT(*) FROM address_tags m JOIN transactions x ON x.to_address = m.address WHERE m.tag_id = t.id
          AND NOT EXISTS (SELECT 1 FROM address_tags s WHERE s.tag_id = t.id AND s.address = x.from_address)) AS txn_count
    FROM tags t ${which}`;
}

/** tag_balances as it must be: the members' balances summed per token, sums above zero only. */
export function referenceTagBalances(db: Pick<Sql, 'dialect'>, tagIds?: SqlFragment): SqlFragment {
  const which = tagIds === undefined ? sql`` : sql`AND m.tag_id IN (${tagIds})`;
  return sql`SELECT m.tag_id, h.chain, h.token_address, ${bigSumValue(db.dialect, raw('h.balance'))} AS balance
    FROM address_tags m JOIN holdings h ON h.address = m.address
    WHERE h.balance <> '0' ${which}
    GROUP BY m.tag_id, h.chain, h.token_address`;
}

/** token_holders as it must be. */
export function referenceTokenHolders(): SqlFragment {
  return sql`SELECT chain, token_address, COUNT(*) AS holders FROM holdings WHERE balance <> '0' GROUP BY chain, token_address`;
}

// ---------------------------------------------------------------------------------------------
// Checking and rebuilding the kept aggregates against the reference.

export const AGGREGATE_TABLES = ['address_stats', 'tag_stats', 'tag_balances', 'token_holders'] as const;
export type AggregateTable = (typeof AGGREGATE_TABLES)[number];

/** Rows where a kept table and its reference differ; `side` says which of the two has the row. */
export interface Drift {
  table: AggregateTable;
  rows: number;
  /** The first few differing rows, each as it is on its side. */
  examples: Record<string, unknown>[];
}

/** Each table's rows as kept (rows that count nothing are the same as none) and as they must be. */
function keptAndReference(db: Pick<Sql, 'dialect'>, table: AggregateTable): [SqlFragment, SqlFragment] {
  switch (table) {
    case 'address_stats':
      return [
        sql`SELECT address, holding_count, txn_count FROM address_stats WHERE holding_count <> 0 OR txn_count <> 0`,
        referenceAddressStats(),
      ];
    case 'tag_stats':
      return [sql`SELECT tag_id, address_count, holding_count, txn_count FROM tag_stats`, referenceTagStats()];
    case 'tag_balances':
      return [
        sql`SELECT tag_id, chain, token_address, balance FROM tag_balances WHERE balance <> '0'`,
        referenceTagBalances(db),
      ];
    case 'token_holders':
      return [sql`SELECT chain, token_address, holders FROM token_holders WHERE holders <> 0`, referenceTokenHolders()];
  }
}

/** Compares every kept table with the reference; answers the tables that drifted (none: all exact). */
export async function findDrift(db: Sql, examples = 10): Promise<Drift[]> {
  const drifts: Drift[] = [];
  for (const table of AGGREGATE_TABLES) {
    const [kept, reference] = keptAndReference(db, table);
    const differing = sql`SELECT 'kept' AS side, k.* FROM (${kept} EXCEPT ${reference}) k
      UNION ALL SELECT 'reference' AS side, r.* FROM (${reference} EXCEPT ${kept}) r`;
    const [counted] = await db.query<{ n: number | string }>(sql`SELECT COUNT(*) AS n FROM (${differing}) d`);
    const rows = Number(counted?.n ?? 0);
    if (rows === 0) continue;
    const found = await db.query(sql`SELECT * FROM (${differing}) d LIMIT ${examples}`);
    drifts.push({ table, rows, examples: found.map((row) => normalise(row)) });
  }
  return drifts;
}

/**
 * Rewrites every kept table from the reference. On PostgreSQL the tables are locked against
 * writers (readers go on) for the length of the transaction, so no write falls between the
 * reference read and the commit.
 */
export async function rebuildAggregates(tx: Sql): Promise<void> {
  if (tx.dialect === 'postgres') {
    await tx.execute(sql`LOCK TABLE ${raw(AGGREGATE_TABLES.join(', '))} IN EXCLUSIVE MODE`);
  }
  for (const table of [...AGGREGATE_TABLES].reverse()) await tx.execute(sql`DELETE FROM ${raw(table)}`);
  for (const table of AGGREGATE_TABLES) {
    await tx.execute(sql`INSERT INTO ${raw(table)} ${keptAndReference(tx, table)[1]}`);
  }
}

/** Values as JSON can show them: pg's bigint and numeric come as strings, SQLite's as numbers. */
function normalise(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(row).map(([key, value]) => [key, typeof value === 'number' ? String(value) : value]),
  );
}
