import { Injectable } from '@nestjs/common';
import { ChainId } from '../../core/chains/chain-ids';
import { addressSet } from '../../database/address-sets';
import { Db, Sql } from '../../database/db.service';
import { filterOnly } from '../../database/dialect';
import { and, chunks, empty, list, prepared, raw, sql, SqlFragment } from '../../database/sql';
import { TagScope } from '../../core/tags/tag-scope';
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

const SETTING_CURSOR_SECRET = 'transactions_cursor_secret';

@Injectable()
export class TransactionsRepository {
  constructor(private readonly db: Db) {}

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
   * With an address (or, without one, a tag) the rows come from two branches, one per index
   * (transactions_by_sender, transactions_by_recipient), each read in list order from the cursor
   * and cut at `limit`; the union is ordered and cut again. The recipient branch leaves out rows
   * whose sender also matches, so a transfer to oneself (or between two members of a tag) appears
   * once without a DISTINCT over the whole result.
   */
  page(filters: TransactionFilters, limit: number): Promise<TransactionRow[]> {
    const shared: SqlFragment[] = [];
    // With an address or a tag, the rows come from the address indexes (below), whatever the chain.
    const byAddress = filters.address !== undefined || filters.scope !== undefined;
    const column = (name: string) => (byAddress ? filterOnly(this.db.dialect, name) : raw(name));
    if (filters.chain !== undefined) shared.push(sql`${column('chain')} = ${filters.chain}`);
    if (filters.tokenAddress !== undefined) shared.push(sql`${column('token_address')} = ${filters.tokenAddress}`);
    if (filters.since !== undefined) shared.push(sql`block_time > ${filters.since}`);
    if (filters.after !== undefined) {
      shared.push(sql`(block_time, id) < (${filters.after.time}, ${filters.after.id})`);
    }
    const members = filters.scope === undefined ? undefined : addressSet(filters.scope);
    const select = (conditions: SqlFragment[]) =>
      sql`SELECT ${COLUMNS} FROM transactions${conditions.length > 0 ? sql` WHERE ${and(conditions)}` : empty} ${NEWEST_FIRST} LIMIT ${limit}`;

    let sender: SqlFragment;
    let recipient: SqlFragment;
    if (filters.address !== undefined) {
      const spellings = list(filters.address);
      if (members !== undefined) shared.push(sql`(from_address IN (${members}) OR to_address IN (${members}))`);
      sender = sql`from_address IN (${spellings})`;
      recipient = sql`to_address IN (${spellings}) AND from_address NOT IN (${spellings})`;
    } else if (members !== undefined) {
      sender = sql`from_address IN (${members})`;
      recipient = sql`to_address IN (${members}) AND from_address NOT IN (${members})`;
    } else {
      return this.db.query<TransactionRow>(select(shared));
    }
    const statement = sql`SELECT * FROM (${select([sender, ...shared])}) AS sent
       UNION ALL
       SELECT * FROM (${select([recipient, ...shared])}) AS received
       ${NEWEST_FIRST} LIMIT ${limit}`;
    // One address reads the same two indexes whatever the address; a tag's plan depends on its size.
    return this.db.query<TransactionRow>(members === undefined ? prepared(statement) : statement);
  }

  /** The cursor secret, stored on first use. */
  cursorSecret(candidate: string): Promise<string> {
    return settingOnce(this.db, SETTING_CURSOR_SECRET, candidate);
  }
}
