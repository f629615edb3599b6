import { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes } from '../dialect';
import { dialectOf } from './1763700000000-foundation';

/**
 * `follower_backfills.address_count`: how many addresses a backfill reads the history of, so that
 * `GET /v2/sync` and `/metrics` can say how many are left without reading every backfill's list of
 * addresses. Backfills recorded before it are counted from that list (a JSON array of addresses,
 * none of which has a comma).
 */
export class BackfillAddressCount1763700000260 implements MigrationInterface {
  name = 'BackfillAddressCount1763700000260';

  async up(runner: QueryRunner): Promise<void> {
    const t = columnTypes(dialectOf(runner));
    await runner.query(`ALTER TABLE follower_backfills ADD COLUMN address_count ${t.integer} NOT NULL DEFAULT 0`);
    await runner.query(
      `UPDATE follower_backfills
       SET address_count = CASE WHEN addresses = '[]' THEN 0
                                ELSE LENGTH(addresses) - LENGTH(REPLACE(addresses, ',', '')) + 1 END`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE follower_backfills DROP COLUMN address_count');
  }
}
