import { MigrationInterface, QueryRunner } from 'typeorm';
import { Dialect } from '../dialect';
import { dialectOf } from './1763700000000-foundation';

/**
 * Indexes that let the address and tag stats and the holder counts be answered from indexes
 * alone (the before/after figures are in bench/README.md):
 *
 * - transactions_by_recipient also carries the sender. A transaction is counted once, from its
 *   sender's side (transactions_by_sender) or, when the sender is not counted already, from its
 *   recipient's (StatsRepository); with the sender in the recipient index, neither side reads the
 *   table, where a tag's count used to read all of it. The sender index needs nothing more: the
 *   sender side only counts entries.
 * - holdings_by_address covers only balances above zero, the only ones chaintags lists or counts,
 *   and carries the balance, so an address's or a tag's holdings are counted and valued without
 *   reading the table.
 * - holdings_positive: a token's holders (balance above zero) as one index range. Counting the
 *   holders of the tokens on a page of GET /v2/token-holdings read every holder's row to check its
 *   balance.
 *
 * PostgreSQL carries the extra columns as INCLUDE columns; SQLite, which has no INCLUDE, as
 * trailing key columns after the unique (block_time, id) or (address, chain, token_address), so
 * the order the indexes give is unchanged. Every index costs the import: wider and more indexes
 * are more to write for each row.
 */
export class StatsIndexes1763700000010 implements MigrationInterface {
  name = 'StatsIndexes1763700000010';

  async up(runner: QueryRunner): Promise<void> {
    const dialect = dialectOf(runner);
    const covering = coveringColumns(dialect);
    await runner.query('DROP INDEX transactions_by_recipient');
    await runner.query(
      `CREATE INDEX transactions_by_recipient ON transactions ${covering(['to_address', 'block_time', 'id'], ['from_address'])}`,
    );
    await runner.query('DROP INDEX holdings_by_address');
    await runner.query(
      `CREATE INDEX holdings_by_address ON holdings ${covering(['address', 'chain', 'token_address'], ['balance'])}
       WHERE balance <> '0'`,
    );
    // SQLite reads the table for a column the query names unless the index holds it, even one
    // the index's WHERE clause already settles, so there the balance goes into the key as well.
    const positive = dialect === 'postgres' ? [] : ['balance'];
    await runner.query(
      `CREATE INDEX holdings_positive ON holdings (${['chain', 'token_address', 'address', ...positive].join(', ')})
       WHERE balance <> '0'`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX holdings_positive');
    await runner.query('DROP INDEX holdings_by_address');
    await runner.query('CREATE INDEX holdings_by_address ON holdings (address, chain, token_address)');
    await runner.query('DROP INDEX transactions_by_recipient');
    await runner.query('CREATE INDEX transactions_by_recipient ON transactions (to_address, block_time, id)');
  }
}

/**
 * An index's columns: `key`, with `carried` as INCLUDE columns on PostgreSQL and as trailing key
 * columns on SQLite.
 */
export function coveringColumns(dialect: Dialect): (key: string[], carried: string[]) => string {
  return dialect === 'postgres'
    ? (key, carried) => `(${key.join(', ')}) INCLUDE (${carried.join(', ')})`
    : (key, carried) => `(${[...key, ...carried].join(', ')})`;
}
