import { Injectable } from '@nestjs/common';
import { NamedScope } from '../../core/tags/tag-scope';
import type { Drift } from '../aggregates/aggregates.service';
import { type AddressCounts, StatsRepository } from './stats.repository';
import { totalUsd } from '../../core/money/valuation';
import { listedTags } from '../../core/tags/tag-rules';

export interface AddressStats {
  token_holding_count: number;
  txn_count: number;
  total_value_usd: number;
}

export interface TagStats extends AddressStats {
  address_count: number;
}

/** An address's stats beside the account's tags of it. */
export interface AddressView {
  stats: AddressStats;
  tags: string[];
}

/** What `stats verify` found, and whether it rewrote the aggregates. */
export interface VerifyReport {
  drift: Drift[];
  repaired: boolean;
}

/**
 * Contract §5: counts of non-zero holdings and of transactions, and the USD value of the holdings.
 * Addresses and real tags are read from the kept aggregates, exact in every committed state, so
 * nothing is cached; the reserved tag's set is summed from its members' kept rows on every request
 * (what is remembered between requests is checked against the rows read: ReservedSetCounts).
 */
@Injectable()
export class StatsService {
  constructor(private readonly stats: StatsRepository) {}

  /**
   * Compares every kept aggregate with the reference computation; with `repair`, rewrites them all
   * from it when any differs, and checks again.
   */
  async verify(repair: boolean): Promise<VerifyReport> {
    const drift = await this.stats.drift();
    if (drift.length === 0 || !repair) return { drift, repaired: false };
    await this.stats.rebuild();
    const left = await this.stats.drift();
    if (left.length > 0) throw new Error(`the aggregates still differ after the rewrite: ${JSON.stringify(left)}`);
    return { drift, repaired: true };
  }

  /** An address's stats, and the account's tags of it (`listedTags`), read together. */
  async forAddress(address: string, accountId: number): Promise<AddressView> {
    return toAddressView(await this.stats.forAddress(address, accountId));
  }

  /** forAddress for each of up to a hundred addresses (canonical), read in one statement; by address. */
  async forAddresses(addresses: readonly string[], accountId: number): Promise<Map<string, AddressView>> {
    const found = await this.stats.forAddresses(addresses, accountId);
    return new Map([...found].map(([address, counts]) => [address, toAddressView(counts)]));
  }

  /** A tag's stats: a real tag's from its kept rows (undefined when there is no such tag), the reserved tag's computed. */
  async forScope(scope: NamedScope): Promise<TagStats | undefined> {
    const found = scope.kind === 'named' ? await this.stats.forTag(scope) : await this.computedFor(scope);
    if (found === undefined) return undefined;
    const { totals, ...counts } = found;
    return {
      address_count: counts.address_count,
      token_holding_count: counts.token_holding_count,
      txn_count: counts.txn_count,
      total_value_usd: totalUsd(totals),
    };
  }

  /** The reserved tag's set has no kept aggregates of its own: its members' counts and holdings, side by side. */
  private async computedFor(scope: Extract<NamedScope, { kind: 'untagged' }>) {
    const [counts, totals] = await Promise.all([this.stats.countsForSet(scope), this.stats.totalsForScope(scope)]);
    return { ...counts, totals };
  }
}

function toAddressView(found: AddressCounts): AddressView {
  return {
    stats: {
      token_holding_count: found.token_holding_count,
      txn_count: found.txn_count,
      total_value_usd: totalUsd(found.totals),
    },
    tags: listedTags(found.tracked, found.tags),
  };
}
