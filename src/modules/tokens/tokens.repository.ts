import { Injectable } from '@nestjs/common';
import { Db } from '../../database/db.service';
import { list, pageBesideTotal, raw, splitPage, sql } from '../../database/sql';

export interface TokenRow {
  id: string;
  name: string;
  symbol: string;
  icon_url: string;
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

  /** A page of the tokens by id, and how many there are, in one statement (`pageBesideTotal`). */
  async page(offset: number, limit: number): Promise<{ total: number; rows: TokenRow[] }> {
    const found = await this.db.query<TokenRow & { total: number | string }>(
      pageBesideTotal(
        sql`SELECT COUNT(*) AS total FROM tokens`,
        sql`SELECT id, name, symbol, icon_url FROM tokens ORDER BY id LIMIT ${limit} OFFSET ${offset}`,
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
