import { Injectable } from '@nestjs/common';
import { Db } from '../../database/db.service';

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

  async count(): Promise<number> {
    const rows = await this.db.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM tokens');
    return Number(rows[0]?.n ?? 0);
  }

  page(offset: number, limit: number): Promise<TokenRow[]> {
    return this.db.query<TokenRow>('SELECT id, name, symbol, icon_url FROM tokens ORDER BY id LIMIT $1 OFFSET $2', [
      limit,
      offset,
    ]);
  }

  /** Deployments of the given tokens, in the order of GET /v2/chains, then by address. */
  deploymentsOf(tokenIds: readonly string[]): Promise<DeploymentRow[]> {
    if (tokenIds.length === 0) return Promise.resolve([]);
    const placeholders = tokenIds.map((_id, index) => `$${index + 1}`).join(', ');
    return this.db.query<DeploymentRow>(
      `SELECT d.token_id, d.chain, d.address, d.decimals
       FROM token_deployments d JOIN chains c ON c.chain = d.chain
       WHERE d.token_id IN (${placeholders}) ORDER BY c.position, d.address`,
      tokenIds,
    );
  }
}
