import { Injectable, OnModuleInit } from '@nestjs/common';
import { CHAINS } from '../core/chains/chain-registry';
import { Db, Sql } from './db.service';
import { explorersJson, TOKENS } from './reference-data';
import { join, list, rows, sql } from './sql';

/**
 * Brings the reference data in line with the shipped lists on every start, after the migrations.
 * It reads first and writes only when something differs: most starts (every one but the first
 * after an upgrade that changed the lists, or after a change made by hand) write nothing, so a
 * command started beside a server busy writing to SQLite does not wait for its write lock.
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
    if (await isSeeded(this.db)) return;
    await this.db.transaction(async (tx) => {
      await seedChains(tx);
      await seedTokens(tx);
    });
  }
}

/**
 * Whether seeding would change nothing: the registry's chains and only them, each at its position
 * with its chain id, its display data the registry's or, as `display_source` says, an import's;
 * every shipped token and deployment present. Anything else (a row from before `display_source`
 * included) leaves it to the seeding itself.
 */
async function isSeeded(db: Sql): Promise<boolean> {
  const stored = await db.query<{
    chain: string;
    position: number | string;
    chain_id: number | string;
    name: string;
    icon_url: string;
    explorers: string;
    display_source: string | null;
  }>(sql`SELECT chain, position, chain_id, name, icon_url, explorers, display_source FROM chains`);
  if (stored.length !== CHAINS.length) return false;
  const byChain = new Map(stored.map((row) => [row.chain, row]));
  const chainsSettled = CHAINS.every((chain, position) => {
    const row = byChain.get(chain.id);
    if (row === undefined || Number(row.position) !== position || Number(row.chain_id) !== chain.chainId) return false;
    if (row.display_source === 'import') return true;
    return (
      row.display_source === 'registry' &&
      row.name === chain.name &&
      row.icon_url === chain.iconUrl &&
      row.explorers === explorersJson(chain.explorers)
    );
  });
  if (!chainsSettled) return false;
  const tokenIds = TOKENS.map((token) => token.id);
  const deployments = TOKENS.flatMap((token) =>
    token.deployments.map((d) => sql`(chain = ${d.chain} AND address = ${d.address})`),
  );
  const [counts] = await db.query<{ tokens: number | string; deployments: number | string }>(
    sql`SELECT (SELECT COUNT(*) FROM tokens WHERE id IN (${list(tokenIds)})) AS tokens,
               (SELECT COUNT(*) FROM token_deployments WHERE ${join(deployments, ' OR ')}) AS deployments`,
  );
  return Number(counts?.tokens) === tokenIds.length && Number(counts?.deployments) === deployments.length;
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
