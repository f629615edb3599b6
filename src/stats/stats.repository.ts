import { Injectable } from '@nestjs/common';
import { Db } from '../database/db.service';
import { bigSum } from '../database/dialect';
import { scopeAddressesSql, TagScope } from '../tags/tag-scope';

/** Balances summed per token deployment, with the token's latest USD price (as exact decimal text). */
export interface DeploymentTotal {
  balance: string;
  decimals: number;
  usd: string | undefined;
}

/** The SQL condition "this address column is one of the members". */
type Membership = (column: string) => string;

interface Counts {
  token_holding_count: number;
  txn_count: number;
}

/**
 * Stats of one address or of a tag's address set. The address set is a subquery, so a transaction
 * between two members is one row and counts once; holdings with a zero balance are not counted.
 */
@Injectable()
export class StatsRepository {
  constructor(private readonly db: Db) {}

  countsForAddress(address: string): Promise<Counts> {
    return this.counts((column) => `${column} = $1`, [address]);
  }

  totalsForAddress(address: string): Promise<DeploymentTotal[]> {
    return this.totals((column) => `${column} = $1`, [address]);
  }

  async countsForScope(scope: TagScope): Promise<Counts & { address_count: number }> {
    const members = scopeAddressesSql(scope, 1);
    const [counts, size] = await Promise.all([
      this.counts((column) => `${column} IN (${members.sql})`, members.params),
      this.db.query<{ n: number | string }>(`SELECT COUNT(*) AS n FROM (${members.sql}) m`, members.params),
    ]);
    return { ...counts, address_count: Number(size[0]?.n ?? 0) };
  }

  totalsForScope(scope: TagScope): Promise<DeploymentTotal[]> {
    const members = scopeAddressesSql(scope, 1);
    return this.totals((column) => `${column} IN (${members.sql})`, members.params);
  }

  private async counts(isMember: Membership, params: readonly unknown[]): Promise<Counts> {
    const [holdings, transactions] = await Promise.all([
      this.db.query<{ n: number | string }>(
        `SELECT COUNT(*) AS n FROM holdings WHERE ${isMember('address')} AND balance <> '0'`,
        params,
      ),
      this.db.query<{ n: number | string }>(
        `SELECT COUNT(*) AS n FROM transactions WHERE ${isMember('from_address')} OR ${isMember('to_address')}`,
        params,
      ),
    ]);
    return { token_holding_count: Number(holdings[0]?.n ?? 0), txn_count: Number(transactions[0]?.n ?? 0) };
  }

  private async totals(isMember: Membership, params: readonly unknown[]): Promise<DeploymentTotal[]> {
    const rows = await this.db.query<{ balance: string; decimals: number | string; usd: string | number | null }>(
      `SELECT ${bigSum(this.db.dialect, 'h.balance')} AS balance, d.decimals,
              (SELECT p.usd FROM prices p WHERE p.token_id = d.token_id ORDER BY p.at DESC LIMIT 1) AS usd
       FROM holdings h
       JOIN token_deployments d ON d.chain = h.chain AND d.address = h.token_address
       WHERE ${isMember('h.address')} AND h.balance <> '0'
       GROUP BY h.chain, h.token_address, d.decimals, d.token_id`,
      params,
    );
    return rows.map((row) => ({
      balance: String(row.balance),
      decimals: Number(row.decimals),
      usd: row.usd === null ? undefined : String(row.usd),
    }));
  }
}
