import { Injectable, OnModuleInit } from '@nestjs/common';
import { Db } from './db.service';
import { CHAINS, TOKENS } from './reference-data';
import { bumpDataRevision } from './revisions';

/**
 * Loads the shipped chains and tokens on every start, after the migrations. Rows that exist are
 * left as they are, so chain or token details updated by an import survive a restart. A deployment
 * that is new to the database changes how holdings are valued, so it moves the data revision on.
 */
@Injectable()
export class ReferenceDataService implements OnModuleInit {
  constructor(private readonly db: Db) {}

  async onModuleInit(): Promise<void> {
    await this.db.transaction(async (tx) => {
      let newDeployments = 0;
      for (const [position, chain] of CHAINS.entries()) {
        await tx.execute(
          `INSERT INTO chains (chain, position, chain_id, name, icon_url, native_decimals, explorers)
           VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (chain) DO NOTHING`,
          [
            chain.chain,
            position,
            chain.chainId,
            chain.name,
            chain.icon_url,
            chain.native_decimals,
            JSON.stringify(chain.explorers),
          ],
        );
      }
      for (const token of TOKENS) {
        await tx.execute(
          `INSERT INTO tokens (id, name, symbol, icon_url) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING`,
          [token.id, token.name, token.symbol, token.icon_url],
        );
        for (const deployment of token.deployments) {
          newDeployments += await tx.execute(
            `INSERT INTO token_deployments (chain, address, token_id, decimals) VALUES ($1, $2, $3, $4)
             ON CONFLICT (chain, address) DO NOTHING`,
            [deployment.chain, deployment.address, token.id, deployment.decimals],
          );
        }
      }
      if (newDeployments > 0) await bumpDataRevision(tx);
    });
  }
}
