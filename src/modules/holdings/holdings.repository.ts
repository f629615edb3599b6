import { Injectable } from '@nestjs/common';
import { ChainId } from '../../core/chains/chain-ids';
import { addressSet } from '../../database/address-sets';
import { Db } from '../../database/db.service';
import { lookedUpIn } from '../../database/dialect';
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

  /** A real tag's holdings alone are counted in its kept aggregates (tag_stats): one row. */
  async count(filters: HoldingFilters): Promise<number> {
    const tag = tagAlone(filters);
    if (tag === undefined) return this.db.count(sql`SELECT COUNT(*) FROM holdings h WHERE ${whereClause(filters)}`);
    return (await this.holdingCounts(tag.tagId)).tag;
  }

  /**
   * In the list order chain, token_address, address: the primary key's, so pages are range scans.
   *
   * A real tag's holdings alone are read one of two ways, chosen from the kept counts. When reading
   * all holdings in list order would pass over more of them than the tag's members hold before the
   * page is full (a tag whose members hold few of all holdings), the members' holdings are looked up
   * by address and sorted; otherwise the page is read in list order, keeping the members' rows.
   * Left to itself, PostgreSQL read every holding to hash-join them with a tag of 500 members: 100 ms
   * a page instead of 15.
   */
  async page(filters: HoldingFilters, offset: number, limit: number): Promise<HoldingRow[]> {
    const tag = tagAlone(filters);
    const where =
      tag !== undefined && (await this.fewerByMembers(tag.tagId, offset + limit))
        ? and([POSITIVE, lookedUpIn(this.db.dialect, raw('h.address'), addressSet(tag))])
        : whereClause(filters);
    // The page's keys first, from an index alone (holdings_positive or holdings_by_address), then its rows.
    return this.db.query<HoldingRow>(
      sql`SELECT h.chain, h.address, h.token_address, h.balance, h.updated_at, d.decimals, t.name, t.symbol, t.icon_url,
         (SELECT p.usd FROM prices p WHERE p.token_id = d.token_id ORDER BY p.at DESC LIMIT 1) AS usd
       FROM (SELECT h.chain, h.token_address, h.address FROM holdings h WHERE ${where}
             ORDER BY h.chain, h.token_address, h.address LIMIT ${limit} OFFSET ${offset}) k
       JOIN holdings h ON h.chain = k.chain AND h.token_address = k.token_address AND h.address = k.address
       JOIN token_deployments d ON d.chain = h.chain AND d.address = h.token_address
       JOIN tokens t ON t.id = d.token_id
       ORDER BY h.chain, h.token_address, h.address`,
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

  /** Whether the tag's own holdings are fewer than the holdings read in list order until `rows` of them are. */
  private async fewerByMembers(tagId: number, rows: number): Promise<boolean> {
    const counts = await this.holdingCounts(tagId);
    return counts.tag === 0 || (rows * counts.all) / counts.tag > counts.tag;
  }

  /** Holdings above zero, kept: the tag's members' (tag_stats) and everyone's (token_holders, one row per token). */
  private async holdingCounts(tagId: number): Promise<{ tag: number; all: number }> {
    const [row] = await this.db.query<{ tag: number | string | null; everyone: number | string | null }>(
      sql`SELECT (SELECT holding_count FROM tag_stats WHERE tag_id = ${tagId}) AS tag,
          (SELECT SUM(holders) FROM token_holders) AS everyone`,
    );
    return { tag: Number(row?.tag ?? 0), all: Number(row?.everyone ?? 0) };
  }
}

/** The scope when a real tag is the only filter. */
function tagAlone(filters: HoldingFilters): Extract<TagScope, { kind: 'tag' }> | undefined {
  const others = filters.chain ?? filters.address ?? filters.tokenAddress;
  return others === undefined && filters.scope?.kind === 'tag' ? filters.scope : undefined;
}

function whereClause(filters: HoldingFilters): SqlFragment {
  const conditions = [POSITIVE];
  if (filters.chain !== undefined) conditions.push(sql`h.chain = ${filters.chain}`);
  if (filters.tokenAddress !== undefined) conditions.push(sql`h.token_address = ${filters.tokenAddress}`);
  if (filters.address !== undefined) conditions.push(sql`h.address = ${filters.address}`);
  if (filters.scope !== undefined) conditions.push(sql`h.address IN (${addressSet(filters.scope)})`);
  return and(conditions);
}
