import { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes } from '../dialect';
import { dialectOf } from './1763700000000-foundation';

/**
 * `webhooks.tokens`: the token ids a webhook is told about (a JSON array, as `chains` is), or NULL
 * for every token (every webhook made before this column).
 */
export class WebhookTokens1763700000290 implements MigrationInterface {
  name = 'WebhookTokens1763700000290';

  async up(runner: QueryRunner): Promise<void> {
    const t = columnTypes(dialectOf(runner));
    await runner.query(`ALTER TABLE webhooks ADD COLUMN tokens ${t.text}`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE webhooks DROP COLUMN tokens');
  }
}
