import { Injectable } from '@nestjs/common';
import { Db } from '../../database/db.service';
import { CHAIN_IDS } from '../../core/chains/chain-ids';
import { and, empty, list, pageBesideTotal, raw, splitPage, sql, type SqlFragment } from '../../database/sql';

export interface TokenRow {
  id: string;
  name: string;
  symbol: string;
  icon_url: string;
  /** The newest price, and its time; null when the token has none. */
  usd: string | number | null;
  price_at: Date | string | null;
}

export interface DeploymentRow {
  token_id: string;
  chain: string;
  address: string;
  decimals: number | string;
}

@Injectable()
export class TokensRepository {
  constructor(private readonly db: Db) {}

  /**
   * A page of the tokens by id with their newest prices, and how many there are, in one statement
   * (`pageBesideTotal`): all of them, or those with a deployment on `chain`, at `address`
   * (canonical), or both.
   */
  async page(
    offset: number,
    limit: number,
    filters: { chain?: string; address?: string } = {},
  ): Promise<{ total: number; rows: TokenRow[] }> {
    const deployed: SqlFragment[] = [];
    if (filters.chain !== undefined) deployed.push(sql`chain = ${filters.chain}`);
    // Without a chain, every chain's: the key (chain, address) then finds it per chain.
    else if (filters.address !== undefined) deployed.push(sql`chain IN (${list(CHAIN_IDS)})`);
    if (filters.address !== undefined) deployed.push(sql`address = ${filters.address}`);
    const where =
      deployed.length === 0 ? empty : sql`WHERE id IN (SELECT token_id FROM token_deployments WHERE ${and(deployed)})`;
    const found = await this.db.query<TokenRow & { total: number | string }>(
      pageBesideTotal(
        sql`SELECT COUNT(*) AS total FROM tokens ${where}`,
        sql`SELECT id, name, symbol, icon_url,
                   (SELECT p.usd FROM prices p WHERE p.token_id = tokens.id ORDER BY p.at DESC LIMIT 1) AS usd,
                   (SELECT MAX(p.at) FROM prices p WHERE p.token_id = tokens.id) AS price_at
            FROM tokens ${where} ORDER BY id LIMIT ${limit} OFFSET ${offset}`,
        raw('page.id'),
      ),
    );
    return splitPage(found, 'id')!;
  }

  /** Deployments of the given tokens, in the order of GET /v2/chains, then by address. */
  deploymentsOf(tokenIds: readonly string[]): Promise<DeploymentRow[]> {
    if (tokenIds.length === 0) return Promise.resolve([]);
    return this.db.query<DeploymentRow>(
      sql`SELECT d.token_id, d.chain, d.address, d.decimals
       FROM token_deployments d JOIN chains c ON c.chain = d.chain
       WHERE d.token_id IN (${list(tokenIds)}) ORDER BY c.position, d.address`,
    );
  }
}
