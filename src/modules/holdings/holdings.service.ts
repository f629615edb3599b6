import { Injectable } from '@nestjs/common';
import { OffsetPage } from '../../http/paging/paging';
import { TagScopeService } from '../tags/tag-scope.service';
import { listFilters } from '../../core/addresses/address-filters';
import { TokenHoldingDto, toTokenHolding } from './dto/token-holding.dto';
import { TokenHoldingsQueryDto } from './dto/token-holdings-query.dto';
import { HoldingFilters, HoldingsRepository } from './holdings.repository';

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
    const { total, rows } = await this.holdings.page(filters, (query.page - 1) * query.per_page, query.per_page);
    return new OffsetPage(
      rows.map((row) => toTokenHolding(row)),
      query.page,
      query.per_page,
      total,
    );
  }
}
