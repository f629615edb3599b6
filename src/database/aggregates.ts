import type { Sql } from './db.service';
import { bigAdd, bigSum, bigSumValue, forUpdate } from './dialect';
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
 * Locking (PostgreSQL; SQLite runs one writer at a time): a writer takes, in this order and each
 * in key order, the address_stats rows of the addresses it changes, then the tag_stats rows of
 * their tags, then tag_balances and token_holders rows. A change to a tag's addresses locks the
 * address_stats rows of the addresses it adds or removes, then the tag's tag_stats row, and only
 * then reads those addresses' data to add or take away: a write that held either lock first has
 * committed by then (each statement under READ COMMITTED sees it), and a write that comes after
 * finds the new members and adds its own change on top.
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

/** Applies the holdings' and transactions' changes to every aggregate, inside the writing transaction. */
export async function applyDataChanges(
  tx: Sql,
  holdings: readonly HoldingChange[],
  transfers: readonly TransferChange[],
): Promise<void> {
  const addresses = new Map<string, { holdings: number; txns: number }>();
  const addressDelta = (address: string) => {
    let delta = addresses.get(address);
    if (delta === undefined) addresses.set(address, (delta = { holdings: 0, txns: 0 }));
    return delta;
  };
  const tokens = new Map<string, { chain: string; token_address: string; holders: number }>();
  const changedHoldings = holdings.filter((change) => change.before !== change.after);
  for (const change of changedHoldings) {
    const step = positive(change.after) - positive(change.before);
    addressDelta(change.address).holdings += step;
    if (step === 0) continue;
    const key = `${change.chain} ${change.token_address}`;
    const token = tokens.get(key) ?? { chain: change.chain, token_address: change.token_address, holders: 0 };
    token.holders += step;
    tokens.set(key, token);
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
  const tagDeltas = new Map<number, { holdings: number; txns: number }>();
  const tagDelta = (tagId: number) => {
    let delta = tagDeltas.get(tagId);
    if (delta === undefined) tagDeltas.set(tagId, (delta = { holdings: 0, txns: 0 }));
    return delta;
  };
  const balances = new Map<string, { tag_id: number; chain: string; token_address: string; delta: bigint }>();
  for (const change of changedHoldings) {
    const step = positive(change.after) - positive(change.before);
    const difference = BigInt(change.after) - BigInt(change.before);
    for (const tagId of tagsOf.get(change.address) ?? []) {
      tagDelta(tagId).holdings += step;
      const key = `${tagId} ${change.chain} ${change.token_address}`;
      const entry = balances.get(key) ?? {
        tag_id: tagId,
        chain: change.chain,
        token_address: change.token_address,
        delta: 0n,
      };
      entry.delta += difference;
      balances.set(key, entry);
    }
  }
  for (const change of changedTransfers) {
    for (const [ends, step] of signedEnds(change)) {
      // A transfer between two members of a tag counts once for it.
      const tags = new Set(endsOf(ends).flatMap((address) => tagsOf.get(address) ?? []));
      for (const tagId of tags) tagDelta(tagId).txns += step;
    }
  }

  const live = await lockTags(tx, [...tagDeltas.keys()]);
  for (const tagId of live) {
    const delta = tagDeltas.get(tagId)!;
    if (delta.holdings === 0 && delta.txns === 0) continue;
    await tx.execute(
      sql`UPDATE tag_stats SET holding_count = holding_count + ${delta.holdings}, txn_count = txn_count + ${delta.txns}
          WHERE tag_id = ${tagId}`,
    );
  }
  const liveSet = new Set(live);
  const balanceRows = [...balances.values()]
    .filter((entry) => entry.delta !== 0n && liveSet.has(entry.tag_id))
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

  const tokenRows = [...tokens.values()]
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

/**
 * Before a change to a tag's addresses: locks the address_stats rows of the addresses it adds or
 * removes (creating empty ones), then the tag's row. Call before reading or writing the members.
 */
export async function lockForMembershipChange(tx: Sql, tagId: number, addresses: readonly string[]): Promise<void> {
  const ordered = [...new Set(addresses)].sort(binaryOrder);
  for (const chunk of chunks(ordered)) {
    await tx.execute(
      sql`INSERT INTO address_stats (address, holding_count, txn_count) VALUES ${rows(chunk.map((a) => [a, 0, 0]))}
          ON CONFLICT (address) DO NOTHING`,
    );
    await tx.query(
      sql`SELECT address FROM address_stats WHERE address IN (${list(chunk)}) ORDER BY address${forUpdate(tx.dialect)}`,
    );
  }
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
 * Adds `added` (addresses that are not members yet) to the tag's aggregates. Call after
 * lockForMembershipChange and before their memberships are written. Costs in proportion to the
 * added addresses' holdings and transactions, not to the tag's size.
 */
export async function membersAdded(tx: Sql, tagId: number, added: readonly string[]): Promise<void> {
  await applyMembershipDelta(tx, tagId, added, 1);
}

/** Takes `removed` (former members) out of the tag's aggregates. Call after their memberships are deleted. */
export async function membersRemoved(tx: Sql, tagId: number, removed: readonly string[]): Promise<void> {
  await applyMembershipDelta(tx, tagId, removed, -1);
}

/**
 * The members' part of the aggregates for `changed`, added or taken away. Transactions: those
 * with an end in `changed` and none among the tag's other members (address_tags without
 * `changed`, which is what it holds at the time of the call): sent by one of them to a non-member,
 * or received by one of them from neither one of them nor a member.
 */
async function applyMembershipDelta(tx: Sql, tagId: number, changed: readonly string[], sign: 1 | -1): Promise<void> {
  if (changed.length === 0) return;
  const them = list(changed);
  const otherMember = (column: string) =>
    sql`EXISTS (SELECT 1 FROM address_tags m WHERE m.tag_id = ${tagId} AND m.address = ${raw(column)})`;
  const [transfers] = await tx.query<{ n: number | string }>(
    sql`SELECT (SELECT COUNT(*) FROM transactions x WHERE x.from_address IN (${them}) AND NOT ${otherMember('x.to_address')})
      + (SELECT COUNT(*) FROM transactions x WHERE x.to_address IN (${them}) AND x.from_address NOT IN (${them})
          AND NOT ${otherMember('x.from_address')}) AS n`,
  );
  const holdings = await tx.query<{ chain: string; token_address: string; n: number | string; balance: string }>(
    sql`SELECT chain, token_address, COUNT(*) AS n, ${bigSum(tx.dialect, raw('balance'))} AS balance FROM holdings
        WHERE address IN (${them}) AND balance <> '0' GROUP BY chain, token_address ORDER BY chain, token_address`,
  );
  const heldCount = holdings.reduce((sum, row) => sum + Number(row.n), 0);
  await tx.execute(
    sql`UPDATE tag_stats SET address_count = address_count + ${sign * changed.length},
        holding_count = holding_count + ${sign * heldCount}, txn_count = txn_count + ${sign * Number(transfers?.n ?? 0)}
        WHERE tag_id = ${tagId}`,
  );
  for (const chunk of chunks(holdings)) {
    const values = chunk.map((row) => [
      tagId,
      row.chain,
      row.token_address,
      (BigInt(sign) * BigInt(row.balance)).toString(),
    ]);
    await tx.execute(
      sql`INSERT INTO tag_balances (tag_id, chain, token_address, balance) VALUES ${rows(values)}
          ON CONFLICT (tag_id, chain, token_address)
          DO UPDATE SET balance = ${bigAdd(tx.dialect, raw('tag_balances.balance'), raw('excluded.balance'))}`,
    );
  }
  if (sign < 0) await tx.execute(sql`DELETE FROM tag_balances WHERE tag_id = ${tagId} AND balance = '0'`);
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
