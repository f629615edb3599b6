import { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes } from '../dialect';
import { dialectOf } from './1763700000000-foundation';

/**
 * `webhooks.idempotency_key` and `webhooks.request_fingerprint`: the `Idempotency-Key` a webhook was
 * created with, if any, and the SHA-256 of the request it came with (src/modules/webhooks/
 * idempotency.ts), so that a client retrying a creation whose answer it lost gets the webhook it
 * created instead of a second one. Unique per account among the webhooks that have a key.
 */
export class WebhookIdempotencyKeys1763700000200 implements MigrationInterface {
  name = 'WebhookIdempotencyKeys1763700000200';

  async up(runner: QueryRunner): Promise<void> {
    const t = columnTypes(dialectOf(runner));
    await runner.query(`ALTER TABLE webhooks ADD COLUMN idempotency_key ${t.text}`);
    await runner.query(`ALTER TABLE webhooks ADD COLUMN request_fingerprint ${t.text}`);
    await runner.query(
      `CREATE UNIQUE INDEX webhooks_by_idempotency_key ON webhooks (account_id, idempotency_key)
       WHERE idempotency_key IS NOT NULL`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX webhooks_by_idempotency_key');
    await runner.query('ALTER TABLE webhooks DROP COLUMN request_fingerprint');
    await runner.query('ALTER TABLE webhooks DROP COLUMN idempotency_key');
  }
}
