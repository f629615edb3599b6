import { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes } from '../dialect';
import { dialectOf } from './1763700000000-foundation';

/**
 * Tags belong to an account. `tracked_addresses` holds every address an account has registered
 * (through any tag, including the reserved `0`); an address stays tracked when its tags are removed.
 * The tracked row is also what the 50-tag cap locks on PostgreSQL (SELECT … FOR UPDATE).
 *
 * Indexes: address_tags' key (tag_id, address) answers "is it tagged" and deletes;
 * (tag_id, created_at, address) serves GET /v2/tags/:tag/addresses in its order without sorting;
 * (account_id, address) serves an address's tags, the cap count and the `tag` filters' joins.
 */
export class Tags1763700000001 implements MigrationInterface {
  name = 'Tags1763700000001';

  async up(runner: QueryRunner): Promise<void> {
    const t = columnTypes(dialectOf(runner));
    await runner.query(`CREATE TABLE tracked_addresses (
      account_id ${t.bigint} NOT NULL REFERENCES accounts (id),
      address ${t.text} NOT NULL,
      created_at ${t.timestamp} NOT NULL,
      PRIMARY KEY (account_id, address)
    )`);
    await runner.query(`CREATE INDEX tracked_addresses_by_time ON tracked_addresses (account_id, created_at, address)`);
    await runner.query(`CREATE TABLE tags (
      id ${t.serialKey},
      account_id ${t.bigint} NOT NULL REFERENCES accounts (id),
      name ${t.text} NOT NULL,
      created_at ${t.timestamp} NOT NULL,
      updated_at ${t.timestamp} NOT NULL,
      UNIQUE (account_id, name)
    )`);
    await runner.query(`CREATE TABLE address_tags (
      tag_id ${t.bigint} NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
      account_id ${t.bigint} NOT NULL,
      address ${t.text} NOT NULL,
      created_at ${t.timestamp} NOT NULL,
      PRIMARY KEY (tag_id, address),
      FOREIGN KEY (account_id, address) REFERENCES tracked_addresses (account_id, address)
    )`);
    await runner.query(`CREATE INDEX address_tags_by_time ON address_tags (tag_id, created_at, address)`);
    await runner.query(`CREATE INDEX address_tags_by_address ON address_tags (account_id, address)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const table of ['address_tags', 'tags', 'tracked_addresses']) await runner.query(`DROP TABLE ${table}`);
  }
}
