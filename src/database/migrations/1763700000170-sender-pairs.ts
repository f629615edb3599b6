import { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf } from './1763700000000-foundation';
import { coveringColumns } from './1763700000010-stats-indexes';

/**
 * transactions_by_sender_pair: an address's sent transactions by recipient, as transactions_by_pair
 * holds its received ones by sender. When addresses join a tag with members, their sent
 * transactions are counted by recipient (src/modules/aggregates/membership.ts): through
 * transactions_by_sender, which carried the recipient for that since 1763700000120, each entry
 * also holds the block time and id, 24 entries a page at 10M transactions (3.4 GB, mostly outside
 * PostgreSQL's cache); this index stores a pair that repeats once per page, about 90 entries a
 * page (669 MB built at once at 10M, 876 MB after the bench's import). The busy addresses'
 * transactions to members are read here too. With it, transactions_by_sender goes back to its
 * listing columns (nothing reads the recipient from it any more): the import writes a narrow entry
 * more per row and a narrower one there (bench/README.md, change 58).
 */
export class SenderPairs1763700000170 implements MigrationInterface {
  name = 'SenderPairs1763700000170';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('CREATE INDEX transactions_by_sender_pair ON transactions (from_address, to_address)');
    await runner.query('DROP INDEX transactions_by_sender');
    await runner.query('CREATE INDEX transactions_by_sender ON transactions (from_address, block_time, id)');
  }

  async down(runner: QueryRunner): Promise<void> {
    const covering = coveringColumns(dialectOf(runner));
    await runner.query('DROP INDEX transactions_by_sender');
    await runner.query(
      `CREATE INDEX transactions_by_sender ON transactions ${covering(['from_address', 'block_time', 'id'], ['to_address'])}`,
    );
    await runner.query('DROP INDEX transactions_by_sender_pair');
  }
}
