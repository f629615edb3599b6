import { Injectable } from '@nestjs/common';
import { Sql } from '../../database/db.service';
import { TRANSACTION_FIELDS } from '../../core/records/transaction-fields';
import { Catalog } from './catalog';
import { ChainRecord, HoldingRecord, PriceRecord, TokenRecord, TransactionRecord } from './lines';

/**
 * Rows per INSERT statement. The widest row (a transaction) has 10 columns, so a statement binds at
 * most 5,000 parameters: far below PostgreSQL's 65,535 and SQLite's 32,766.
 */
export const ROWS_PER_STATEMENT = 500;

/**
 * The import's writes. Every statement is an upsert, so importing the same file again rewrites
 * the same values and changes nothing. Callers pass the transaction the import runs in.
 */
@Injectable()
export class IngestRepository {
  async loadCatalog(tx: Sql): Promise<Catalog> {
    const chains = await tx.query<{ chain: string; chain_id: number | string }>('SELECT chain, chain_id FROM chains');
    const tokens = await tx.query<{ id: string }>('SELECT id FROM tokens');
    const deployments = await tx.query<{ chain: string; address: string; token_id: string }>(
      'SELECT chain, address, token_id FROM token_deployments',
    );
    return new Catalog(
      new Map(chains.map((row) => [row.chain, Number(row.chain_id)])),
      tokens.map((row) => row.id),
      deployments,
    );
  }

  /** Chains are fixed; a chain line updates the display data of one of them. */
  async updateChains(tx: Sql, chains: readonly ChainRecord[]): Promise<void> {
    for (const chain of chains) {
      const explorers = chain.explorers.map(({ name, url, tx_url, address_url }) => ({
        name,
        url,
        tx_url,
        address_url,
      }));
      // display_source 'import': start-up seeding keeps this display data (migration 1763700000020).
      await tx.execute(
        "UPDATE chains SET name = $1, icon_url = $2, explorers = $3, display_source = 'import' WHERE chain = $4",
        [chain.name, chain.icon_url, JSON.stringify(explorers), chain.chain],
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
      'ON CONFLICT (id) DO UPDATE SET name = excluded.name, symbol = excluded.symbol, icon_url = excluded.icon_url',
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
      'ON CONFLICT (chain, address) DO UPDATE SET decimals = excluded.decimals',
    );
  }

  async upsertPrices(tx: Sql, prices: readonly PriceRecord[]): Promise<void> {
    await upsert(
      tx,
      'prices',
      ['token_id', 'at', 'usd'],
      prices.map((price) => [price.token_id, price.at, price.usd]),
      'ON CONFLICT (token_id, at) DO UPDATE SET usd = excluded.usd',
    );
  }

  /**
   * A balance is replaced only by one at least as recent, so importing an older snapshot after a
   * newer one cannot roll a balance back.
   */
  async upsertHoldings(tx: Sql, holdings: readonly HoldingRecord[]): Promise<void> {
    await upsert(
      tx,
      'holdings',
      ['chain', 'token_address', 'address', 'balance', 'updated_at'],
      holdings.map((h) => [h.chain, h.token_address, h.address, h.balance, h.updated_at]),
      `ON CONFLICT (chain, token_address, address) DO UPDATE SET balance = excluded.balance, updated_at = excluded.updated_at
       WHERE holdings.updated_at <= excluded.updated_at`,
    );
  }

  /** A transaction line with a known id replaces the stored one: that is how a correction is imported. */
  async upsertTransactions(tx: Sql, transactions: readonly TransactionRecord[]): Promise<void> {
    const columns = TRANSACTION_FIELDS;
    await upsert(
      tx,
      'transactions',
      columns,
      transactions.map((transaction) => columns.map((column) => transaction[column])),
      `ON CONFLICT (id) DO UPDATE SET ${columns
        .slice(1)
        .map((column) => `${column} = excluded.${column}`)
        .join(', ')}`,
    );
  }
}

/** Multi-row INSERT … ON CONFLICT, ROWS_PER_STATEMENT rows at a time. Rows must not repeat a key. */
async function upsert(
  tx: Sql,
  table: string,
  columns: readonly string[],
  rows: readonly unknown[][],
  onConflict: string,
): Promise<void> {
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    const chunk = rows.slice(start, start + ROWS_PER_STATEMENT);
    const values = chunk
      .map((_row, index) => `(${columns.map((_column, c) => `$${index * columns.length + c + 1}`).join(', ')})`)
      .join(', ');
    await tx.execute(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${values} ${onConflict}`, chunk.flat());
  }
}
