import { performance } from 'node:perf_hooks';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { referenceAddressStats, referenceTagBalances, referenceTagStats, referenceTokenHolders } from '../aggregates';
import { columnTypes } from '../dialect';
import { render, SqlFragment } from '../sql';
import { dialectOf } from './1763700000000-foundation';

/**
 * The kept aggregates (src/database/aggregates.ts), built from the data already there with the
 * reference SQL, one set-based statement per table; progress goes to stderr, since on a large
 * database this takes a while. The `data` revision goes: nothing is cached per data revision any
 * more, and one row every write updated serialised the writers.
 *
 * address_tags_by_member lets a write find the tags of the addresses it changed.
 */
export class KeptAggregates1763700000030 implements MigrationInterface {
  name = 'KeptAggregates1763700000030';

  async up(runner: QueryRunner): Promise<void> {
    const dialect = dialectOf(runner);
    const t = columnTypes(dialect);
    await runner.query(`CREATE INDEX address_tags_by_member ON address_tags (address, tag_id)`);
    await runner.query(`CREATE TABLE address_stats (
      address ${t.text} PRIMARY KEY,
      holding_count ${t.bigint} NOT NULL,
      txn_count ${t.bigint} NOT NULL
    )`);
    await runner.query(`CREATE TABLE tag_stats (
      tag_id ${t.bigint} PRIMARY KEY REFERENCES tags (id) ON DELETE CASCADE,
      address_count ${t.bigint} NOT NULL,
      holding_count ${t.bigint} NOT NULL,
      txn_count ${t.bigint} NOT NULL
    )`);
    // Unbounded on PostgreSQL: a sum of many 78-digit balances can be longer than any one of them.
    await runner.query(`CREATE TABLE tag_balances (
      tag_id ${t.bigint} NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
      chain ${t.text} NOT NULL,
      token_address ${t.text} NOT NULL,
      balance ${dialect === 'postgres' ? 'numeric' : t.bigDecimal} NOT NULL,
      PRIMARY KEY (tag_id, chain, token_address)
    )`);
    await runner.query(`CREATE TABLE token_holders (
      chain ${t.text} NOT NULL,
      token_address ${t.text} NOT NULL,
      holders ${t.bigint} NOT NULL,
      PRIMARY KEY (chain, token_address)
    )`);
    const db = { dialect };
    const steps: [string, SqlFragment][] = [
      ['address_stats', referenceAddressStats()],
      ['tag_stats', referenceTagStats()],
      ['tag_balances', referenceTagBalances(db)],
      ['token_holders', referenceTokenHolders()],
    ];
    const found = (await runner.query(
      'SELECT 1 FROM holdings UNION ALL SELECT 1 FROM transactions LIMIT 1',
    )) as unknown[];
    const hasData = found.length > 0;
    const progress = (line: string) => {
      if (hasData) process.stderr.write(`migration ${this.name}: ${line}\n`);
    };
    for (const [table, reference] of steps) {
      progress(`building ${table}…`);
      const started = performance.now();
      const { text, params } = render(reference, dialect);
      await runner.query(`INSERT INTO ${table} ${text}`, params);
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      progress(`${table} built in ${seconds} s`);
    }
    await runner.query(`DELETE FROM revisions WHERE name = 'data'`);
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const table of ['token_holders', 'tag_balances', 'tag_stats', 'address_stats']) {
      await runner.query(`DROP TABLE ${table}`);
    }
    await runner.query('DROP INDEX address_tags_by_member');
    await runner.query(`INSERT INTO revisions (name, value) VALUES ('data', 0)`);
  }
}
