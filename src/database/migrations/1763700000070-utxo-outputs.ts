import { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes } from '../dialect';
import { dialectOf } from './1763700000000-foundation';

/**
 * What the chain sources keep beside the followers' tables (src/modules/follow):
 * - `follower_outputs`: the Bitcoin-family source's tracked outputs: every output paid to a
 *   followed address's script, with the block that created it and, once spent, the block and
 *   transaction that spent it. Spends are found through it (an input names the output it spends,
 *   not the address), balances are the sum of the unspent ones, and a reorganisation undoes both
 *   sides above its ancestor. `value` is in satoshis.
 * - `follower_foreign_addresses`: tracked addresses that have the shape of a chain's addresses
 *   but are not valid on it (a Solana key that reads like a Bitcoin address), so the chain's
 *   follower does not read them again.
 */
export class UtxoOutputs1763700000070 implements MigrationInterface {
  name = 'UtxoOutputs1763700000070';

  async up(runner: QueryRunner): Promise<void> {
    const t = columnTypes(dialectOf(runner));
    await runner.query(`CREATE TABLE follower_outputs (
      chain ${t.text} NOT NULL,
      txid ${t.text} NOT NULL,
      vout ${t.integer} NOT NULL,
      address ${t.text} NOT NULL,
      value ${t.bigint} NOT NULL,
      block_number ${t.bigint} NOT NULL,
      spent_block ${t.bigint},
      spent_txid ${t.text},
      PRIMARY KEY (chain, txid, vout)
    )`);
    await runner.query(`CREATE INDEX follower_outputs_by_address ON follower_outputs (chain, address)`);
    await runner.query(`CREATE INDEX follower_outputs_by_block ON follower_outputs (chain, block_number)`);
    await runner.query(`CREATE INDEX follower_outputs_by_spent_block ON follower_outputs (chain, spent_block)`);
    await runner.query(`CREATE TABLE follower_foreign_addresses (
      chain ${t.text} NOT NULL,
      address ${t.text} NOT NULL,
      PRIMARY KEY (chain, address)
    )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE follower_foreign_addresses');
    await runner.query('DROP TABLE follower_outputs');
  }
}
