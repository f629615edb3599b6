import { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes } from '../dialect';
import { dialectOf } from './1763700000000-foundation';

/**
 * The chains table as the start-up seeding keeps it in step with the chain registry
 * (src/core/chains/chain-registry.ts, src/database/reference-data.service.ts):
 *
 * - `display_source` says whose display data (name, icon_url, explorers) a row holds: `registry`
 *   (the seeding corrects it on every start) or `import` (an NDJSON `chain` line set it, and the
 *   seeding leaves it alone). Rows that exist when this migration runs get NULL, as nothing
 *   recorded where their display data came from; the next start settles them.
 * - `chains_position` makes each display position unique, so the order `GET /v2/chains` lists the
 *   chains in is never left to chance.
 * - `native_decimals` goes: a chain's native coin is its token deployment with address `0`, whose
 *   `decimals` is what valuation reads; the column repeated that number and nothing read it.
 */
export class ChainRegistry1763700000021 implements MigrationInterface {
  name = 'ChainRegistry1763700000021';

  async up(runner: QueryRunner): Promise<void> {
    const t = columnTypes(dialectOf(runner));
    await runner.query(`ALTER TABLE chains ADD COLUMN display_source ${t.text}`);
    await runner.query('CREATE UNIQUE INDEX chains_position ON chains (position)');
    await runner.query('ALTER TABLE chains DROP COLUMN native_decimals');
  }

  async down(runner: QueryRunner): Promise<void> {
    const t = columnTypes(dialectOf(runner));
    await runner.query(`ALTER TABLE chains ADD COLUMN native_decimals ${t.integer} NOT NULL DEFAULT 0`);
    await runner.query(`UPDATE chains SET native_decimals = COALESCE(
      (SELECT decimals FROM token_deployments WHERE token_deployments.chain = chains.chain AND address = '0'), 0)`);
    await runner.query('DROP INDEX chains_position');
    await runner.query('ALTER TABLE chains DROP COLUMN display_source');
  }
}
