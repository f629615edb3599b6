import { Injectable } from '@nestjs/common';
import { TagScope } from '../../core/tags/tag-scope';
import { StatsRepository } from './stats.repository';
import { StatsCache } from './stats-cache';
import { totalUsd } from '../../core/money/valuation';

export interface AddressStats {
  token_holding_count: number;
  txn_count: number;
  total_value_usd: number;
}

export interface TagStats extends AddressStats {
  address_count: number;
}

/** Addresses and tags whose stats are kept (a few hundred bytes each). */
const CACHED_ADDRESSES = 20_000;
const CACHED_TAGS = 10_000;

/**
 * Contract §5: counts of non-zero holdings and of transactions, and the USD value of the holdings.
 * An address's stats are kept until the data changes, a real tag's until its addresses or the
 * data change (StatsCache); the reserved tag's are computed on every request.
 */
@Injectable()
export class StatsService {
  private readonly addressStats = new StatsCache<AddressStats>(CACHED_ADDRESSES);
  private readonly tagStats = new StatsCache<TagStats>(CACHED_TAGS);

  constructor(private readonly stats: StatsRepository) {}

  async forAddress(address: string): Promise<AddressStats> {
    const key = `${address} ${await this.stats.dataRevision()}`;
    return { ...(await this.addressStats.get(key, () => this.computeForAddress(address))) };
  }

  private async computeForAddress(address: string): Promise<AddressStats> {
    const [counts, totals] = await Promise.all([
      this.stats.countsForAddress(address),
      this.stats.totalsForAddress(address),
    ]);
    return { ...counts, total_value_usd: totalUsd(totals) };
  }

  async forScope(scope: TagScope): Promise<TagStats> {
    if (scope.kind === 'untagged') return this.compute(scope);
    const key = `${scope.tagId}:${scope.revision}:${await this.stats.dataRevision()}`;
    return { ...(await this.tagStats.get(key, () => this.compute(scope))) };
  }

  private async compute(scope: TagScope): Promise<TagStats> {
    const [counts, totals] = await Promise.all([this.stats.countsForScope(scope), this.stats.totalsForScope(scope)]);
    return {
      address_count: counts.address_count,
      token_holding_count: counts.token_holding_count,
      txn_count: counts.txn_count,
      total_value_usd: totalUsd(totals),
    };
  }
}
