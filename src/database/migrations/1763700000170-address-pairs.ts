import { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes } from '../dialect';
import { dialectOf } from './1763700000000-foundation';

/**
 * address_pairs (to_address, from_address): how many transactions went from one address to
 * another (never to itself), a kept aggregate (src/modules/aggregates/tables/address-pairs.ts).
 * A change of a tag's members counts the transactions among its addresses and with the tag's
 * other members; it read them one index entry per transaction (transactions_by_pair), and busy
 * addresses trade with each other over and over: in the bench's 10M data, 1,141,522 transactions
 * among 507 busy addresses were 25,688 pairs, and reading them took 0.5-1.0 s of a request
 * (bench/README.md, change 50). A pair is read once now, whatever its transactions. Over the whole
 * 10M data: 9,906,265 transactions, 5,406,934 pairs.
 *
 * transactions_by_pair goes: the pairs answer what it was there for. The backfill is the reference
 * computation of the time (a frozen copy: the live one may change, what this migration did must not).
 */
export class AddressPairs1763700000170 implements MigrationInterface {
  name = 'AddressPairs1763700000170';

  async up(runner: QueryRunner): Promise<void> {
    const dialect = dialectOf(runner);
    const t = columnTypes(dialect);
    const fill = `INSERT INTO address_pairs (to_address, from_address, txn_count)
      SELECT to_address, from_address, COUNT(*) FROM transactions WHERE to_address <> from_address
      GROUP BY to_address, from_address`;
    if (dialect === 'postgres') {
      // Keyed once filled, which builds the indexes in one pass. Both carry txn_count, so that the
      // counts are read from the index alone (without it, each pair read was a visit to the heap).
      await runner.query(
        `CREATE TABLE address_pairs (to_address ${t.text} NOT NULL, from_address ${t.text} NOT NULL, txn_count ${t.bigint} NOT NULL)`,
      );
      await runner.query(fill);
      await runner.query('ALTER TABLE address_pairs ADD PRIMARY KEY (to_address, from_address) INCLUDE (txn_count)');
      await runner.query(
        'CREATE INDEX address_pairs_by_sender ON address_pairs (from_address, to_address) INCLUDE (txn_count)',
      );
    } else {
      // The table is its key's b-tree; the sender index holds the count too.
      await runner.query(`CREATE TABLE address_pairs (
        to_address ${t.text} NOT NULL,
        from_address ${t.text} NOT NULL,
        txn_count ${t.bigint} NOT NULL,
        PRIMARY KEY (to_address, from_address)
      ) WITHOUT ROWID`);
      await runner.query(fill);
      await runner.query('CREATE INDEX address_pairs_by_sender ON address_pairs (from_address, to_address, txn_count)');
    }
    await runner.query('DROP INDEX transactions_by_pair');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('CREATE INDEX transactions_by_pair ON transactions (to_address, from_address)');
    await runner.query('DROP TABLE address_pairs');
  }
}
