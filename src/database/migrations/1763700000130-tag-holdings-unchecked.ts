import { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf } from './1763700000000-foundation';

/**
 * PostgreSQL: `tag_holdings` rows no longer check their tag with a foreign key. The check ran for
 * every row written, under the tag's lock: of the 23.5 ms that a 1,000-address chunk's 2,304 rows
 * took to insert at 1M, about 10 ms (bench/README.md, change 30). The rows are a kept aggregate:
 * they are written only under their tag's lock, by a writer that has just found the tag there
 * (`lockTag`, `lockTags`), and deleting a tag deletes them under the same lock (the aggregate's
 * `tagDeleted`, from `TagsRepository.deleteTag`), so no row can outlive its tag; `stats verify` compares the table
 * with its reference computation, which joins the memberships. SQLite keeps the key: dropping it
 * there means rebuilding the table, and its writers take turns, so the check costs no other
 * request any waiting.
 */
export class TagHoldingsUnchecked1763700000130 implements MigrationInterface {
  name = 'TagHoldingsUnchecked1763700000130';

  async up(runner: QueryRunner): Promise<void> {
    if (dialectOf(runner) !== 'postgres') return;
    await runner.query('ALTER TABLE tag_holdings DROP CONSTRAINT tag_holdings_tag_id_fkey');
  }

  async down(runner: QueryRunner): Promise<void> {
    if (dialectOf(runner) !== 'postgres') return;
    await runner.query(
      'DELETE FROM tag_holdings WHERE NOT EXISTS (SELECT 1 FROM tags t WHERE t.id = tag_holdings.tag_id)',
    );
    await runner.query(
      'ALTER TABLE tag_holdings ADD CONSTRAINT tag_holdings_tag_id_fkey FOREIGN KEY (tag_id) REFERENCES tags (id) ON DELETE CASCADE',
    );
  }
}
