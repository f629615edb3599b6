import { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes } from '../dialect';
import { dialectOf } from './1763700000000-foundation';

/**
 * `api_keys.expires_at`: when a key stops being accepted, or NULL (never; every key made before
 * this column). A key is active while it is not revoked and not past its expiry.
 */
export class KeyExpiry1763700000230 implements MigrationInterface {
  name = 'KeyExpiry1763700000230';

  async up(runner: QueryRunner): Promise<void> {
    const t = columnTypes(dialectOf(runner));
    await runner.query(`ALTER TABLE api_keys ADD COLUMN expires_at ${t.timestamp}`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE api_keys DROP COLUMN expires_at');
  }
}
