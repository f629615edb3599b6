import { Injectable } from '@nestjs/common';
import type { ChainId } from '../../../core/chains/chain-ids';
import { Db, Sql } from '../../../database/db.service';
import { chunks, rows, sql } from '../../../database/sql';

/** A Jetton wallet of a followed owner (follower_jetton_wallets); every address raw. */
export interface JettonWallet {
  wallet: string;
  owner: string;
  master: string;
}

/**
 * The TON source's Jetton wallets (migration 1763700000090). Written only inside the follower's
 * transactions, through the source's `write`.
 */
@Injectable()
export class TonRepository {
  constructor(private readonly db: Db) {}

  async wallets(chain: ChainId): Promise<JettonWallet[]> {
    return this.db.query<JettonWallet>(
      sql`SELECT wallet, owner, master FROM follower_jetton_wallets WHERE chain = ${chain}`,
    );
  }

  async add(tx: Sql, chain: ChainId, wallets: readonly JettonWallet[]): Promise<void> {
    for (const chunk of chunks(wallets)) {
      await tx.execute(
        sql`INSERT INTO follower_jetton_wallets (chain, wallet, owner, master)
            VALUES ${rows(chunk.map((row) => [chain, row.wallet, row.owner, row.master]))}
            ON CONFLICT (chain, wallet) DO NOTHING`,
      );
    }
  }
}
