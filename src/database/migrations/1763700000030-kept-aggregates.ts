import { performance } from 'node:perf_hooks';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes } from '../dialect';
import { dialectOf } from './1763700000000-foundation';

/**
 * The kept aggregates (src/modules/aggregates/), built from the data already there with the
 * reference SQL of the time, one set-based statement per table (a frozen copy below: the live
 * reference computations may change, and what this migration did must not); progress goes to stderr, since on a large
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
    const steps: [string, string][] = [
      ['address_stats', REFERENCE_ADDRESS_STATS],
      ['tag_stats', REFERENCE_TAG_STATS],
      ['tag_balances', referenceTagBalances(dialect === 'postgres' ? 'SUM' : 'bigsum')],
      ['token_holders', REFERENCE_TOKEN_HOLDERS],
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
      await runner.query(`INSERT INTO ${table} ${reference}`);
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

// The reference computations as this migration first ran them (frozen; see above).

const REFERENCE_ADDRESS_STATS = `SELECT address, SUM(h) AS holding_count, SUM(t) AS txn_count FROM (
    SELECT address, 1 AS h, 0 AS t FROM holdings WHERE balance <> '0'
    UNION ALL SELECT from_address AS address, 0 AS h, 1 AS t FROM transactions
    UNION ALL SELECT to_address AS address, 0 AS h, 1 AS t FROM transactions WHERE to_address <> from_address
  ) e GROUP BY address`;

const REFERENCE_TAG_STATS = `SELECT t.id AS tag_id,
    (SELECT COUNT(*) FROM address_tags m WHERE m.tag_id = t.id) AS address_count,
    (SELECT COUNT(*) FROM address_tags m JOIN holdings h ON h.address = m.address
      WHERE m.tag_id = t.id AND h.balance <> '0') AS holding_count,
    (SELECT COUNT(*) FROM address_tags m JOIN transactions x ON x.from_address = m.address WHERE m.tag_id = t.id)
    + (SELECT COUNT(*) FROM address_tags m JOIN transactions x ON x.to_address = m.address WHERE m.tag_id = t.id
        AND NOT EXISTS (SELECT 1 FROM address_tags s WHERE s.tag_id = t.id AND s.address = x.from_address)) AS txn_count
  FROM tags t`;

/** `sum`: PostgreSQL's SUM over numeric, or the `bigsum` aggregate chaintags registers on SQLite. */
function referenceTagBalances(sum: 'SUM' | 'bigsum'): string {
  return `SELECT m.tag_id, h.chain, h.token_address, ${sum}(h.balance) AS balance
    FROM address_tags m JOIN holdings h ON h.address = m.address
    WHERE h.balance <> '0'
    GROUP BY m.tag_id, h.chain, h.token_address`;
}

const REFERENCE_TOKEN_HOLDERS = `SELECT chain, token_address, COUNT(*) AS holders FROM holdings WHERE balance <> '0'
  GROUP BY chain, token_address`;
