import { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes } from '../dialect';
import { dialectOf } from './1763700000000-foundation';

/**
 * What GET /v2/transactions' paging needs beyond the data schema.
 *
 * - `settings`: server-side (key, value) text pairs that outlive a restart and are shared by every
 *   instance on the database. The first is the secret that signs the `after` cursors, so a cursor
 *   handed out before a restart, or by another instance, stays valid.
 * - transactions_by_chain_time: the `chain` filter alone in list order. transactions_by_chain
 *   (chain, token_address, block_time, id) serves chain + token_address, but for a chain alone its
 *   rows come grouped by token, so each page sorted every transaction of the chain (a cost growing
 *   with the chain; bench/README.md) or, on PostgreSQL, walked
 *   transactions_by_time past every other chain's rows. This index reads a page directly.
 */
export class TransactionPaging1763700000003 implements MigrationInterface {
  name = 'TransactionPaging1763700000003';

  async up(runner: QueryRunner): Promise<void> {
    const t = columnTypes(dialectOf(runner));
    await runner.query(`CREATE TABLE settings (
      key ${t.text} PRIMARY KEY,
      value ${t.text} NOT NULL
    )`);
    await runner.query('CREATE INDEX transactions_by_chain_time ON transactions (chain, block_time, id)');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX transactions_by_chain_time');
    await runner.query('DROP TABLE settings');
  }
}
