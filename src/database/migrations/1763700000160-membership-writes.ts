import { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf } from './1763700000000-foundation';

/**
 * Less to write per membership, for `POST /v2/tags/:tag` (bench/README.md, change 49). Inserting
 * 1,000 addresses' tracked rows, memberships and history entries took PostgreSQL 7.7, 14.4 and
 * 7.4 ms before, 3.1, 3.9 and 3.8 ms after (on the bench's 1M database, in one transaction each).
 *
 * - `tracked_addresses_by_time` goes: since migration 1763700000150 the reserved tag's addresses
 *   are read from `tracked_addresses_untagged`, and nothing reads every tracked address by time.
 * - `address_tags_by_address` (account_id, address) and `address_tags_by_member` (address,
 *   tag_id) become one index (address, account_id, tag_id): an address's tags in one account (the
 *   cap's count, the tracked rows' checks) and in every account (a data write's tags) alike.
 * - PostgreSQL: the foreign keys of `address_tags` (to `tags` and to `tracked_addresses`), of
 *   `tag_history` and of `tracked_addresses` (to `accounts`) go; each checked every row written,
 *   3.6 ms per 1,000 rows. What they guarded is held by the writers' locks, as for `tag_holdings`
 *   (migration 1763700000130): a membership is written only while its tracked row is locked for
 *   update (inserted first if need be) and its tag's row is locked (key-share by a POST, as the
 *   key's check did; the tag's aggregates row by an import), a tracked row is deleted only when no
 *   membership names it, and a tag only after its memberships; accounts are never deleted. `stats
 *   verify` finds a membership whose tracked row is missing (the `tagged` flag's reference). SQLite
 *   keeps its keys: dropping one there means rebuilding the table, and its writers take turns.
 */
export class MembershipWrites1763700000160 implements MigrationInterface {
  name = 'MembershipWrites1763700000160';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX tracked_addresses_by_time');
    await runner.query('DROP INDEX address_tags_by_address');
    await runner.query('DROP INDEX address_tags_by_member');
    await runner.query('CREATE INDEX address_tags_by_member ON address_tags (address, account_id, tag_id)');
    if (dialectOf(runner) !== 'postgres') return;
    await runner.query('ALTER TABLE address_tags DROP CONSTRAINT address_tags_tag_id_fkey');
    await runner.query('ALTER TABLE address_tags DROP CONSTRAINT address_tags_account_id_address_fkey');
    await runner.query('ALTER TABLE tag_history DROP CONSTRAINT tag_history_account_id_fkey');
    await runner.query('ALTER TABLE tracked_addresses DROP CONSTRAINT tracked_addresses_account_id_fkey');
  }

  async down(runner: QueryRunner): Promise<void> {
    if (dialectOf(runner) === 'postgres') {
      await runner.query(
        'ALTER TABLE tracked_addresses ADD CONSTRAINT tracked_addresses_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id)',
      );
      await runner.query(
        'ALTER TABLE tag_history ADD CONSTRAINT tag_history_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id)',
      );
      await runner.query(
        `ALTER TABLE address_tags ADD CONSTRAINT address_tags_account_id_address_fkey
         FOREIGN KEY (account_id, address) REFERENCES tracked_addresses (account_id, address)`,
      );
      await runner.query(
        'ALTER TABLE address_tags ADD CONSTRAINT address_tags_tag_id_fkey FOREIGN KEY (tag_id) REFERENCES tags (id) ON DELETE CASCADE',
      );
    }
    await runner.query('DROP INDEX address_tags_by_member');
    await runner.query('CREATE INDEX address_tags_by_member ON address_tags (address, tag_id)');
    await runner.query('CREATE INDEX address_tags_by_address ON address_tags (account_id, address)');
    await runner.query('CREATE INDEX tracked_addresses_by_time ON tracked_addresses (account_id, created_at, address)');
  }
}
