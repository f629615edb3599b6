import { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes } from '../dialect';
import { dialectOf } from './1763700000000-foundation';

/**
 * `webhooks.min_value_usd`: the least a transfer must be worth in USD (at its token's newest price
 * when the follower records it) for the webhook to be told of it, or NULL (every transfer: every
 * webhook made before this column).
 */
export class WebhookMinimumValue1763700000270 implements MigrationInterface {
  name = 'WebhookMinimumValue1763700000270';

  async up(runner: QueryRunner): Promise<void> {
    const t = columnTypes(dialectOf(runner));
    await runner.query(`ALTER TABLE webhooks ADD COLUMN min_value_usd ${t.decimal}`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE webhooks DROP COLUMN min_value_usd');
  }
}
