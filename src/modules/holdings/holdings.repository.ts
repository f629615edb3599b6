import { Injectable } from '@nestjs/common';
import { ChainId } from '../../core/chains/chain-ids';
import { addressSet } from '../../database/address-sets';
import { Db } from '../../database/db.service';
import { lookedUpIn } from '../../database/dialect';
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
  private allHoldings: { count: number; at: number } | undefined;

  constructor(private readonly db: Db) {}

  /**
   * The page and the total. A real tag's holdings alone are counted in its kept aggregates
   * (tag_stats), read once for both; otherwise the count and the page run side by side.
   */
  async page(filters: HoldingFilters, offset: number, limit: number): Promise<HoldingsPage> {
    const tag = tagAlone(filters);
    if (tag === undefined) {
      const [total, rows] = await Promise.all([
        this.db.count(sql`SELECT COUNT(*) FROM holdings h WHERE ${whereClause(filters)}`),
        this.rows(whereClause(filters), offset, limit, filters.scope === undefined),
      ]);
      return { total, rows };
    }
    const total = await this.tagHoldingCount(tag.tagId);
    if (total <= offset) return { total, rows: [] };
    const byMembers = await this.fewerByMembers(total, offset + limit);
    const where = byMembers
      ? and([POSITIVE, lookedUpIn(this.db.dialect, raw('h.address'), addressSet(tag))])
      : whereClause(filters);
    return { total, rows: await this.rows(where, offset, limit, byMembers) };
  }

  /**
   * In the list order chain, token_address, address: the primary key's, so pages are range scans.
   * The page's keys first, from an index alone (holdings_positive or holdings_by_address), then its
   * rows, each with its token, latest price and kept holder count. `keep`: kept prepared, for the
   * conditions whose plan does not depend on the values (no set of addresses read in list order,
   * whose best plan depends on the set's size).
   */
  private rows(where: SqlFragment, offset: number, limit: number, keep: boolean): Promise<HoldingRow[]> {
    const statement = sql`SELECT h.chain, h.address, h.token_address, h.balance, h.updated_at, d.decimals, t.name, t.symbol, t.icon_url,
         (SELECT p.usd FROM prices p WHERE p.token_id = d.token_id ORDER BY p.at DESC LIMIT 1) AS usd,
         COALESCE(th.holders, 0) AS holders
       FROM (SELECT h.chain, h.token_address, h.address FROM holdings h WHERE ${where}
             ORDER BY h.chain, h.token_address, h.address LIMIT ${limit} OFFSET ${offset}) k
       JOIN holdings h ON h.chain = k.chain AND h.token_address = k.token_address AND h.address = k.address
       JOIN token_deployments d ON d.chain = h.chain AND d.address = h.token_address
       JOIN tokens t ON t.id = d.token_id
       LEFT JOIN token_holders th ON th.chain = h.chain AND th.token_address = h.token_address
       ORDER BY h.chain, h.token_address, h.address`;
    return this.db.query<HoldingRow>(keep ? prepared(statement) : statement);
  }

  /**
   * A real tag's holdings alone are read one of two ways, chosen from the kept counts. When reading
   * all holdings in list order would pass over more of them than the tag's members hold before the
   * page is full (a tag whose members hold few of all holdings), the members' holdings are looked up
   * by address and sorted; otherwise the page is read in list order, keeping the members' rows.
   * Left to itself, PostgreSQL read every holding to hash-join them with a tag of 500 members: 100 ms
   * a page instead of 15.
   */
  private async fewerByMembers(tagHoldings: number, rows: number): Promise<boolean> {
    const all = await this.allHoldingCount();
    return tagHoldings === 0 || (rows * all) / tagHoldings > tagHoldings;
  }

  /** The tag's holdings above zero, kept in tag_stats. */
  private async tagHoldingCount(tagId: number): Promise<number> {
    const [row] = await this.db.query<{ holding_count: number | string }>(
      prepared(sql`SELECT holding_count FROM tag_stats WHERE tag_id = ${tagId}`),
    );
    return Number(row?.holding_count ?? 0);
  }

  /**
   * Everyone's holdings above zero (the kept token_holders, one row per token), for the choice
   * above only: read again when older than ALL_HOLDINGS_MAX_AGE_MS, since a sum over every token
   * on every page would grow with the tokens a chain follower discovers, and the choice does not
   * need it exact.
   */
  private async allHoldingCount(): Promise<number> {
    const now = Date.now();
    if (this.allHoldings === undefined || now - this.allHoldings.at > ALL_HOLDINGS_MAX_AGE_MS) {
      const [row] = await this.db.query<{ everyone: number | string | null }>(
        sql`SELECT SUM(holders) AS everyone FROM token_holders`,
      );
      this.allHoldings = { count: Number(row?.everyone ?? 0), at: now };
    }
    return this.allHoldings.count;
  }
}

/** How long the sum of every token's holders is used for choosing how to read a tag's page. */
const ALL_HOLDINGS_MAX_AGE_MS = 10_000;

/** The scope when a real tag is the only filter. */
function tagAlone(filters: HoldingFilters): Extract<TagScope, { kind: 'tag' }> | undefined {
  const others = filters.chain ?? filters.address ?? filters.tokenAddress;
  return others === undefined && filters.scope?.kind === 'tag' ? filters.scope : undefined;
}

function whereClause(filters: HoldingFilters): SqlFragment {
  const conditions = [POSITIVE];
  if (filters.chain !== undefined) conditions.push(sql`h.chain = ${filters.chain}`);
  if (filters.tokenAddress !== undefined) conditions.push(sql`h.token_address = ${filters.tokenAddress}`);
  if (filters.address !== undefined) conditions.push(sql`h.address IN (${list(filters.address)})`);
  if (filters.scope !== undefined) conditions.push(sql`h.address IN (${addressSet(filters.scope)})`);
  return and(conditions);
}
