import { Injectable } from '@nestjs/common';
import { Sql } from '../../database/db.service';
import { chunks, raw, rows, sql, SqlFragment } from '../../database/sql';
import type {
  ChainRecord,
  HoldingRecord,
  PriceRecord,
  TokenRecord,
  TransactionRecord,
} from '../../core/records/records';
import { TRANSACTION_FIELDS } from '../../core/records/transaction-fields';
import { Catalog } from './validation/catalog';

/**
 * The sink's writes. Every statement is an upsert, so writing the same records again rewrites
 * the same values and changes nothing. Callers pass the transaction the records are written in.
 */
@Injectable()
export class IngestRepository {
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
   * newer one cannot roll a balance back.
   */
  async upsertHoldings(tx: Sql, holdings: readonly HoldingRecord[]): Promise<void> {
    await upsert(
      tx,
      'holdings',
      ['chain', 'token_address', 'address', 'balance', 'updated_at'],
      holdings.map((h) => [h.chain, h.token_address, h.address, h.balance, h.updated_at]),
      sql`ON CONFLICT (chain, token_address, address) DO UPDATE SET balance = excluded.balance, updated_at = excluded.updated_at
       WHERE holdings.updated_at <= excluded.updated_at`,
    );
  }

  /** A transaction with a known id replaces the stored one: that is how a correction is imported. */
  async upsertTransactions(tx: Sql, transactions: readonly TransactionRecord[]): Promise<void> {
    const columns = TRANSACTION_FIELDS;
    await upsert(
      tx,
      'transactions',
      columns,
      transactions.map((transaction) => columns.map((column) => transaction[column])),
      sql`ON CONFLICT (id) DO UPDATE SET ${raw(
        columns
          .slice(1)
          .map((column) => `${column} = excluded.${column}`)
          .join(', '),
      )}`,
    );
  }
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
