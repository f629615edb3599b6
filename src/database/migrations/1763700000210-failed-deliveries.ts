import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `webhook_events_failed`: a webhook's failed deliveries in log order, for `POST
 * /v2/webhooks/:id/redeliver` with `since` and `GET …/deliveries?status=failed`, which would
 * otherwise read the webhook's whole delivery log (30 days of it) to find the few that failed. Only
 * failed rows are in it, so the dispatcher's writes of delivered ones do not touch it.
 */
export class FailedDeliveries1763700000210 implements MigrationInterface {
  name = 'FailedDeliveries1763700000210';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE INDEX webhook_events_failed ON webhook_events (webhook_id, seq) WHERE status = 'failed'`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX webhook_events_failed');
  }
}
