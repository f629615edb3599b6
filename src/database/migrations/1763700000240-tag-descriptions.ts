import { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes } from '../dialect';
import { dialectOf } from './1763700000000-foundation';

/** `tags.description`: what the account says a tag means, or NULL (every tag made before this column). */
export class TagDescriptions1763700000240 implements MigrationInterface {
  name = 'TagDescriptions1763700000240';

  async up(runner: QueryRunner): Promise<void> {
    const t = columnTypes(dialectOf(runner));
    await runner.query(`ALTER TABLE tags ADD COLUMN description ${t.text}`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE tags DROP COLUMN description');
  }
}
