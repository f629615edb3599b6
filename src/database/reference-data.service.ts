import { Injectable, OnModuleInit } from '@nestjs/common';
import { CHAINS } from '../core/chains/chain-registry';
import { Db, Sql } from './db.service';
import { explorersJson, TOKENS } from './reference-data';
import { rows, sql } from './sql';

/**
 * Brings the reference data in line with the shipped lists on every start, after the migrations.
 *
 * Chains follow the registry: every chain is there, in the registry's order, with its EVM chain
 * id, and with the registry's display data unless an import set it (`display_source`, migration
 * 1763700000021). Tokens and deployments that exist are left as they are, so token details
 * updated by an import survive a restart.
 */
@Injectable()
export class ReferenceDataService implements OnModuleInit {
  constructor(private readonly db: Db) {}

  async onModuleInit(): Promise<void> {
    await this.db.transaction(async (tx) => {
      await seedChains(tx);
      await seedTokens(tx);
    });
  }
}

/**
 * Display data counts as imported when a `chain` line wrote it, or, on a row from before
 * `display_source` existed, when it differs from the registry's: until then only an import could
 * change it, as the shipped display data had not changed since the first release.
 */
const keepsStoredDisplay = sql`(chains.display_source = 'import' OR (chains.display_source IS NULL AND NOT (
  chains.name = excluded.name AND chains.icon_url = excluded.icon_url AND chains.explorers = excluded.explorers)))`;

async function seedChains(tx: Sql): Promise<void> {
  // Positions are unique (chains_position). Moving every row to a negative position first lets the
  // registry's order land whatever the stored order was, without two rows sharing a position.
  await tx.execute(sql`UPDATE chains SET position = -1 - position`);
  const registry = CHAINS.map((chain, position) => [
    chain.id,
    position,
    chain.chainId,
    chain.name,
    chain.iconUrl,
    explorersJson(chain.explorers),
    'registry',
  ]);
  await tx.execute(sql`
    INSERT INTO chains (chain, position, chain_id, name, icon_url, explorers, display_source)
    VALUES ${rows(registry)}
    ON CONFLICT (chain) DO UPDATE SET
      position = excluded.position,
      chain_id = excluded.chain_id,
      name = CASE WHEN ${keepsStoredDisplay} THEN chains.name ELSE excluded.name END,
      icon_url = CASE WHEN ${keepsStoredDisplay} THEN chains.icon_url ELSE excluded.icon_url END,
      explorers = CASE WHEN ${keepsStoredDisplay} THEN chains.explorers ELSE excluded.explorers END,
      display_source = CASE WHEN ${keepsStoredDisplay} THEN 'import' ELSE 'registry' END`);
  // A row the registry no longer lists (chains are not removed, as data may refer to them) goes
  // after the registry's chains, keeping its place among such rows.
  const unlisted = await tx.query<{ chain: string }>(
    sql`SELECT chain FROM chains WHERE position < 0 ORDER BY position DESC`,
  );
  for (const [index, { chain }] of unlisted.entries()) {
    await tx.execute(sql`UPDATE chains SET position = ${CHAINS.length + index} WHERE chain = ${chain}`);
  }
}

/** Adds the shipped tokens and deployments the database lacks; answers how many deployments were new. */
async function seedTokens(tx: Sql): Promise<number> {
  let newDeployments = 0;
  for (const token of TOKENS) {
    await tx.execute(sql`
      INSERT INTO tokens (id, name, symbol, icon_url) VALUES (${token.id}, ${token.name}, ${token.symbol}, ${token.icon_url})
      ON CONFLICT (id) DO NOTHING`);
    const deployments = token.deployments.map((deployment) => [
      deployment.chain,
      deployment.address,
      token.id,
      deployment.decimals,
    ]);
    newDeployments += await tx.execute(sql`
      INSERT INTO token_deployments (chain, address, token_id, decimals) VALUES ${rows(deployments)}
      ON CONFLICT (chain, address) DO NOTHING`);
  }
  return newDeployments;
}
