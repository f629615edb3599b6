import { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes } from '../dialect';
import { dialectOf } from './1763700000000-foundation';

/**
 * Kept counts between busy addresses (the kept aggregate `addressPairs`,
 * src/modules/aggregates/tables/address-pairs.ts): `paired_addresses` names the addresses whose
 * transactions with each other are counted, `address_pairs` holds, for each ordered pair of them,
 * the transactions from the one to the other. An address is paired once a data write takes its
 * kept txn_count above a threshold, so that adding it to a tag with paired members reads those
 * counts rather than the transactions behind them (bench/README.md, change 59).
 *
 * address_pairs' key reads a paired address's transactions to the others; address_pairs_by_recipient
 * those it received from them.
 *
 * The pairing of an existing database uses the threshold and the reference SQL of the time (a frozen
 * copy below): the live ones may change, and what this migration did must not.
 */
export class AddressPairs1763700000180 implements MigrationInterface {
  name = 'AddressPairs1763700000180';

  async up(runner: QueryRunner): Promise<void> {
    const t = columnTypes(dialectOf(runner));
    await runner.query(`CREATE TABLE paired_addresses (address ${t.text} PRIMARY KEY)`);
    await runner.query(`CREATE TABLE address_pairs (
      from_address ${t.text} NOT NULL,
      to_address ${t.text} NOT NULL,
      n ${t.bigint} NOT NULL,
      PRIMARY KEY (from_address, to_address)
    )`);
    await runner.query('CREATE INDEX address_pairs_by_recipient ON address_pairs (to_address, from_address)');
    await runner.query(
      `INSERT INTO paired_addresses (address) SELECT address FROM address_stats WHERE txn_count > 2000`,
    );
    await runner.query(`INSERT INTO address_pairs (from_address, to_address, n)
      SELECT t.from_address, t.to_address, COUNT(*) FROM transactions t
      WHERE t.from_address <> t.to_address
        AND t.from_address IN (SELECT address FROM paired_addresses)
        AND t.to_address IN (SELECT address FROM paired_addresses)
      GROUP BY t.from_address, t.to_address`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE address_pairs');
    await runner.query('DROP TABLE paired_addresses');
  }
}
