import { Injectable } from '@nestjs/common';
import { Db } from '../../database/db.service';
import { list, sql } from '../../database/sql';

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

  count(): Promise<number> {
    return this.db.count(sql`SELECT COUNT(*) FROM tokens`);
  }

  page(offset: number, limit: number): Promise<TokenRow[]> {
    return this.db.query<TokenRow>(
      sql`SELECT id, name, symbol, icon_url FROM tokens ORDER BY id LIMIT ${limit} OFFSET ${offset}`,
    );
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
