import { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf } from './1763700000000-foundation';

/**
 * PostgreSQL: address_stats pages keep half their space free. A data write updates the row of
 * every address it touches, once per round (src/modules/aggregates/), and with full pages each
 * update put the new row version on another page and added an index entry for it: 669,882 updates
 * in the bench's 1M import, 17 of them in place. With room left on the page, an update that
 * changes no indexed column stays on it without touching the index (a HOT update): 374,128 of the
 * same 669,882, and the import 9-16% faster (bench/README.md, change 17). Pages written before
 * this migration keep their fill until `VACUUM FULL address_stats` rewrites them. SQLite has no
 * such setting.
 */
export class AddressStatsFillfactor1763700000050 implements MigrationInterface {
  name = 'AddressStatsFillfactor1763700000050';

  async up(runner: QueryRunner): Promise<void> {
    if (dialectOf(runner) !== 'postgres') return;
    await runner.query('ALTER TABLE address_stats SET (fillfactor = 50)');
  }

  async down(runner: QueryRunner): Promise<void> {
    if (dialectOf(runner) !== 'postgres') return;
    await runner.query('ALTER TABLE address_stats RESET (fillfactor)');
  }
}
