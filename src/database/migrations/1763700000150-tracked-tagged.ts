import { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes } from '../dialect';
import { dialectOf } from './1763700000000-foundation';

/**
 * `tracked_addresses.tagged`: 1 while the address carries a tag of its account, 0 while it is
 * tracked untagged (the reserved tag `0`). Kept by every change of a membership (the kept
 * aggregate `trackedTagged`, src/modules/aggregates/tables/tracked-tagged.ts), so that the reserved
 * tag's addresses are read from a partial index in proportion to what they are, rather than by
 * comparing every tracked address of the account with its memberships on every request (104-225 ms
 * for `GET /v2/tags/0` with 33,000 tracked addresses, all of them tagged: bench/README.md, change
 * 39).
 *
 * `tracked_addresses_untagged` (account_id, created_at, address) WHERE tagged = 0: the reserved
 * tag's set, in the order GET /v2/tags/0/addresses pages it. An address that joins or leaves its
 * last tag moves in or out of it; one gaining or losing a second tag writes nothing.
 */
export class TrackedTagged1763700000150 implements MigrationInterface {
  name = 'TrackedTagged1763700000150';

  async up(runner: QueryRunner): Promise<void> {
    const t = columnTypes(dialectOf(runner));
    // A constant default: existing rows need no rewrite of the table, only the tagged ones below.
    await runner.query(`ALTER TABLE tracked_addresses ADD COLUMN tagged ${t.integer} NOT NULL DEFAULT 0`);
    await runner.query(`UPDATE tracked_addresses SET tagged = 1 WHERE EXISTS (SELECT 1 FROM address_tags a
      WHERE a.account_id = tracked_addresses.account_id AND a.address = tracked_addresses.address)`);
    await runner.query(
      `CREATE INDEX tracked_addresses_untagged ON tracked_addresses (account_id, created_at, address) WHERE tagged = 0`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX tracked_addresses_untagged`);
    await runner.query(`ALTER TABLE tracked_addresses DROP COLUMN tagged`);
  }
}
