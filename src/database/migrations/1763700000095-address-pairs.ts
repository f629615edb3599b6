import { performance } from 'node:perf_hooks';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes } from '../dialect';
import { dialectOf } from './1763700000000-foundation';

/**
 * Two kept tables (src/modules/aggregates/tables/address-pairs.ts) that let a tag change count "a
 * transaction between two members counts once" without reading the addresses' transactions:
 *
 * - `paired_addresses`: the addresses whose transactions are counted by counterparty; here every
 *   address that is a member of a tag.
 * - `address_pairs`: per pair of addresses (`address_a` < `address_b`, binary order) with a paired
 *   end, the transactions between them, either direction. `address_pairs_by_b` finds an address's
 *   pairs where it is the second end.
 *
 * Built from the data already there (frozen copies of the reference SQL below); progress goes to
 * stderr on a database with data.
 */
export class AddressPairs1763700000095 implements MigrationInterface {
  name = 'AddressPairs1763700000095';

  async up(runner: QueryRunner): Promise<void> {
    const t = columnTypes(dialectOf(runner));
    await runner.query(`CREATE TABLE paired_addresses (address ${t.text} PRIMARY KEY)`);
    await runner.query(`CREATE TABLE address_pairs (
      address_a ${t.text} NOT NULL,
      address_b ${t.text} NOT NULL,
      txn_count ${t.bigint} NOT NULL,
      PRIMARY KEY (address_a, address_b)
    )`);
    await runner.query(`CREATE INDEX address_pairs_by_b ON address_pairs (address_b, address_a)`);
    const found = (await runner.query('SELECT 1 FROM address_tags LIMIT 1')) as unknown[];
    const progress = (line: string) => {
      if (found.length > 0) process.stderr.write(`migration ${this.name}: ${line}\n`);
    };
    for (const [table, reference] of [
      ['paired_addresses', PAIRED_ADDRESSES],
      ['address_pairs', ADDRESS_PAIRS],
    ] as const) {
      progress(`building ${table}…`);
      const started = performance.now();
      await runner.query(`INSERT INTO ${table} ${reference}`);
      progress(`${table} built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE address_pairs');
    await runner.query('DROP TABLE paired_addresses');
  }
}

// The reference computations as this migration first ran them (frozen).

const PAIRED_ADDRESSES = `SELECT DISTINCT address FROM address_tags`;

const ADDRESS_PAIRS = `SELECT address_a, address_b, COUNT(*) AS txn_count FROM (
    SELECT CASE WHEN from_address < to_address THEN from_address ELSE to_address END AS address_a,
      CASE WHEN from_address < to_address THEN to_address ELSE from_address END AS address_b
    FROM transactions WHERE from_address <> to_address
  ) p
  WHERE address_a IN (SELECT address FROM paired_addresses) OR address_b IN (SELECT address FROM paired_addresses)
  GROUP BY address_a, address_b`;
