import { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes } from '../dialect';
import { dialectOf } from './1763700000000-foundation';

/**
 * Webhooks (contract §14, src/modules/webhooks).
 *
 * - `webhooks`: an account's endpoints, with the signing secret (kept as it is: signing needs it)
 *   and `last_success_at`, which the disable rule reads. `chains` and `events` are JSON arrays.
 * - `webhook_tags`: the tag names a webhook listens to (names, not tag ids, so that a tag deleted
 *   and created again is listened to again).
 * - `webhook_events`: the outbox and the delivery log in one: a row is written in the transaction
 *   that records (or undoes) the transfer it announces, then the dispatcher delivers it and keeps
 *   its outcome on the row. `id` is the event's `webhook-id`; `seq` orders the log. `undone` marks
 *   a `transaction.confirmed` whose transfer a reorganisation removed (its `transaction.removed`
 *   is written then).
 * - `webhook_dispatcher`: the lease row that makes one process at a time deliver.
 */
export class Webhooks1763700000080 implements MigrationInterface {
  name = 'Webhooks1763700000080';

  async up(runner: QueryRunner): Promise<void> {
    const t = columnTypes(dialectOf(runner));
    await runner.query(`CREATE TABLE webhooks (
      id ${t.text} PRIMARY KEY,
      account_id ${t.bigint} NOT NULL REFERENCES accounts (id),
      url ${t.text} NOT NULL,
      secret ${t.text} NOT NULL,
      chains ${t.text},
      events ${t.text} NOT NULL,
      description ${t.text},
      status ${t.text} NOT NULL,
      last_success_at ${t.timestamp},
      created_at ${t.timestamp} NOT NULL,
      updated_at ${t.timestamp} NOT NULL
    )`);
    await runner.query(`CREATE INDEX webhooks_by_account ON webhooks (account_id, created_at, id)`);
    await runner.query(`CREATE TABLE webhook_tags (
      webhook_id ${t.text} NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
      tag ${t.text} NOT NULL,
      PRIMARY KEY (webhook_id, tag)
    )`);
    await runner.query(`CREATE TABLE webhook_events (
      seq ${t.serialKey},
      id ${t.text} NOT NULL UNIQUE,
      webhook_id ${t.text} NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
      event_type ${t.text} NOT NULL,
      chain ${t.text},
      block_number ${t.bigint},
      transfer_id ${t.text},
      body ${t.text} NOT NULL,
      status ${t.text} NOT NULL,
      attempts ${t.integer} NOT NULL DEFAULT 0,
      next_attempt_at ${t.timestamp},
      last_attempt_at ${t.timestamp},
      response_status ${t.integer},
      error ${t.text},
      undone ${t.integer} NOT NULL DEFAULT 0,
      created_at ${t.timestamp} NOT NULL
    )`);
    await runner.query(`CREATE INDEX webhook_events_due ON webhook_events (next_attempt_at) WHERE status = 'pending'`);
    await runner.query(`CREATE INDEX webhook_events_log ON webhook_events (webhook_id, seq)`);
    await runner.query(
      `CREATE INDEX webhook_events_announced ON webhook_events (chain, block_number) WHERE event_type = 'transaction.confirmed' AND undone = 0`,
    );
    await runner.query(`CREATE TABLE webhook_dispatcher (
      id ${t.integer} PRIMARY KEY CHECK (id = 1),
      holder ${t.text},
      lease_until ${t.timestamp}
    )`);
    await runner.query(`INSERT INTO webhook_dispatcher (id) VALUES (1)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const table of ['webhook_dispatcher', 'webhook_events', 'webhook_tags', 'webhooks']) {
      await runner.query(`DROP TABLE ${table}`);
    }
  }
}
