import { Injectable } from '@nestjs/common';
import { Sql } from '../../database/db.service';
import { binaryOrder } from '../../core/text/binary-order';
import {
  dataWriteTables,
  type HoldingChange,
  type TransferChange,
  type TransferEnds,
} from '../aggregates/aggregates.service';
import { forUpdate, rowsPerLoad, textRows, toIso } from '../../database/dialect';
import { chunks, list, prepared, raw, rows, sql, SqlFragment } from '../../database/sql';
import type {
  ChainRecord,
  HoldingRecord,
  PriceRecord,
  TokenRecord,
  TransactionRecord,
} from '../../core/records/records';
import { TRANSACTION_FIELDS } from '../../core/records/transaction-fields';
import { Catalog } from './validation/catalog';

/** The advisory lock key of lockDataWriters (PostgreSQL's advisory locks are named by a number). */
const DATA_WRITERS_LOCK = '7263746167';

const HOLDING_COLUMNS = ['chain', 'token_address', 'address', 'balance', 'updated_at'] as const;
const HOLDING_TYPES = ['text', 'text', 'text', 'numeric', 'timestamptz'];
const TRANSACTION_TYPES = TRANSACTION_FIELDS.map((field) =>
  field === 'value' ? 'numeric' : field === 'block_number' ? 'bigint' : field === 'block_time' ? 'timestamptz' : 'text',
);

/** The tables a data write fills; their kept aggregates come from the registry (dataWriteTables). */
const DATA_TABLES = ['transactions', 'holdings', 'tokens', 'token_deployments', 'prices'];

/**
 * The sink's writes. Every statement is an upsert, so writing the same records again rewrites
 * the same values and changes nothing. Callers pass the transaction the records are written in.
 */
@Injectable()
export class IngestRepository {
  /**
   * PostgreSQL: the first statement of every data write transaction. A whole-input write (a file
   * import) takes the data writers' lock alone, every other data write (a per-batch source's batch,
   * a follower's range or rewind) shares it. A file's rows come in file order, and its kept
   * aggregates are updated in rounds, so two file imports that share rows, or a file import and a
   * live write, could each hold a row the other needs next; PostgreSQL would then roll one of them
   * back, and a file import cannot be run again (its source is read once). With the lock, a file
   * import waits for the live writes in flight and runs alone among data writers until it commits;
   * the live writes wait for it, and retry their own deadlocks, which stay possible among
   * themselves (Db.transaction). Tag changes and readers do not take it. SQLite runs one writer at
   * a time already.
   */
  async lockDataWriters(tx: Sql, mode: 'alone' | 'shared'): Promise<void> {
    if (tx.dialect !== 'postgres') return;
    await tx.query(
      mode === 'alone'
        ? sql`SELECT pg_advisory_xact_lock(${DATA_WRITERS_LOCK}::bigint)`
        : sql`SELECT pg_advisory_xact_lock_shared(${DATA_WRITERS_LOCK}::bigint)`,
    );
  }

  /**
   * PostgreSQL: this transaction's commit waits until its WAL is flushed, whatever
   * synchronous_commit the server or the role has: a large write's, before its vacuum
   * (settleAfterLargeWrite). VACUUM marks a page all-visible only once it may record on each row
   * that the row's transaction committed, and it may not while that commit is in WAL not yet
   * flushed: after an asynchronous commit (synchronous_commit off), for up to wal_writer_delay.
   * The vacuum run at once after a 1M import left 45% of the transactions table's pages, and
   * after 100k all of them, to be visited by every index-only scan until autovacuum came back
   * (bench/README.md, change 48). Another client's asynchronous commit just after this one can
   * still hold some pages back (PostgreSQL tracks 32 transaction ids' commits together); those
   * are left to autovacuum.
   */
  async flushOnCommit(tx: Sql): Promise<void> {
    if (tx.dialect !== 'postgres') return;
    await tx.execute(sql`SET LOCAL synchronous_commit = on`);
  }

  /**
   * PostgreSQL: `VACUUM (ANALYZE)` of the tables a data write fills, after a large one has
   * committed. Until autovacuum gets to them (a minute or more after the load), the planner would
   * plan with no column statistics, or those of the empty tables: after an import into a new
   * database, the first tag assignments read every transaction instead of their addresses'
   * (bench/README.md, change 20). And until a vacuum has passed, every first read of a loaded page
   * checks each row's transaction and rewrites the page with its hint bits, and index-only scans
   * visit the table for each entry, because no page is marked all-visible yet: the bench's tag
   * load right after a 10M import took twice as long (change 27). VACUUM skips the pages already
   * all-visible, so it costs about the pages the write touched: 8 s after 10M transactions, under
   * a second at 1M. It runs outside the import's transaction (VACUUM cannot run inside one).
   * SQLite plans from its own heuristics without statistics, as it is tested.
   */
  async settleAfterLargeWrite(db: Sql): Promise<void> {
    if (db.dialect !== 'postgres') return;
    await db.execute(sql`VACUUM (ANALYZE) ${raw([...DATA_TABLES, ...dataWriteTables()].join(', '))}`);
  }

  async loadCatalog(tx: Sql): Promise<Catalog> {
    const chains = await tx.query<{ chain: string; chain_id: number | string }>(
      sql`SELECT chain, chain_id FROM chains`,
    );
    const tokens = await tx.query<{ id: string }>(sql`SELECT id FROM tokens`);
    const deployments = await tx.query<{ chain: string; address: string; token_id: string }>(
      sql`SELECT chain, address, token_id FROM token_deployments`,
    );
    return new Catalog(
      new Map(chains.map((row) => [row.chain, Number(row.chain_id)])),
      tokens.map((row) => row.id),
      deployments,
    );
  }

  /** Chains are fixed; a chain record updates the display data of one of them. */
  async updateChains(tx: Sql, chains: readonly ChainRecord[]): Promise<void> {
    for (const chain of chains) {
      const explorers = chain.explorers.map(({ name, url, tx_url, address_url }) => ({
        name,
        url,
        tx_url,
        address_url,
      }));
      // display_source 'import': start-up seeding keeps this display data (migration 1763700000021).
      await tx.execute(
        sql`UPDATE chains SET name = ${chain.name}, icon_url = ${chain.icon_url}, explorers = ${JSON.stringify(explorers)},
            display_source = 'import' WHERE chain = ${chain.chain}`,
      );
    }
  }

  /** Deployments are added or updated, never removed: holdings may still refer to them. */
  async upsertTokens(tx: Sql, tokens: readonly TokenRecord[]): Promise<void> {
    await upsert(
      tx,
      'tokens',
      ['id', 'name', 'symbol', 'icon_url'],
      tokens.map((token) => [token.id, token.name, token.symbol, token.icon_url]),
      sql`ON CONFLICT (id) DO UPDATE SET name = excluded.name, symbol = excluded.symbol, icon_url = excluded.icon_url`,
    );
    const deployments = new Map<string, unknown[]>();
    for (const token of tokens) {
      for (const deployment of token.deployments) {
        deployments.set(`${deployment.chain} ${deployment.address}`, [
          deployment.chain,
          deployment.address,
          token.id,
          deployment.decimals,
        ]);
      }
    }
    await upsert(
      tx,
      'token_deployments',
      ['chain', 'address', 'token_id', 'decimals'],
      [...deployments.values()],
      sql`ON CONFLICT (chain, address) DO UPDATE SET decimals = excluded.decimals`,
    );
  }

  async upsertPrices(tx: Sql, prices: readonly PriceRecord[]): Promise<void> {
    await upsert(
      tx,
      'prices',
      ['token_id', 'at', 'usd'],
      prices.map((price) => [price.token_id, price.at, price.usd]),
      sql`ON CONFLICT (token_id, at) DO UPDATE SET usd = excluded.usd`,
    );
  }

  /**
   * A balance is replaced only by one at least as recent, so writing an older snapshot after a
   * newer one cannot roll a balance back. Answers each holding's balance before and after, for the
   * kept aggregates: new rows are inserted first (their balance before is none), then the rows
   * that were there are locked in key order, read, and updated. A row another writer inserts at
   * the same time is found by the insert, which waits for it, and is then read like any other.
   */
  async upsertHoldings(tx: Sql, holdings: readonly HoldingRecord[]): Promise<HoldingChange[]> {
    const ordered = inKeyOrder(holdings);
    const changes: HoldingChange[] = [];
    for (const load of chunks(ordered, rowsPerLoad(tx.dialect))) {
      const isNew = new Set((await insertNewHoldings(tx, load)).map(holdingKey));
      for (const h of load) {
        if (isNew.has(holdingKey(h))) changes.push({ ...keyOf(h), before: '0', after: h.balance });
      }
      for (const existing of chunks(
        load.filter((h) => !isNew.has(holdingKey(h))),
        rowsPerLoad(tx.dialect),
      )) {
        const stored = await lockHoldings(tx, existing);
        const before = new Map(stored.map((row) => [holdingKey(row), row]));
        const replacing = existing.filter((h) => {
          const row = before.get(holdingKey(h));
          return row !== undefined && toIso(row.updated_at) <= h.updated_at;
        });
        for (const h of replacing) {
          changes.push({ ...keyOf(h), before: String(before.get(holdingKey(h))!.balance), after: h.balance });
        }
        await writeHoldings(tx, replacing);
      }
    }
    return changes;
  }

  /**
   * Holdings read from a chain's state at an earlier block than the one stored (a reorganisation
   * took the later blocks away): written whatever their time, and answered like upsertHoldings.
   * New rows are inserted first, as there: a row that was not there when the stored ones were
   * locked may be another writer's by the time it is written.
   */
  async replaceHoldings(tx: Sql, holdings: readonly HoldingRecord[]): Promise<HoldingChange[]> {
    const ordered = inKeyOrder(holdings);
    const changes: HoldingChange[] = [];
    for (const chunk of chunks(ordered, rowsPerLoad(tx.dialect))) {
      const isNew = new Set((await insertNewHoldings(tx, chunk)).map(holdingKey));
      const existing = chunk.filter((h) => !isNew.has(holdingKey(h)));
      // Holdings are never deleted: every row the insert found is there to lock.
      const stored = existing.length === 0 ? [] : await lockHoldings(tx, existing);
      const before = new Map(stored.map((row) => [holdingKey(row), String(row.balance)]));
      for (const h of chunk) changes.push({ ...keyOf(h), before: before.get(holdingKey(h)) ?? '0', after: h.balance });
      await writeHoldings(tx, existing);
    }
    return changes;
  }

  /**
   * Removes a chain's transactions above `block` (blocks a reorganisation took away) and answers
   * their ends, in id order, for the kept aggregates. Only the rows it locked go: a row another
   * writer commits above the block while the lock waits is not among them, and stays, as if that
   * write came after this one (a delete by the block alone would take it, its counts left kept).
   */
  async deleteTransactionsAbove(tx: Sql, chain: string, block: bigint): Promise<TransferChange[]> {
    const above = block.toString();
    const removed = await tx.query<{ id: string; from_address: string; to_address: string }>(
      sql`SELECT id, from_address, to_address FROM transactions WHERE chain = ${chain} AND block_number > ${above}
          ORDER BY id${forUpdate(tx.dialect)}`,
    );
    for (const part of chunks(removed)) {
      await tx.execute(sql`DELETE FROM transactions WHERE id IN (${list(part.map((row) => row.id))})`);
    }
    return removed.map((row) => ({ before: endsOf(row), after: undefined }));
  }

  /**
   * A transaction with a known id replaces the stored one: that is how a correction is imported.
   * Answers each transaction's ends before (none for a new one) and after, found like the
   * holdings' balances before.
   */
  async upsertTransactions(tx: Sql, transactions: readonly TransactionRecord[]): Promise<TransferChange[]> {
    const columns = TRANSACTION_FIELDS;
    const ordered = [...transactions].sort((a, b) => binaryOrder(a.id, b.id));
    const changes: TransferChange[] = [];
    for (const load of chunks(ordered, rowsPerLoad(tx.dialect))) {
      // A row the insert found may be gone when it is locked (a rewind deleted it meanwhile): such
      // transactions are inserted again, never written blind, where another writer's row could be.
      for (let pending = load; pending.length > 0;) {
        const inserted = await tx.query<{ id: string }>(
          prepared(sql`INSERT INTO transactions (${raw(columns.join(', '))})
              ${textRows(
                tx.dialect,
                columns.map((column) => pending.map((transaction) => transaction[column])),
                TRANSACTION_TYPES,
              )}
              ON CONFLICT (id) DO NOTHING RETURNING id`),
        );
        const isNew = new Set(inserted.map((row) => row.id));
        for (const transaction of pending) {
          if (isNew.has(transaction.id)) changes.push({ before: undefined, after: endsOf(transaction) });
        }
        const gone: TransactionRecord[] = [];
        for (const existing of chunks(pending.filter((transaction) => !isNew.has(transaction.id)))) {
          gone.push(...(await this.replaceTransactions(tx, existing, changes)));
        }
        pending = gone;
      }
    }
    return changes;
  }

  /**
   * Transactions whose ids the insert found stored (at most ROWS_PER_STATEMENT, in id order):
   * locked, read, replaced. Answers those whose row was gone by the time it was locked.
   */
  private async replaceTransactions(
    tx: Sql,
    existing: readonly TransactionRecord[],
    changes: TransferChange[],
  ): Promise<TransactionRecord[]> {
    const columns = TRANSACTION_FIELDS;
    const stored = await tx.query<{ id: string; from_address: string; to_address: string }>(
      sql`SELECT id, from_address, to_address FROM transactions WHERE id IN (${list(existing.map((t) => t.id))})
          ORDER BY id${forUpdate(tx.dialect)}`,
    );
    const before = new Map(stored.map((row) => [row.id, row]));
    const found = existing.filter((transaction) => before.has(transaction.id));
    for (const transaction of found) {
      changes.push({ before: endsOf(before.get(transaction.id)!), after: endsOf(transaction) });
    }
    await upsert(
      tx,
      'transactions',
      columns,
      found.map((transaction) => columns.map((column) => transaction[column])),
      sql`ON CONFLICT (id) DO UPDATE SET ${raw(
        columns
          .slice(1)
          .map((column) => `${column} = excluded.${column}`)
          .join(', '),
      )}`,
    );
    return existing.filter((transaction) => !before.has(transaction.id));
  }
}

function inKeyOrder(holdings: readonly HoldingRecord[]): HoldingRecord[] {
  return [...holdings].sort(
    (a, b) =>
      binaryOrder(a.chain, b.chain) ||
      binaryOrder(a.token_address, b.token_address) ||
      binaryOrder(a.address, b.address),
  );
}

/**
 * The stored rows of `holdings`, locked in key order. The keys go as one array per column on
 * PostgreSQL (textRows); not prepared, since holdings can grow by much between two ANALYZEs.
 */
function lockHoldings(
  tx: Sql,
  holdings: readonly HoldingRecord[],
): Promise<
  { chain: string; token_address: string; address: string; balance: string | number; updated_at: Date | string }[]
> {
  return tx.query(
    sql`SELECT chain, token_address, address, balance, updated_at FROM holdings
        WHERE (chain, token_address, address) IN (${textRows(tx.dialect, [
          holdings.map((h) => h.chain),
          holdings.map((h) => h.token_address),
          holdings.map((h) => h.address),
        ])})
        ORDER BY chain, token_address, address${forUpdate(tx.dialect)}`,
  );
}

/** Inserts the holdings whose keys are not stored, and answers their keys. */
function insertNewHoldings(
  tx: Sql,
  holdings: readonly HoldingRecord[],
): Promise<{ chain: string; token_address: string; address: string }[]> {
  // One text whatever the count on PostgreSQL, so kept prepared there (SQLite ignores it).
  return tx.query(
    prepared(
      sql`${holdingsInsert(tx, holdings)} ON CONFLICT (chain, token_address, address) DO NOTHING RETURNING chain, token_address, address`,
    ),
  );
}

/** Writes holdings whose rows the caller has locked: one statement, its rows as one array per column on PostgreSQL. */
async function writeHoldings(tx: Sql, holdings: readonly HoldingRecord[]): Promise<void> {
  if (holdings.length === 0) return;
  await tx.execute(
    prepared(
      sql`${holdingsInsert(tx, holdings)} ON CONFLICT (chain, token_address, address) DO UPDATE SET balance = excluded.balance, updated_at = excluded.updated_at`,
    ),
  );
}

function holdingsInsert(tx: Sql, holdings: readonly HoldingRecord[]): SqlFragment {
  return sql`INSERT INTO holdings (${raw(HOLDING_COLUMNS.join(', '))})
    ${textRows(
      tx.dialect,
      HOLDING_COLUMNS.map((column) => holdings.map((h) => h[column])),
      HOLDING_TYPES,
    )}`;
}

function holdingKey(row: { chain: string; token_address: string; address: string }): string {
  return `${row.chain} ${row.token_address} ${row.address}`;
}

function keyOf(h: HoldingRecord): { chain: string; token_address: string; address: string } {
  return { chain: h.chain, token_address: h.token_address, address: h.address };
}

function endsOf(row: { from_address: string; to_address: string }): TransferEnds {
  return { from_address: row.from_address, to_address: row.to_address };
}

/** Multi-row INSERT … ON CONFLICT, one statement per ROWS_PER_STATEMENT rows. Rows must not repeat a key. */
async function upsert(
  tx: Sql,
  table: string,
  columns: readonly string[],
  values: readonly (readonly unknown[])[],
  onConflict: SqlFragment,
): Promise<void> {
  for (const chunk of chunks(values)) {
    await tx.execute(sql`INSERT INTO ${raw(table)} (${raw(columns.join(', '))}) VALUES ${rows(chunk)} ${onConflict}`);
  }
}
