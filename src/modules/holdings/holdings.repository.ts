import { Injectable } from '@nestjs/common';
import { ChainId } from '../../core/chains/chain-ids';
import { addressSet } from '../../database/address-sets';
import { Db } from '../../database/db.service';
import {
  and,
  join,
  list,
  pageBesideTotal,
  pageSize,
  prepared,
  raw,
  splitPage,
  sql,
  SqlFragment,
} from '../../database/sql';
import { NamedTag, TagScope } from '../../core/tags/tag-scope';
import { binaryOrder } from '../../core/text/binary-order';

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

/** The list's order, applied again outside a `pageBesideTotal`. */
const LIST_ORDER = raw('page.chain, page.token_address, page.address');

@Injectable()
export class HoldingsRepository {
  constructor(private readonly db: Db) {}

  /**
   * The page and the total, for any filters but a real tag's without an address (`tagPage`), in
   * one statement (one round trip and one pooled connection; bench/README change 64). Without an
   * address or a tag the total is the kept holder counts' sum (keptTotal), otherwise a count of
   * the holdings the filters select.
   */
  async page(filters: HoldingFilters, offset: number, limit: number): Promise<HoldingsPage> {
    const where = whereClause(filters);
    const oneToken = filters.tokenAddress !== undefined && filters.chain === undefined && filters.address === undefined;
    const page = withTokens(
      oneToken
        ? await this.tokenPageKeys(filters, filters.tokenAddress!, offset, limit)
        : sql`SELECT h.chain, h.token_address, h.address FROM holdings h WHERE ${where}
              ORDER BY h.chain, h.token_address, h.address LIMIT ${pageSize(limit)} OFFSET ${offset}`,
    );
    const total =
      filters.address === undefined && filters.scope === undefined
        ? keptTotal(filters)
        : sql`SELECT COUNT(*) FROM holdings h WHERE ${where}`;
    const statement = pageBesideTotal(sql`SELECT (${total}) AS total`, page, LIST_ORDER);
    // Kept prepared unless an address set is in it (its best plan depends on the set's size) or
    // its text depends on the chains a token's page spans.
    const found = await this.db.query<HoldingRow & { total: number | string }>(
      filters.scope === undefined && !oneToken ? prepared(statement) : statement,
    );
    return splitPage(found, 'chain')!;
  }

  /**
   * A page of a tag's holdings, with or without a chain or token, and their total, in one
   * statement that also finds the tag by its name (`NamedTag`): undefined when the account has no
   * such tag. The page's keys come from tag_holdings (the members' holdings above zero, in list
   * order), so a page costs its own rows whatever else is held; the total is the tag's
   * holding_count in tag_stats, or the count of its tag_holdings rows for that chain or token.
   * One round trip rather than two: under load each statement is a wake-up of a PostgreSQL
   * backend and of the service (bench/README.md, changes 24 and 61).
   */
  async tagPage(
    tag: NamedTag,
    filters: Pick<HoldingFilters, 'chain' | 'tokenAddress'>,
    offset: number,
    limit: number,
  ): Promise<HoldingsPage | undefined> {
    const tagId = sql`(SELECT id FROM tags WHERE account_id = ${tag.accountId} AND name = ${tag.name})`;
    const conditions = [sql`tag_id = ${tagId}`];
    if (filters.chain !== undefined) conditions.push(sql`chain = ${filters.chain}`);
    if (filters.tokenAddress !== undefined) conditions.push(sql`token_address = ${filters.tokenAddress}`);
    const total =
      conditions.length === 1
        ? sql`SELECT holding_count FROM tag_stats WHERE tag_id = ${tagId}`
        : sql`SELECT COUNT(*) FROM tag_holdings WHERE ${and(conditions)}`;
    const keys = sql`SELECT chain, token_address, address FROM tag_holdings WHERE ${and(conditions)}
                     ORDER BY chain, token_address, address LIMIT ${pageSize(limit)} OFFSET ${offset}`;
    // No row when there is no such tag.
    const found = await this.db.query<HoldingRow & { total: number | string }>(
      prepared(
        pageBesideTotal(
          sql`SELECT COALESCE((${total}), 0) AS total FROM tag_stats WHERE tag_id = ${tagId}`,
          withTokens(keys),
          LIST_ORDER,
        ),
      ),
    );
    return splitPage(found, 'chain');
  }

  /**
   * The keys of a page of one token over every chain. The list is in chain order and each
   * chain's holdings of the token are a range of holdings_positive (chain, token_address,
   * address) whose length token_holders keeps: so the chains a page spans, and where it starts in
   * the first of them, are known before reading, and only those ranges are read. Read with the
   * token as a filter, the index was walked from its start (for a token held by few, to its end:
   * 133 ms at 300,000 holdings; bench/README change 43). With the reserved tag's set filtering
   * the ranges, positions are not known: each chain's range is read up to the page's end.
   */
  private async tokenPageKeys(
    filters: HoldingFilters,
    tokenAddress: string,
    offset: number,
    limit: number,
  ): Promise<SqlFragment> {
    const found = await this.db.query<{ chain: string; holders: number | string }>(
      prepared(sql`SELECT chain, holders FROM token_holders WHERE token_address = ${tokenAddress} AND holders > 0`),
    );
    const held = [...found].sort((a, b) => binaryOrder(a.chain, b.chain));
    const range = (chain: string, take: number, skip: number) =>
      sql`SELECT * FROM (SELECT h.chain, h.token_address, h.address FROM holdings h
          WHERE ${whereClause({ ...filters, chain: chain as ChainId })}
          ORDER BY h.chain, h.token_address, h.address LIMIT ${take} OFFSET ${skip}) AS c`;
    const ranges: SqlFragment[] = [];
    let rest = offset;
    if (filters.scope === undefined) {
      let start = 0;
      for (const { chain, holders } of held) {
        const end = start + Number(holders);
        if (end > offset && start < offset + limit) ranges.push(range(chain, limit, Math.max(0, offset - start)));
        start = end;
      }
      rest = 0;
    } else {
      for (const { chain } of held) ranges.push(range(chain, offset + limit, 0));
    }
    const rows =
      ranges.length === 0
        ? sql`SELECT h.chain, h.token_address, h.address FROM holdings h WHERE 1 = 0`
        : sql`SELECT h.chain, h.token_address, h.address FROM (${join(ranges, ' UNION ALL ')}) AS h`;
    return sql`${rows} ORDER BY h.chain, h.token_address, h.address LIMIT ${pageSize(limit)} OFFSET ${rest}`;
  }
}

/**
 * The rows of the holdings whose keys `keys` selects, in the list order chain, token_address,
 * address (the primary key's, so pages are range scans), each with its token, latest price and
 * kept holder count.
 */
function withTokens(keys: SqlFragment): SqlFragment {
  return sql`SELECT h.chain, h.address, h.token_address, h.balance, h.updated_at, d.decimals, t.name, t.symbol, t.icon_url,
       (SELECT p.usd FROM prices p WHERE p.token_id = d.token_id ORDER BY p.at DESC LIMIT 1) AS usd,
       COALESCE(th.holders, 0) AS holders
     FROM (${keys}) k
     JOIN holdings h ON h.chain = k.chain AND h.token_address = k.token_address AND h.address = k.address
     JOIN token_deployments d ON d.chain = h.chain AND d.address = h.token_address
     JOIN tokens t ON t.id = d.token_id
     LEFT JOIN token_holders th ON th.chain = h.chain AND th.token_address = h.token_address
     ORDER BY h.chain, h.token_address, h.address`;
}

/**
 * How many holdings above zero a chain, a token address, both or neither has: the sum of the kept
 * token_holders rows (one per token deployment held), so the list's total costs O(tokens) rather
 * than a count of every holding (30 ms for 300,000 at 1M transactions; bench/README change 40).
 */
function keptTotal(filters: HoldingFilters): SqlFragment {
  const conditions: SqlFragment[] = [];
  if (filters.chain !== undefined) conditions.push(sql`chain = ${filters.chain}`);
  if (filters.tokenAddress !== undefined) conditions.push(sql`token_address = ${filters.tokenAddress}`);
  return sql`SELECT COALESCE(SUM(holders), 0) FROM token_holders WHERE ${and(conditions)}`;
}

function whereClause(filters: HoldingFilters): SqlFragment {
  const conditions = [POSITIVE];
  if (filters.chain !== undefined) conditions.push(sql`h.chain = ${filters.chain}`);
  if (filters.tokenAddress !== undefined) conditions.push(sql`h.token_address = ${filters.tokenAddress}`);
  if (filters.address !== undefined) conditions.push(sql`h.address IN (${list(filters.address)})`);
  if (filters.scope !== undefined) conditions.push(sql`h.address IN (${addressSet(filters.scope)})`);
  return and(conditions);
}
