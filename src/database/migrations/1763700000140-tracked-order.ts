import { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf } from './1763700000000-foundation';

/**
 * The order in which tracked addresses became visible, so that a chain's follower finds the newly
 * tracked ones by reading on from where it last looked, not by comparing every tracked address with
 * the followed ones each turn (35 ms a turn with 11,000 tracked addresses, and growing with them:
 * bench/README.md, change 35).
 *
 * `tracked_addresses.tracked_order`: on PostgreSQL the id of the transaction that inserted the row
 * (`pg_current_xact_id()`). Transactions commit out of the order of their ids, so a reader knows
 * that every row below its snapshot's `xmin` is final (each transaction below it has ended) and
 * moves its cursor no further than that. On SQLite, whose writers take turns, a counter
 * (`tracked_clock`) stamps each inserted row with the next number, which is commit order.
 * Rows inserted before this migration are 0.
 *
 * `followers.tracked_order`, `tracked_address`: the follower's cursor, the last (order, address)
 * before which every tracked address of the chain's shape is followed (or found not valid on it);
 * NULL: from the start. `tracked_cluster`: on PostgreSQL, the cluster whose transaction ids the
 * cursor is in (`system_identifier`), so that one restored into another cluster starts over.
 */
export class TrackedOrder1763700000140 implements MigrationInterface {
  name = 'TrackedOrder1763700000140';

  async up(runner: QueryRunner): Promise<void> {
    if (dialectOf(runner) === 'postgres') {
      // A constant default first, so that existing rows need no rewrite of the table.
      await runner.query(`ALTER TABLE tracked_addresses ADD COLUMN tracked_order xid8 NOT NULL DEFAULT '0'`);
      await runner.query(`ALTER TABLE tracked_addresses ALTER COLUMN tracked_order SET DEFAULT pg_current_xact_id()`);
    } else {
      await runner.query(`ALTER TABLE tracked_addresses ADD COLUMN tracked_order INTEGER NOT NULL DEFAULT 0`);
      await runner.query(`CREATE TABLE tracked_clock (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL)`);
      await runner.query(`INSERT INTO tracked_clock (id, value) VALUES (1, 0)`);
      await runner.query(`CREATE TRIGGER tracked_addresses_order AFTER INSERT ON tracked_addresses BEGIN
        UPDATE tracked_clock SET value = value + 1 WHERE id = 1;
        UPDATE tracked_addresses SET tracked_order = (SELECT value FROM tracked_clock WHERE id = 1)
          WHERE rowid = NEW.rowid;
      END`);
    }
    await runner.query(`CREATE INDEX tracked_addresses_by_order ON tracked_addresses (tracked_order, address)`);
    await runner.query(`ALTER TABLE followers ADD COLUMN tracked_order TEXT`);
    await runner.query(`ALTER TABLE followers ADD COLUMN tracked_address TEXT`);
    await runner.query(`ALTER TABLE followers ADD COLUMN tracked_cluster TEXT`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE followers DROP COLUMN tracked_cluster`);
    await runner.query(`ALTER TABLE followers DROP COLUMN tracked_address`);
    await runner.query(`ALTER TABLE followers DROP COLUMN tracked_order`);
    await runner.query(`DROP INDEX tracked_addresses_by_order`);
    if (dialectOf(runner) !== 'postgres') {
      await runner.query(`DROP TRIGGER tracked_addresses_order`);
      await runner.query(`DROP TABLE tracked_clock`);
    }
    await runner.query(`ALTER TABLE tracked_addresses DROP COLUMN tracked_order`);
  }
}
