import { Injectable } from '@nestjs/common';
import { OffsetPage } from '../../http/paging/paging';
import { TagScopeService } from '../tags/tag-scope.service';
import { listFilters } from '../../core/addresses/address-filters';
import { TokenHoldingDto, toTokenHolding } from './dto/token-holding.dto';
import { TokenHoldingsQueryDto } from './dto/token-holdings-query.dto';
import { HoldingFilters, HoldingRow, HoldingsRepository } from './holdings.repository';

@Injectable()
export class HoldingsService {
  constructor(
    private readonly holdings: HoldingsRepository,
    private readonly tagScopes: TagScopeService,
  ) {}

  async page(accountId: number, query: TokenHoldingsQueryDto): Promise<OffsetPage<TokenHoldingDto>> {
    const filters: HoldingFilters = {
      ...listFilters(query),
      scope: query.tag === undefined ? undefined : await this.tagScopes.resolve(accountId, query.tag),
    };
    const [total, rows] = await Promise.all([
      this.holdings.count(filters),
      this.holdings.page(filters, (query.page - 1) * query.per_page, query.per_page),
    ]);
    const holders = await this.holderCounts(rows);
    const items = rows.map((row) => toTokenHolding(row, holders.get(tokenKey(row)) ?? 0));
    return new OffsetPage(items, query.page, query.per_page, total);
  }

  /** One count per token of the page rather than per row: a page of one token's holders asks once. */
  private async holderCounts(rows: readonly HoldingRow[]): Promise<Map<string, number>> {
    const tokens = new Map(rows.map((row) => [tokenKey(row), { chain: row.chain, token_address: row.token_address }]));
    const counts = await this.holdings.holderCounts([...tokens.values()]);
    return new Map(counts.map((count) => [tokenKey(count), count.holders]));
  }
}

function tokenKey(token: { chain: string; token_address: string }): string {
  return `${token.chain} ${token.token_address}`;
}
