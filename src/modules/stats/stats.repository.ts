import { Injectable } from '@nestjs/common';
import { Db, type Sql } from '../../database/db.service';
import { addressSet } from '../../database/address-sets';
import { type Drift, findDrift, rebuildAggregates } from '../aggregates/aggregates.service';
import { bigSum, filterOnly, inTexts, joinedText, textTable } from '../../database/dialect';
import { addressChunks, prepared, raw, sql, SqlFragment } from '../../database/sql';
import { NamedTag, TagScope } from '../../core/tags/tag-scope';
import { type MemberVersion, ReservedSetCounts } from './reserved-set-counts';

/** The reserved tag `0`'s scope: an account's tracked addresses without a tag. */
type UntaggedScope = Extract<TagScope, { kind: 'untagged' }>;

/** Balances summed per token deployment, with the token's latest USD price (as exact decimal text). */
export interface DeploymentTotal {
  balance: string;
  decimals: number;
  usd: string | undefined;
}

/** SQL conditions on an address column (named by the code, never input): it is one of the members, or it is not. */
interface Membership {
  is(column: string): SqlFragment;
  isNot(column: string): SqlFragment;
}

interface Counts {
  token_holding_count: number;
  txn_count: number;
}

/** An address's kept counts, its balances per token deployment, and the account's view of it. */
export type AddressCounts = Counts & { totals: DeploymentTotal[]; tracked: boolean; tags: string[] };

type AddressRow = CountRow & NullableTotalRow & { address: string; tracked: number | string; tags: string | null };

/**
 * Stats of one address or of a tag's address set, read from the kept aggregates
 * (src/modules/aggregates/) in O(tokens of the address or tag): counts from one row, USD from
 * the balance sums per token times each token's latest price, so prices never touch what is kept.
 *
 * The reserved tag's set (tracked addresses without a tag) has no kept aggregates of its own: its
 * members change with every tag assignment of the account. Its counts are summed from its members'
 * kept rows (countsForSet, which remembers what it read of their histories: ReservedSetCounts), its
 * balances from their holdings. Holdings with a zero balance are not counted. countsForScope
 * computes the counts of any set from the data: the reference SQL the tests hold the served stats to.
 *
 * A transaction counts once even when both ends are members. The reference counts it with the
 * ones the members sent, or with the ones they received from a non-member. Each half reads one
 * index (transactions_by_sender, transactions_by_recipient) for just the members' rows, and those
 * indexes carry the other end, so neither half touches the table (migration 1763700000010).
 * Written as `from_address … OR to_address …`, the count made PostgreSQL read every transaction.
 * The counts share one statement: a round trip each cost more than the counting for most addresses.
 */
@Injectable()
export class StatsRepository {
  /** What the reserved tag's counts remember of each account's set between requests. */
  private readonly reserved = new ReservedSetCounts();

  constructor(private readonly db: Db) {}

  /** How the kept aggregates differ from the reference computation (none: exact). */
  drift(): Promise<Drift[]> {
    return findDrift(this.db);
  }

  /** Rewrites every kept aggregate from the reference computation, in one transaction. */
  rebuild(): Promise<void> {
    return this.db.transaction((tx) => rebuildAggregates(tx));
  }

  /**
   * An address's kept counts and its holdings above zero, one per token deployment with the
   * token's latest price, and whether the account tracks it with which tags (`listedTags`): one
   * statement, so a request wakes one backend once and holds one pooled connection. One row per
   * holding, each carrying the counts and the tags, or one row without a holding.
   */
  async forAddress(address: string, accountId: number): Promise<AddressCounts> {
    const rows = await this.addressRows(sql`(SELECT ${address} AS address) a`, sql`${address}`, accountId);
    return toAddressCounts(rows);
  }

  /**
   * forAddress for up to a hundred addresses in one statement (`GET /v2/addresses?address=`): the
   * same figures for each, by address. Not kept prepared: the addresses' rows are looked up in
   * tables a follower or a tag load may be filling (see `prepared`).
   */
  async forAddresses(addresses: readonly string[], accountId: number): Promise<Map<string, AddressCounts>> {
    const table = textTable(this.db.dialect, addresses, 'a', 'address');
    const rows = await this.addressRows(table, raw('a.address'), accountId, false);
    const byAddress = new Map<string, AddressRow[]>();
    for (const row of rows) {
      const held = byAddress.get(row.address);
      if (held === undefined) byAddress.set(row.address, [row]);
      else held.push(row);
    }
    return new Map([...byAddress].map(([address, held]) => [address, toAddressCounts(held)]));
  }

  /**
   * One row per holding above zero of each address of `from` (a FROM item `a` of one column,
   * `address`), each carrying the address's kept counts and the account's tags of it, or one row
   * without a holding. `address` is what the tags and the tracked row are looked up by: for one
   * address its bound value, so that SQLite runs those lookups once rather than once a holding (it
   * plans `a.address` as a correlated subquery: 46 µs a statement against 39 for an address with a
   * few holdings); for many, `a.address`.
   */
  private addressRows(
    from: SqlFragment,
    address: SqlFragment,
    accountId: number,
    keepPrepared = true,
  ): Promise<AddressRow[]> {
    const statement = sql`SELECT a.address, s.holding_count AS holdings, s.txn_count AS transactions, h.balance, d.decimals,
              (SELECT p.usd FROM prices p WHERE p.token_id = d.token_id ORDER BY p.at DESC LIMIT 1) AS usd,
              (SELECT COUNT(*) FROM tracked_addresses tr WHERE tr.account_id = ${accountId} AND tr.address = ${address}) AS tracked,
              (SELECT ${joinedText(this.db.dialect, raw('t.name'), ',')} FROM address_tags m JOIN tags t ON t.id = m.tag_id
                WHERE m.address = ${address} AND m.account_id = ${accountId}) AS tags
          FROM ${from}
          LEFT JOIN address_stats s ON s.address = a.address
          LEFT JOIN holdings h ON h.address = a.address AND h.balance <> '0'
          LEFT JOIN token_deployments d ON d.chain = h.chain AND d.address = h.token_address`;
    return this.db.query<AddressRow>(keepPrepared ? prepared(statement) : statement);
  }

  /**
   * A real tag's kept counts and balance sums per token deployment, with latest prices, found by
   * the tag's name in the same statement (one round trip, as above): undefined when the account
   * has no such tag. Every tag has its tag_stats row from the transaction that creates it.
   */
  async forTag(tag: NamedTag): Promise<(Counts & { address_count: number; totals: DeploymentTotal[] }) | undefined> {
    const rows = await this.db.query<CountRow & { addresses: number | string } & NullableTotalRow>(
      prepared(sql`SELECT s.address_count AS addresses, s.holding_count AS holdings, s.txn_count AS transactions,
              b.balance, d.decimals,
              (SELECT p.usd FROM prices p WHERE p.token_id = d.token_id ORDER BY p.at DESC LIMIT 1) AS usd
          FROM tag_stats s
          LEFT JOIN tag_balances b ON b.tag_id = s.tag_id AND b.balance <> '0'
          LEFT JOIN token_deployments d ON d.chain = b.chain AND d.address = b.token_address
          WHERE s.tag_id = (SELECT id FROM tags WHERE account_id = ${tag.accountId} AND name = ${tag.name})`),
    );
    if (rows.length === 0) return undefined;
    return { ...toCounts(rows[0]), address_count: Number(rows[0]!.addresses), totals: totalsOf(rows) };
  }

  /**
   * The reserved tag's counts: its members' kept address_stats rows summed, less the transactions
   * between two members, which those rows count at both ends. Those are found in the members'
   * received entries (transactions_by_pair), read only for the members whose transactions may have
   * changed since this process last read the set (ReservedSetCounts): a set no write touched costs
   * one statement over its rows, not their histories. Where entries must be read, the set is read
   * again with them in one snapshot. A set too large to remember is counted whole every time.
   */
  async countsForSet(scope: UntaggedScope): Promise<Counts & { address_count: number }> {
    // A set this process has not read yet is read whole: in the snapshot straight away.
    if (this.reserved.remembers(scope.accountId)) {
      const alone = await this.reservedSet(this.db, scope);
      const plan = alone.members && this.reserved.plan(scope.accountId, alone.members);
      if (plan?.read.length === 0) return alone.counts(plan.settle(new Map()));
    }
    return this.db.snapshot(async (q) => {
      const { members, counts } = await this.reservedSet(q, scope);
      const within = addressSet(scope);
      // SQLite would otherwise look the senders up by their own index rather than read the members'
      // received entries, which carry them.
      const sender = filterOnly(q.dialect, 't.from_address');
      if (members === undefined) {
        this.reserved.forget(scope.accountId);
        const [row] = await q.query<{ n: number | string }>(
          sql`SELECT COUNT(*) AS n FROM transactions t WHERE t.to_address IN (${within})
              AND ${sender} IN (${within}) AND t.from_address <> t.to_address`,
        );
        return counts(Number(row?.n ?? 0));
      }
      const plan = this.reserved.plan(scope.accountId, members);
      const read = new Map<string, number>();
      for (const chunk of addressChunks(plan.read)) {
        for (const address of chunk) read.set(address, 0);
        const found = await q.query<{ address: string; n: number | string }>(
          sql`SELECT t.to_address AS address, COUNT(*) AS n FROM transactions t
              WHERE t.to_address ${inTexts(q.dialect, chunk)} AND ${sender} IN (${within})
                AND t.from_address <> t.to_address
              GROUP BY t.to_address`,
        );
        for (const row of found) read.set(row.address, Number(row.n));
      }
      return counts(plan.settle(read));
    });
  }

  /**
   * The reserved tag's set as one row: its members' kept counts summed, and each member with its
   * address_stats version as one text (`address version,…`: a thousand rows parsed one by one
   * cost the service about a millisecond a request); no members (undefined) for a set over
   * ReservedSetCounts' limit, which is not remembered.
   */
  private async reservedSet(q: Sql, scope: UntaggedScope) {
    const member = sql`m.address || ' ' || COALESCE(s.version, 0)`;
    const [row] = await q.query<{
      addresses: number | string;
      holdings: number | string | null;
      ends: number | string | null;
      members: string | null;
    }>(
      sql`SELECT COUNT(*) AS addresses, SUM(s.holding_count) AS holdings, SUM(s.txn_count) AS ends,
            CASE WHEN COUNT(*) <= ${this.reserved.limit} THEN ${joinedText(q.dialect, member, ',')} END AS members
          FROM (${addressSet(scope)}) m LEFT JOIN address_stats s ON s.address = m.address`,
    );
    const addresses = Number(row?.addresses ?? 0);
    const members =
      addresses > this.reserved.limit
        ? undefined
        : (row?.members ?? '').split(',').flatMap((entry): MemberVersion[] => {
            if (entry === '') return [];
            const space = entry.lastIndexOf(' ');
            return [{ address: entry.slice(0, space), version: Number(entry.slice(space + 1)) }];
          });
    return {
      members,
      counts: (shared: number) => ({
        token_holding_count: Number(row?.holdings ?? 0),
        txn_count: Number(row?.ends ?? 0) - shared,
        address_count: addresses,
      }),
    };
  }

  /** Computed from the data (the reference SQL): what the tests hold the served stats to. */
  async countsForScope(scope: TagScope): Promise<Counts & { address_count: number }> {
    const members = addressSet(scope);
    const rows = await this.db.query<CountRow & { addresses: number | string }>(
      sql`SELECT ${countColumns(setOf(members))}, (SELECT COUNT(*) FROM (${members}) m) AS addresses`,
    );
    return { ...toCounts(rows[0]), address_count: Number(rows[0]?.addresses ?? 0) };
  }

  /** A set's balances per token deployment, from its members' holdings: for the reserved tag's set. */
  totalsForScope(scope: TagScope): Promise<DeploymentTotal[]> {
    return this.totals(setOf(addressSet(scope)));
  }

  /** A set's balances per token deployment (not kept prepared: its plan depends on the set's size). */
  private async totals(members: Membership): Promise<DeploymentTotal[]> {
    const statement = sql`SELECT ${bigSum(this.db.dialect, raw('h.balance'))} AS balance, d.decimals,
              (SELECT p.usd FROM prices p WHERE p.token_id = d.token_id ORDER BY p.at DESC LIMIT 1) AS usd
       FROM holdings h
       JOIN token_deployments d ON d.chain = h.chain AND d.address = h.token_address
       WHERE ${members.is('h.address')} AND h.balance <> '0'
       GROUP BY h.chain, h.token_address, d.decimals, d.token_id`;
    const rows = await this.db.query<TotalRow>(statement);
    return rows.map(toTotal);
  }
}

interface TotalRow {
  balance: string | number;
  decimals: number | string;
  usd: string | number | null;
}

/** A total's columns from a left join: all null on the row of an address or tag without any. */
interface NullableTotalRow {
  balance: string | number | null;
  decimals: number | string | null;
  usd: string | number | null;
}

function totalsOf(rows: readonly NullableTotalRow[]): DeploymentTotal[] {
  return rows.flatMap((row) =>
    row.balance === null || row.decimals === null
      ? []
      : [toTotal({ ...row, balance: row.balance, decimals: row.decimals })],
  );
}

function toTotal(row: TotalRow): DeploymentTotal {
  return {
    balance: String(row.balance),
    decimals: Number(row.decimals),
    usd: row.usd === null ? undefined : String(row.usd),
  };
}

interface CountRow {
  holdings: number | string;
  transactions: number | string;
}

/** The counts as select-list columns, so that one statement answers them all. */
function countColumns(members: Membership): SqlFragment {
  return sql`(SELECT COUNT(*) FROM holdings h WHERE ${members.is('h.address')} AND h.balance <> '0') AS holdings,
    (SELECT COUNT(*) FROM transactions t WHERE ${members.is('t.from_address')})
      + (SELECT COUNT(*) FROM transactions t WHERE ${members.is('t.to_address')} AND ${members.isNot('t.from_address')})
      AS transactions`;
}

/** An address's rows of addressRows (at least one) as its figures. */
function toAddressCounts(rows: readonly AddressRow[]): AddressCounts {
  const first = rows[0]!;
  return {
    ...toCounts(first),
    totals: totalsOf(rows),
    tracked: Number(first.tracked) > 0,
    tags: first.tags === null ? [] : first.tags.split(','),
  };
}

function toCounts(row: CountRow | undefined): Counts {
  return { token_holding_count: Number(row?.holdings ?? 0), txn_count: Number(row?.transactions ?? 0) };
}

/** The addresses a subquery selects (one column, `address`). */
function setOf(members: SqlFragment): Membership {
  return {
    is: (column) => sql`${raw(column)} IN (${members})`,
    isNot: (column) => sql`NOT EXISTS (SELECT 1 FROM (${members}) m WHERE m.address = ${raw(column)})`,
  };
}
