import { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes } from '../dialect';
import { dialectOf } from './1763700000000-foundation';

/**
 * Revision counters that let address and tag stats be kept once computed and still be exact
 * (a per-process stats cache, since replaced by the kept aggregates of migration 1763700000030):
 *
 * - `tags.revision` goes up with every change to the tag's addresses, in the same transaction.
 * - `revisions` holds named counters shared by every instance on the database. `data` goes up with
 *   every committed import and whenever start-up seeding adds token deployments: the holdings,
 *   transactions, prices and deployments the stats are computed from change in no other way.
 */
export class StatsRevisions1763700000011 implements MigrationInterface {
  name = 'StatsRevisions1763700000011';

  async up(runner: QueryRunner): Promise<void> {
    const t = columnTypes(dialectOf(runner));
    await runner.query(`ALTER TABLE tags ADD COLUMN revision ${t.bigint} NOT NULL DEFAULT 0`);
    await runner.query(`CREATE TABLE revisions (
      name ${t.text} PRIMARY KEY,
      value ${t.bigint} NOT NULL
    )`);
    await runner.query(`INSERT INTO revisions (name, value) VALUES ('data', 0)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE revisions');
    await runner.query('ALTER TABLE tags DROP COLUMN revision');
  }
}
