import { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes } from '../dialect';
import { dialectOf } from './1763700000000-foundation';

/**
 * What the chain followers keep (src/modules/follow):
 * - `followers`: one row per followed chain: the position (the last block whose data is committed,
 *   and its hash), what `GET /v2/sync` reports, and the lease that makes one process at a time the
 *   chain's writer (`holder` until `lease_until`).
 * - `follower_blocks`: the hashes of the last blocks committed, to find where a reorganisation
 *   forked off; older ones are trimmed.
 * - `follower_addresses`: the addresses each follower follows block by block.
 * - `follower_backfills`: the history still to read for addresses tracked after their activity:
 *   token transfers from `token_next`, native ones from `native_next`, both up to `through_block`.
 *
 * `transactions_by_chain_block` lets a reorganisation find and delete a chain's transfers above
 * the block it forked at.
 */
export class Followers1763700000040 implements MigrationInterface {
  name = 'Followers1763700000040';

  async up(runner: QueryRunner): Promise<void> {
    const t = columnTypes(dialectOf(runner));
    await runner.query(`CREATE TABLE followers (
      chain ${t.text} PRIMARY KEY REFERENCES chains (chain),
      indexed_block ${t.bigint},
      indexed_hash ${t.text},
      head_block ${t.bigint},
      status ${t.text} NOT NULL,
      error ${t.text},
      reported_at ${t.timestamp},
      holder ${t.text},
      lease_until ${t.timestamp}
    )`);
    await runner.query(`CREATE TABLE follower_blocks (
      chain ${t.text} NOT NULL,
      number ${t.bigint} NOT NULL,
      hash ${t.text} NOT NULL,
      PRIMARY KEY (chain, number)
    )`);
    await runner.query(`CREATE TABLE follower_addresses (
      chain ${t.text} NOT NULL,
      address ${t.text} NOT NULL,
      PRIMARY KEY (chain, address)
    )`);
    await runner.query(`CREATE TABLE follower_backfills (
      id ${t.serialKey},
      chain ${t.text} NOT NULL,
      through_block ${t.bigint} NOT NULL,
      token_next ${t.bigint} NOT NULL,
      native_next ${t.bigint} NOT NULL,
      addresses ${t.text} NOT NULL,
      created_at ${t.timestamp} NOT NULL
    )`);
    await runner.query(`CREATE INDEX follower_backfills_by_chain ON follower_backfills (chain, id)`);
    await runner.query(`CREATE INDEX transactions_by_chain_block ON transactions (chain, block_number)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX transactions_by_chain_block');
    for (const table of ['follower_backfills', 'follower_addresses', 'follower_blocks', 'followers']) {
      await runner.query(`DROP TABLE ${table}`);
    }
  }
}
