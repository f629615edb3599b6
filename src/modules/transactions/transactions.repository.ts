import { Injectable } from '@nestjs/common';
import { CHAIN_IDS, ChainId } from '../../core/chains/chain-ids';
import { addressSet } from '../../database/address-sets';
import { Db, Sql } from '../../database/db.service';
import { type Dialect, filterOnly } from '../../database/dialect';
import { and, chunks, empty, join, list, prepared, raw, sql, SqlFragment } from '../../database/sql';
import { NamedTag, TagScope } from '../../core/tags/tag-scope';
import { CursorPosition } from '../../http/paging/cursor';
import { settingOnce } from '../../database/settings';

export interface TransactionFilters {
  chain?: ChainId;
  /** Canonical. */
  tokenAddress?: string;
  /** The canonical spellings of one address (listFilters); matches the sender or the recipient. */
  address?: readonly string[];
  /** Matches when the sender or the recipient is in the scope. */
  scope?: TagScope;
  /** `toISOString()` form; block_time strictly after it. */
  since?: string;
  /** `toISOString()` form; block_time at or before it. */
  until?: string;
  /**
   * Only the rows the address sent or received (with `address`), else those a member of the scope
   * sent or received: the end that must match.
   */
  direction?: 'sent' | 'received';
  /** Rows strictly after this one in the list order. */
  after?: CursorPosition;
}

export interface TransactionRow {
  id: string;
  chain: string;
  token_address: string;
  from_address: string;
  to_address: string;
  value: string;
  tx_hash: string;
  block_number: string;
  block_hash: string;
  block_time: Date | string;
}

// block_number goes out as text: better-sqlite3 would return it as a JS number, inexact above 2^53.
const COLUMNS = raw(`id, chain, token_address, from_address, to_address, value, tx_hash,
  CAST(block_number AS TEXT) AS block_number, block_hash, block_time`);
const NEWEST_FIRST = raw('ORDER BY block_time DESC, id DESC');
/** The column a direction's end is: a row sent by an address has it as its sender. */
const END = { sent: 'from_address', received: 'to_address' } as const;

const SETTING_CURSOR_SECRET = 'transactions_cursor_secret';

@Injectable()
export class TransactionsRepository {
  constructor(private readonly db: Db) {}

  /** The row with this id, if any: one look-up of the primary key. */
  byId(id: string): Promise<TransactionRow[]> {
    return this.db.query<TransactionRow>(prepared(sql`SELECT ${COLUMNS} FROM transactions WHERE id = ${id}`));
  }

  /** The rows with these ids, read inside `tx` (a writer's transaction sees its own rows); in no order. */
  async byIds(tx: Sql, ids: readonly string[]): Promise<TransactionRow[]> {
    const found: TransactionRow[] = [];
    for (const batch of chunks(ids)) {
      found.push(
        ...(await tx.query<TransactionRow>(sql`SELECT ${COLUMNS} FROM transactions WHERE id IN (${list(batch)})`)),
      );
    }
    return found;
  }

  /**
   * Up to `limit` rows, newest first. Keyset paging: the cursor condition `(block_time, id) <
   * (…)` continues exactly where the previous page ended, whatever was inserted since.
   *
   * With an address the rows come from two branches, one per index (transactions_by_sender,
   * transactions_by_recipient), each read in list order from the cursor and cut at `limit`; the
   * union is ordered and cut again. The recipient branch leaves out rows whose sender also
   * matches, so a transfer to oneself (or between two members of a tag) appears once without a
   * DISTINCT over the whole result. A tag without an address is read one of two ways (tagPage).
   */
  async page(filters: TransactionFilters, limit: number): Promise<TransactionRow[]> {
    if (filters.address === undefined) {
      if (filters.scope !== undefined) return this.tagPage(filters, filters.scope, limit);
      const conditions = listConditions(filters, raw);
      if (filters.tokenAddress !== undefined && filters.chain === undefined) {
        return this.db.query<TransactionRow>(prepared(onEachChain(conditions, limit)));
      }
      return this.db.query<TransactionRow>(newest(conditions, limit));
    }
    // With an address, the rows come from the address indexes (below), whatever the chain.
    const shared = listConditions(filters, (name) => filterOnly(this.db.dialect, name));
    const spellings = list(filters.address);
    if (filters.scope !== undefined) {
      const members = addressSet(filters.scope);
      shared.push(sql`(from_address IN (${members}) OR to_address IN (${members}))`);
    }
    const statement = sentOrReceived(spellings, shared, limit, filters.direction);
    // One address reads the same two indexes whatever the address; with a tag the plan depends on its size.
    return this.db.query<TransactionRow>(filters.scope === undefined ? prepared(statement) : statement);
  }

  /**
   * A tag's rows (no address given), read the way that reads fewer rows by its kept counts
   * (walksTag):
   *
   * - **walking** the list in its order (the time index, a chain's, or for a token without a chain
   *   its range on each chain, onEachChain) and keeping the rows with a member at either end, each
   *   end looked up in the tag: about `limit` × (all transactions / the tag's) rows a page, so for
   *   a tag with many transactions;
   * - **by member**: each member's newest rows from its sender and recipient indexes (on
   *   PostgreSQL at most `limit` per member and side, `LATERAL`), ordered and cut: at most the
   *   tag's own transactions, and at most `limit` per member and side, so for a tag with few
   *   transactions or few members. A transfer between two members is in both of their lists; on
   *   PostgreSQL the lists' union drops the repeat (a hash of at most 2 × `limit` ids a member),
   *   where a recipient's row whose sender is a member was left out by a lookup in the tag, which
   *   PostgreSQL ran as a scan of every member for each row: rows × members (bench/README.md,
   *   change 76). Every row of the page is in one of the lists: a sender's (or recipient's) newer
   *   rows are all in the tag's too, so fewer than `limit` of them come before it.
   *
   * Left to itself, PostgreSQL guessed a tag's size from the average tag and walked the whole
   * table for a tag of ten quiet addresses (1.7 s at 1M transactions), or read all 175,000
   * transactions of 94 busy ones to keep 31 (bench/README change 41). Each way is written so that
   * the planner cannot turn it into the other: the walk's member lookups sit under an OR, which it
   * does not turn into a join.
   */
  private async tagPage(
    filters: TransactionFilters,
    scope: TagScope,
    limit: number,
    size?: TagSize,
  ): Promise<TransactionRow[]> {
    const members = addressSet(scope);
    const conditions = listConditions(filters, raw);
    if (walksTag(size ?? (await this.sizeOf(scope)), limit, this.db.dialect)) {
      const isMember = (column: string) => sql`EXISTS (SELECT 1 FROM (${members}) m WHERE m.address = ${raw(column)})`;
      const walked = [
        ...conditions,
        filters.direction === undefined
          ? sql`(${isMember('from_address')} OR ${isMember('to_address')})`
          : isMember(END[filters.direction]),
      ];
      return this.db.query<TransactionRow>(
        filters.tokenAddress !== undefined && filters.chain === undefined
          ? onEachChain(walked, limit)
          : newest(walked, limit),
      );
    }
    if (this.db.dialect === 'sqlite') {
      // SQLite reads `IN (subquery)` member by member from the address indexes; filterOnly keeps
      // it off the chain's index, which the walk above is meant to use.
      const onRows = listConditions(filters, (name) => filterOnly(this.db.dialect, name));
      return this.db.query<TransactionRow>(sentOrReceived(members, onRows, limit, filters.direction));
    }
    const perMember = (end: string) =>
      sql`SELECT k.id, k.block_time FROM (${members}) m CROSS JOIN LATERAL (
            SELECT id, block_time FROM transactions x WHERE ${raw(end)} = m.address AND ${and(conditions)}
            ${NEWEST_FIRST} LIMIT ${limit}) k`;
    // UNION, not UNION ALL: a transfer between two members is in both lists, and counts once. One
    // direction is one list, where each row comes once (it has one sender and one recipient).
    const ends =
      filters.direction === undefined
        ? sql`${perMember('from_address')} UNION ${perMember('to_address')}`
        : perMember(END[filters.direction]);
    return this.db.query<TransactionRow>(
      sql`SELECT ${COLUMNS} FROM transactions WHERE id IN (
            SELECT id FROM (${ends}) AS ends
            ${NEWEST_FIRST} LIMIT ${limit})
          ${NEWEST_FIRST}`,
    );
  }

  /**
   * `page` for a real tag named by the request, without an address: the statement that reads the
   * tag's kept size (sizeOf) finds the tag by its name too, so the page takes two statements, not
   * three (bench/README.md, change 61). Undefined when the account has no such tag.
   */
  async namedTagPage(
    tag: NamedTag,
    filters: Omit<TransactionFilters, 'scope' | 'address'>,
    limit: number,
  ): Promise<TransactionRow[] | undefined> {
    const [row] = await this.db.query<SizeRow & { id: number | string; revision: number | string }>(
      prepared(sql`SELECT t.id, t.revision, s.txn_count AS transactions, s.address_count AS members,
              ${allTransactions(this.db.dialect)} AS total
          FROM tags t JOIN tag_stats s ON s.tag_id = t.id WHERE t.account_id = ${tag.accountId} AND t.name = ${tag.name}`),
    );
    if (row === undefined) return undefined;
    const scope: TagScope = {
      kind: 'tag',
      accountId: tag.accountId,
      tagId: Number(row.id),
      revision: Number(row.revision),
    };
    return this.tagPage(filters, scope, limit, sizeFrom(row));
  }

  /**
   * A tag's transactions and members as kept (tag_stats); for the reserved tag, which keeps none,
   * the sum of its addresses' kept counts (a transfer between two of them counted twice) and how
   * many of them have an address_stats row, read from its set's index. With them, the transactions of the whole list
   * (allTransactions).
   */
  private async sizeOf(scope: TagScope): Promise<TagSize> {
    const all = allTransactions(this.db.dialect);
    const [row] =
      scope.kind === 'tag'
        ? await this.db.query<SizeRow>(
            prepared(sql`SELECT txn_count AS transactions, address_count AS members, ${all} AS total
                FROM tag_stats WHERE tag_id = ${scope.tagId}`),
          )
        : await this.db.query<SizeRow>(
            sql`SELECT COALESCE(SUM(s.txn_count), 0) AS transactions, COUNT(*) AS members, ${all} AS total
                FROM address_stats s WHERE s.address IN (${addressSet(scope)})`,
          );
    return sizeFrom(row);
  }

  /** The cursor secret, stored on first use. */
  cursorSecret(candidate: string): Promise<string> {
    return settingOnce(this.db, SETTING_CURSOR_SECRET, candidate);
  }
}

/**
 * How a tag's rows are read (TransactionsRepository.tagPage). A tag of up to `walkAbove`
 * transactions is read member by member, which then reads at most that many rows. A larger one is
 * walked unless that reads more: about `limit` × (all transactions / the tag's) rows, each costing
 * `walkedRow` times a row read by member, against at most `limit` rows per member and side, and
 * at most the tag's transactions, by member. A walked row is an entry of the time index read in
 * order with its two ends looked up in the tag; by member, each member's rows are ranges of two
 * indexes, gathered and sorted: on the 10M bench database by member took about ten times as long
 * a row (bench/README.md, change 60), about twice as long since change 76 made it cheaper, and 0.5
 * is the factor that read the bench's larger tags fastest at 10M and 1M (change 77). So a tag of
 * 19 busy addresses with 10,069 transactions is read by member (3 ms, walked 26 ms), one of 53
 * with 10,954 too (5 ms, walked 27 ms), one of 312 with 29,470 walked (6 ms, by member 84 ms).
 * SQLite reads a tag by member without `LATERAL` (all its rows, sorted), which change 76 did not
 * touch, and keeps change 60's factor. Only the cost depends on it: the tests read every tag both
 * ways (walkedRow 0 walks every tag over walkAbove; walkAbove Infinity walks none).
 */
export const tagTransactions = { walkAbove: 10_000, walkedRow: { postgres: 0.5, sqlite: 0.1 } };

export interface TagSize {
  transactions: number;
  members: number;
  /** The whole list's transactions, an estimate (allTransactions). */
  total: number;
}

type SizeRow = { transactions: number | string; members: number | string; total: number | string | null };

function sizeFrom(row: SizeRow | undefined): TagSize {
  return {
    transactions: Number(row?.transactions ?? 0),
    members: Number(row?.members ?? 0),
    total: Number(row?.total ?? 0),
  };
}

export function walksTag(size: TagSize, limit: number, dialect: Dialect): boolean {
  if (size.transactions <= tagTransactions.walkAbove) return false;
  const walkedRow = tagTransactions.walkedRow[dialect];
  if (walkedRow === 0) return true;
  const walked = (limit * size.total) / Math.max(size.transactions, 1);
  const byMember = Math.min(size.transactions, 2 * limit * size.members);
  return walkedRow * walked < byMember;
}

/**
 * The transactions table's rows, estimated without counting them. On PostgreSQL the larger of the
 * count its last VACUUM or ANALYZE recorded (`reltuples`, kept in the catalog: a copy of the
 * database and a restart after a crash keep it) and the live rows the statistics system has
 * counted since (which a new database's load moves at once, but starts at zero in a database
 * copied from another and after a crash). On SQLite its largest rowid (rows deleted by a rewind
 * leave gaps, which only overstates it). An estimate too low only walks a tag as if it were a
 * larger share of the list.
 */
function allTransactions(dialect: Dialect): SqlFragment {
  return dialect === 'postgres'
    ? raw(`(SELECT GREATEST(c.reltuples, pg_stat_get_live_tuples(c.oid)) FROM pg_class c
            WHERE c.oid = 'transactions'::regclass)`)
    : raw('(SELECT MAX(rowid) FROM transactions)');
}

/** The list's own filters: chain, token, `since`, `until` and the cursor, with the columns as `column` spells them. */
function listConditions(filters: TransactionFilters, column: (name: string) => SqlFragment): SqlFragment[] {
  const conditions: SqlFragment[] = [];
  if (filters.chain !== undefined) conditions.push(sql`${column('chain')} = ${filters.chain}`);
  if (filters.tokenAddress !== undefined) conditions.push(sql`${column('token_address')} = ${filters.tokenAddress}`);
  if (filters.since !== undefined) conditions.push(sql`block_time > ${filters.since}`);
  if (filters.until !== undefined) conditions.push(sql`block_time <= ${filters.until}`);
  if (filters.after !== undefined) {
    conditions.push(sql`(block_time, id) < (${filters.after.time}, ${filters.after.id})`);
  }
  return conditions;
}

/**
 * A token's newest rows over every chain: each chain's ids from transactions_by_chain (chain,
 * token_address, block_time, id), a range in list order, cut at `limit`, then merged and cut
 * again, and only those rows read. Read in time order with the token as a filter, a token with
 * few transfers cost a walk through the whole table (bench/README change 42).
 */
function onEachChain(conditions: readonly SqlFragment[], limit: number): SqlFragment {
  const branches = CHAIN_IDS.map(
    (chain) =>
      sql`SELECT * FROM (SELECT id, block_time FROM transactions WHERE ${and([sql`chain = ${chain}`, ...conditions])}
          ${NEWEST_FIRST} LIMIT ${limit}) AS c`,
  );
  return sql`SELECT ${COLUMNS} FROM transactions WHERE id IN (SELECT id FROM (${join(branches, ' UNION ALL ')}) AS chains
      ${NEWEST_FIRST} LIMIT ${limit}) ${NEWEST_FIRST}`;
}

/**
 * The newest `limit` rows sent or received by one of `ends` (a list of spellings or a set's
 * subquery): one branch per end's index, each cut at `limit`, merged and cut again. The recipients'
 * branch leaves out rows whose sender is one of them too, so each row comes once. With a
 * `direction`, only that end's branch, all of it.
 */
function sentOrReceived(
  ends: SqlFragment,
  conditions: readonly SqlFragment[],
  limit: number,
  direction?: 'sent' | 'received',
): SqlFragment {
  if (direction !== undefined) return newest([sql`${raw(END[direction])} IN (${ends})`, ...conditions], limit);
  const sent = newest([sql`from_address IN (${ends})`, ...conditions], limit);
  const received = newest([sql`to_address IN (${ends}) AND from_address NOT IN (${ends})`, ...conditions], limit);
  return sql`SELECT * FROM (${sent}) AS sent UNION ALL SELECT * FROM (${received}) AS received ${NEWEST_FIRST} LIMIT ${limit}`;
}

/** The newest `limit` rows that meet every condition (all rows without one). */
function newest(conditions: readonly SqlFragment[], limit: number): SqlFragment {
  return sql`SELECT ${COLUMNS} FROM transactions${conditions.length > 0 ? sql` WHERE ${and(conditions)}` : empty} ${NEWEST_FIRST} LIMIT ${limit}`;
}
