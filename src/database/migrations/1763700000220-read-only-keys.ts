import { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes } from '../dialect';
import { dialectOf } from './1763700000000-foundation';

/**
 * `api_keys.access`: what a key may do, `full` (every route; every key made before this column)
 * or `read` (GET and HEAD only: a dashboard's or an analyst's key that can change nothing).
 */
export class ReadOnlyKeys1763700000220 implements MigrationInterface {
  name = 'ReadOnlyKeys1763700000220';

  async up(runner: QueryRunner): Promise<void> {
    const t = columnTypes(dialectOf(runner));
    await runner.query(
      `ALTER TABLE api_keys ADD COLUMN access ${t.text} NOT NULL DEFAULT 'full' CHECK (access IN ('full', 'read'))`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE api_keys DROP COLUMN access');
  }
}
