import { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes } from '../dialect';
import { dialectOf } from './1763700000000-foundation';

/**
 * tag_history: one row per address whose membership of an account's tag changed (`added` or
 * `removed`), written in the transaction of the change. It names the tag rather than pointing at
 * its row, so that it outlives the tag; `key_prefix` is the first 12 characters of the API key
 * that made the change (`cli` for the command line), never the key.
 *
 * The index serves GET /v2/tags/:tag/history in its order (newest first: at, then id,
 * descending) from the `after` cursor on; the `address` filter reads the same range.
 */
export class TagHistory1763700000060 implements MigrationInterface {
  name = 'TagHistory1763700000060';

  async up(runner: QueryRunner): Promise<void> {
    const t = columnTypes(dialectOf(runner));
    await runner.query(`CREATE TABLE tag_history (
      id ${t.serialKey},
      account_id ${t.bigint} NOT NULL REFERENCES accounts (id),
      tag ${t.text} NOT NULL,
      address ${t.text} NOT NULL,
      action ${t.text} NOT NULL CHECK (action IN ('added', 'removed')),
      key_prefix ${t.text} NOT NULL,
      at ${t.timestamp} NOT NULL
    )`);
    await runner.query(`CREATE INDEX tag_history_by_time ON tag_history (account_id, tag, at, id)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE tag_history');
  }
}
