import { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes } from '../dialect';
import { dialectOf } from './1763700000000-foundation';

/**
 * `api_keys.last_used_at`: when the key last authenticated a request, to the hour (it is stamped at
 * most once an hour), so that `keys list` shows which keys are still in use before one is revoked.
 * NULL: not used since this column came.
 */
export class KeyLastUsed1763700000280 implements MigrationInterface {
  name = 'KeyLastUsed1763700000280';

  async up(runner: QueryRunner): Promise<void> {
    const t = columnTypes(dialectOf(runner));
    await runner.query(`ALTER TABLE api_keys ADD COLUMN last_used_at ${t.timestamp}`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE api_keys DROP COLUMN last_used_at');
  }
}
