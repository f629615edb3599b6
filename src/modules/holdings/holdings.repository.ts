import { Injectable } from '@nestjs/common';
import { ChainId } from '../../core/chains/chain-ids';
import { Db } from '../../database/db.service';
import { scopeAddressesSql, TagScope } from '../../core/tags/tag-scope';

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
const POSITIVE = "h.balance <> '0'";

@Injectable()
export class HoldingsRepository {
  constructor(private readonly db: Db) {}

  async count(filters: HoldingFilters): Promise<number> {
    const where = whereClause(filters);
    const rows = await this.db.query<{ n: number | string }>(
      `SELECT COUNT(*) AS n FROM holdings h WHERE ${where.sql}`,
      where.params,
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** In the list order chain, token_address, address: the primary key's, so pages are range scans. */
  page(filters: HoldingFilters, offset: number, limit: number): Promise<HoldingRow[]> {
    const where = whereClause(filters);
    const next = where.params.length + 1;
    return this.db.query<HoldingRow>(
      `SELECT h.chain, h.address, h.token_address, h.balance, h.updated_at, d.decimals, t.name, t.symbol, t.icon_url,
         (SELECT p.usd FROM prices p WHERE p.token_id = d.token_id ORDER BY p.at DESC LIMIT 1) AS usd
       FROM holdings h
       JOIN token_deployments d ON d.chain = h.chain AND d.address = h.token_address
       JOIN tokens t ON t.id = d.token_id
       WHERE ${where.sql}
       ORDER BY h.chain, h.token_address, h.address
       LIMIT $${next} OFFSET $${next + 1}`,
      [...where.params, limit, offset],
    );
  }

  /**
   * Addresses with a balance above 0, for each of the given tokens. One count per token, each a
   * range of holdings_positive (migration 1763700000010) read without touching the table; the
   * tokens ORed into one condition made PostgreSQL fetch every holder's row to check its balance.
   */
  async holderCounts(tokens: readonly TokenOnChain[]): Promise<(TokenOnChain & { holders: number })[]> {
    if (tokens.length === 0) return [];
    const counts = tokens.map(
      (_token, index) =>
        `SELECT $${2 * index + 1} AS chain, $${2 * index + 2} AS token_address, COUNT(*) AS holders FROM holdings h
         WHERE h.chain = $${2 * index + 1} AND h.token_address = $${2 * index + 2} AND ${POSITIVE}`,
    );
    const rows = await this.db.query<TokenOnChain & { holders: number | string }>(
      counts.join(' UNION ALL '),
      tokens.flatMap((token) => [token.chain, token.token_address]),
    );
    return rows.map((row) => ({ chain: row.chain, token_address: row.token_address, holders: Number(row.holders) }));
  }
}

function whereClause(filters: HoldingFilters): { sql: string; params: unknown[] } {
  const conditions = [POSITIVE];
  const params: unknown[] = [];
  const bind = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  if (filters.chain !== undefined) conditions.push(`h.chain = ${bind(filters.chain)}`);
  if (filters.tokenAddress !== undefined) conditions.push(`h.token_address = ${bind(filters.tokenAddress)}`);
  if (filters.address !== undefined) conditions.push(`h.address = ${bind(filters.address)}`);
  if (filters.scope !== undefined) {
    const scope = scopeAddressesSql(filters.scope, params.length + 1);
    conditions.push(`h.address IN (${scope.sql})`);
    params.push(...scope.params);
  }
  return { sql: conditions.join(' AND '), params };
}
