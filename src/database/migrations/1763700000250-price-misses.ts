import { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes } from '../dialect';
import { dialectOf } from './1763700000000-foundation';

/**
 * `price_misses`: when the price source last answered nothing for a token (src/modules/prices). The
 * poller asks about such a token again only a day later; kept in the database, so a restart, or
 * another process taking the polls over, does not ask about every unlisted token at once again.
 * A token's row goes when the source prices it.
 */
export class PriceMisses1763700000250 implements MigrationInterface {
  name = 'PriceMisses1763700000250';

  async up(runner: QueryRunner): Promise<void> {
    const t = columnTypes(dialectOf(runner));
    await runner.query(`CREATE TABLE price_misses (
      token_id ${t.text} PRIMARY KEY REFERENCES tokens (id) ON DELETE CASCADE,
      missed_at ${t.timestamp} NOT NULL
    )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE price_misses');
  }
}
