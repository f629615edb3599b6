import { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes } from '../dialect';
import { dialectOf } from './1763700000000-foundation';

/**
 * Shared chain data: holdings, transactions and token prices.
 *
 * Index reasoning (every filter of GET /v2/token-holdings and GET /v2/transactions):
 * - holdings' key (chain, token_address, address) is the list order and serves the chain and
 *   chain+token filters and the per-token holder counts as range scans;
 *   holdings_by_address serves the address filter, the tag filter (joined per tagged address) and
 *   the address and tag stats.
 * - transactions_by_time (block_time, id) is the default newest-first order: keyset pages read it
 *   backwards from the cursor without sorting. The address filter (sender OR recipient) reads
 *   transactions_by_sender and transactions_by_recipient, each already in (block_time, id) order,
 *   and merges them; transactions_by_chain serves the chain+token filter in the same order (the
 *   chain filter alone gets its own index in a later migration).
 * - prices' key (token_id, at) finds a token's latest price with one backward index step.
 * Balances and values are numeric(78,0) on PostgreSQL and decimal text on SQLite (see dialect.ts).
 */
export class Data1763700000002 implements MigrationInterface {
  name = 'Data1763700000002';

  async up(runner: QueryRunner): Promise<void> {
    const t = columnTypes(dialectOf(runner));
    await runner.query(`CREATE TABLE holdings (
      chain ${t.text} NOT NULL,
      token_address ${t.text} NOT NULL,
      address ${t.text} NOT NULL,
      balance ${t.bigDecimal} NOT NULL,
      updated_at ${t.timestamp} NOT NULL,
      PRIMARY KEY (chain, token_address, address),
      FOREIGN KEY (chain, token_address) REFERENCES token_deployments (chain, address)
    )`);
    await runner.query(`CREATE INDEX holdings_by_address ON holdings (address, chain, token_address)`);
    await runner.query(`CREATE TABLE transactions (
      id ${t.text} PRIMARY KEY,
      chain ${t.text} NOT NULL REFERENCES chains (chain),
      token_address ${t.text} NOT NULL,
      from_address ${t.text} NOT NULL,
      to_address ${t.text} NOT NULL,
      value ${t.bigDecimal} NOT NULL,
      tx_hash ${t.text} NOT NULL,
      block_number ${t.bigint} NOT NULL,
      block_hash ${t.text} NOT NULL,
      block_time ${t.timestamp} NOT NULL
    )`);
    await runner.query(`CREATE INDEX transactions_by_time ON transactions (block_time, id)`);
    await runner.query(`CREATE INDEX transactions_by_sender ON transactions (from_address, block_time, id)`);
    await runner.query(`CREATE INDEX transactions_by_recipient ON transactions (to_address, block_time, id)`);
    await runner.query(`CREATE INDEX transactions_by_chain ON transactions (chain, token_address, block_time, id)`);
    await runner.query(`CREATE TABLE prices (
      token_id ${t.text} NOT NULL REFERENCES tokens (id),
      at ${t.timestamp} NOT NULL,
      usd ${t.decimal} NOT NULL,
      PRIMARY KEY (token_id, at)
    )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const table of ['prices', 'transactions', 'holdings']) await runner.query(`DROP TABLE ${table}`);
  }
}
