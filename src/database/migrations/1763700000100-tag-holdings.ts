import { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes } from '../dialect';
import { dialectOf } from './1763700000000-foundation';

/**
 * `tag_holdings`: a kept aggregate (src/modules/aggregates/tables/tag-holdings.ts), each tag's
 * members' holdings above zero in the list order of `GET /v2/token-holdings`, so that a page of a
 * tag's holdings reads its own rows only. Filled from the data already there, with the reference
 * computation as this migration first ran it (frozen, like migration 030's).
 */
export class TagHoldings1763700000100 implements MigrationInterface {
  name = 'TagHoldings1763700000100';

  async up(runner: QueryRunner): Promise<void> {
    const t = columnTypes(dialectOf(runner));
    await runner.query(`CREATE TABLE tag_holdings (
      tag_id ${t.bigint} NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
      chain ${t.text} NOT NULL,
      token_address ${t.text} NOT NULL,
      address ${t.text} NOT NULL,
      PRIMARY KEY (tag_id, chain, token_address, address)
    )`);
    await runner.query(`INSERT INTO tag_holdings (tag_id, chain, token_address, address)
      SELECT m.tag_id, h.chain, h.token_address, h.address
      FROM address_tags m JOIN holdings h ON h.address = m.address WHERE h.balance <> '0'`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE tag_holdings');
  }
}
