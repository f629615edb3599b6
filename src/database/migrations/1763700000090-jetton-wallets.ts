import { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes } from '../dialect';
import { dialectOf } from './1763700000000-foundation';

/**
 * `follower_jetton_wallets`: the TON source's Jetton wallets of followed owners (src/modules/follow/ton).
 * Every (owner, Jetton master) pair has its own wallet contract, and a transfer to an owner touches
 * that contract, not the owner, unless the sender pays for a notification: the source watches
 * these wallets as it watches the owners. A row is a fact of the chain (the master's
 * `get_wallet_address`, checked against the wallet's `get_wallet_data`), independent of any block,
 * so a reorganisation has nothing here to undo.
 */
export class JettonWallets1763700000090 implements MigrationInterface {
  name = 'JettonWallets1763700000090';

  async up(runner: QueryRunner): Promise<void> {
    const t = columnTypes(dialectOf(runner));
    await runner.query(`CREATE TABLE follower_jetton_wallets (
      chain ${t.text} NOT NULL,
      wallet ${t.text} NOT NULL,
      owner ${t.text} NOT NULL,
      master ${t.text} NOT NULL,
      PRIMARY KEY (chain, wallet)
    )`);
    await runner.query(`CREATE INDEX follower_jetton_wallets_by_owner ON follower_jetton_wallets (chain, owner)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE follower_jetton_wallets');
  }
}
