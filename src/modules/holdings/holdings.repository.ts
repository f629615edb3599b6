import { Injectable } from '@nestjs/common';
import { ChainId } from '../../core/chains/chain-ids';
import { addressSet } from '../../database/address-sets';
import { Db } from '../../database/db.service';
import { and, list, prepared, raw, sql, SqlFragment } from '../../database/sql';
import { TagScope } from '../../core/tags/tag-scope';

export interface HoldingFilters {
  chain?: ChainId;
  /** The canonical spellings of one address (listFilters). */
  address?: readonly string[];
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
  /** Addresses with a balance above 0 of this token on this chain (token_holders). */
  holders: string | number;
}

/** A page of holdings and how many there are in all. */
export interface HoldingsPage {
  total: number;
  rows: HoldingRow[];
}

/**
 * Balances are stored without leading zeros on both databases, so `balance <> '0'` is "above zero"
 * whether the column is numeric (PostgreSQL) or text (SQLite).
 */
const POSITIVE = raw("h.balance <> '0'");

@Injectable()
export class HoldingsRepository {
  constructor(private readonly db: Db) {}

  /**
   * The page and the total. A real tag's holdings (with or without a chain or token) are read from
   * its kept aggregates: the page's keys from tag_holdings (the members' holdings above zero, in
   * list order), so a page costs its own rows whatever else is held, and the count of the tag's
   * holdings alone from tag_stats. Otherwise the count and the page run side by side on holdings.
   */
  async page(filters: HoldingFilters, offset: number, limit: number): Promise<HoldingsPage> {
    const tag = filters.address === undefined && filters.scope?.kind === 'tag' ? filters.scope : undefined;
    if (tag === undefined) {
      const where = whereClause(filters);
      const [total, rows] = await Promise.all([
        this.db.count(sql`SELECT COUNT(*) FROM holdings h WHERE ${where}`),
        this.rows(
          sql`SELECT h.chain, h.token_address, h.address FROM holdings h WHERE ${where}
              ORDER BY h.chain, h.token_address, h.address LIMIT ${limit} OFFSET ${offset}`,
          filters.scope === undefined,
        ),
      ]);
      return { total, rows };
    }
    const conditions = [sql`tag_id = ${tag.tagId}`];
    if (filters.chain !== undefined) conditions.push(sql`chain = ${filters.chain}`);
    if (filters.tokenAddress !== undefined) conditions.push(sql`token_address = ${filters.tokenAddress}`);
    const total =
      conditions.length === 1
        ? await this.tagHoldingCount(tag.tagId)
        : await this.db.count(prepared(sql`SELECT COUNT(*) FROM tag_holdings WHERE ${and(conditions)}`));
    if (total <= offset) return { total, rows: [] };
    const keys = sql`SELECT chain, token_address, address FROM tag_holdings WHERE ${and(conditions)}
                     ORDER BY chain, token_address, address LIMIT ${limit} OFFSET ${offset}`;
    return { total, rows: await this.rows(keys, true) };
  }

  /**
   * In the list order chain, token_address, address: the primary key's, so pages are range scans.
   * The page's keys first (`keys`, from an index alone), then its rows, each with its token, latest
   * price and kept holder count. `keep`: kept prepared, for the conditions whose plan does not
   * depend on the values (not an address set, whose best plan depends on its size).
   */
  private rows(keys: SqlFragment, keep: boolean): Promise<HoldingRow[]> {
    const statement = sql`SELECT h.chain, h.address, h.token_address, h.balance, h.updated_at, d.decimals, t.name, t.symbol, t.icon_url,
         (SELECT p.usd FROM prices p WHERE p.token_id = d.token_id ORDER BY p.at DESC LIMIT 1) AS usd,
         COALESCE(th.holders, 0) AS holders
       FROM (${keys}) k
       JOIN holdings h ON h.chain = k.chain AND h.token_address = k.token_address AND h.address = k.address
       JOIN token_deployments d ON d.chain = h.chain AND d.address = h.token_address
       JOIN tokens t ON t.id = d.token_id
       LEFT JOIN token_holders th ON th.chain = h.chain AND th.token_address = h.token_address
       ORDER BY h.chain, h.token_address, h.address`;
    return this.db.query<HoldingRow>(keep ? prepared(statement) : statement);
  }

  /** The tag's holdings above zero, kept in tag_stats. */
  private async tagHoldingCount(tagId: number): Promise<number> {
    const [row] = await this.db.query<{ holding_count: number | string }>(
      prepared(sql`SELECT holding_count FROM tag_stats WHERE tag_id = ${tagId}`),
    );
    return Number(row?.holding_count ?? 0);
  }
}

function whereClause(filters: HoldingFilters): SqlFragment {
  const conditions = [POSITIVE];
  if (filters.chain !== undefined) conditions.push(sql`h.chain = ${filters.chain}`);
  if (filters.tokenAddress !== undefined) conditions.push(sql`h.token_address = ${filters.tokenAddress}`);
  if (filters.address !== undefined) conditions.push(sql`h.address IN (${list(filters.address)})`);
  if (filters.scope !== undefined) conditions.push(sql`h.address IN (${addressSet(filters.scope)})`);
  return and(conditions);
}
