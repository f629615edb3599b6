import { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf } from './1763700000000-foundation';

/**
 * `address_stats.version`: which write last changed the address's kept row, so that a reader that
 * remembers an address's version knows its transactions have not changed since (src/modules/stats/
 * reserved-set-counts.ts; bench/README.md, change 78). Every data write's round stamps the rows it
 * changes with the next value of a clock that never hands a value out twice: on PostgreSQL the
 * sequence `address_stats_clock`, on SQLite the one row of the table of that name (its writers take
 * turns). Its values start at 2: 1 is a row no data write has changed since this migration (the
 * rows it finds, and the empty rows a tag change creates to lock), 0 a row `stats verify --repair`
 * rewrote from the reference, which a reader never trusts (the column's default).
 */
export class AddressVersions1763700000190 implements MigrationInterface {
  name = 'AddressVersions1763700000190';

  async up(runner: QueryRunner): Promise<void> {
    if (dialectOf(runner) === 'postgres') {
      // The existing rows read as 1 without a rewrite of the table; rows inserted later get 0.
      await runner.query('ALTER TABLE address_stats ADD COLUMN version BIGINT NOT NULL DEFAULT 1');
      await runner.query('ALTER TABLE address_stats ALTER COLUMN version SET DEFAULT 0');
      await runner.query('CREATE SEQUENCE address_stats_clock START WITH 2');
    } else {
      await runner.query('ALTER TABLE address_stats ADD COLUMN version BIGINT NOT NULL DEFAULT 0');
      await runner.query('UPDATE address_stats SET version = 1');
      await runner.query(
        'CREATE TABLE address_stats_clock (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL)',
      );
      await runner.query('INSERT INTO address_stats_clock (id, value) VALUES (1, 1)');
    }
  }

  async down(runner: QueryRunner): Promise<void> {
    if (dialectOf(runner) === 'postgres') await runner.query('DROP SEQUENCE address_stats_clock');
    else await runner.query('DROP TABLE address_stats_clock');
    await runner.query('ALTER TABLE address_stats DROP COLUMN version');
  }
}
