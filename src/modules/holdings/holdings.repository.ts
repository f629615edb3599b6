import { Injectable } from '@nestjs/common';
import { ChainId } from '../../core/chains/chain-ids';
import { addressSet } from '../../database/address-sets';
import { Db } from '../../database/db.service';
import { and, join, raw, sql, SqlFragment } from '../../database/sql';
import { TagScope } from '../../core/tags/tag-scope';

export interface HoldingFilters {
  chain?: ChainId;
  /** Canonical. */
  address?: string;
  /** Canonical. */
  tokenAddress?: string;
  scope?: TagScope;
}

export interface HoldingRow {
  chain: string;
  address: string;
  token_address: string;
  balance: string;
  updated_at: Date | string;
  decimals: number | string;
  name: string;
  symbol: string;
  icon_url: string;
  /** Latest price, or null when the token has none. */
  usd: string | number | null;
}

export interface TokenOnChain {
  chain: string;
  token_address: string;
}

/**
 * Balances are stored without leading zeros on both databases, so `balance <> '0'` is "above zero"
 * whether the column is numeric (PostgreSQL) or text (SQLite).
 */
const POSITIVE = raw("h.balance <> '0'");

@Injectable()
export class HoldingsRepository {
  constructor(private readonly db: Db) {}

  count(filters: HoldingFilters): Promise<number> {
    return this.db.count(sql`SELECT COUNT(*) FROM holdings h WHERE ${whereClause(filters)}`);
  }

  /** In the list order chain, token_address, address: the primary key's, so pages are range scans. */
  page(filters: HoldingFilters, offset: number, limit: number): Promise<HoldingRow[]> {
    return this.db.query<HoldingRow>(
      sql`SELECT h.chain, h.address, h.token_address, h.balance, h.updated_at, d.decimals, t.name, t.symbol, t.icon_url,
         (SELECT p.usd FROM prices p WHERE p.token_id = d.token_id ORDER BY p.at DESC LIMIT 1) AS usd
       FROM holdings h
       JOIN token_deployments d ON d.chain = h.chain AND d.address = h.token_address
       JOIN tokens t ON t.id = d.token_id
       WHERE ${whereClause(filters)}
       ORDER BY h.chain, h.token_address, h.address
       LIMIT ${limit} OFFSET ${offset}`,
    );
  }

  /**
   * Addresses with a balance above 0, for each of the given tokens that has any, read from the kept
   * counts (token_holders, src/database/aggregates.ts): one key lookup per token.
   */
  async holderCounts(tokens: readonly TokenOnChain[]): Promise<(TokenOnChain & { holders: number })[]> {
    if (tokens.length === 0) return [];
    const keys = tokens.map((token) => sql`(chain = ${token.chain} AND token_address = ${token.token_address})`);
    const rows = await this.db.query<TokenOnChain & { holders: number | string }>(
      sql`SELECT chain, token_address, holders FROM token_holders WHERE ${join(keys, ' OR ')}`,
    );
    return rows.map((row) => ({ chain: row.chain, token_address: row.token_address, holders: Number(row.holders) }));
  }
}

function whereClause(filters: HoldingFilters): SqlFragment {
  const conditions = [POSITIVE];
  if (filters.chain !== undefined) conditions.push(sql`h.chain = ${filters.chain}`);
  if (filters.tokenAddress !== undefined) conditions.push(sql`h.token_address = ${filters.tokenAddress}`);
  if (filters.address !== undefined) conditions.push(sql`h.address = ${filters.address}`);
  if (filters.scope !== undefined) conditions.push(sql`h.address IN (${addressSet(filters.scope)})`);
  return and(conditions);
}
