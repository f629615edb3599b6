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
    const filters: HoldingFilters = listFilters(query);
    const offset = (query.page - 1) * query.per_page;
    // A real tag's page reads its kept rows, and finds the tag, in one statement.
    const found = await this.tagScopes.read(
      accountId,
      { tag: query.tag, address: filters.address },
      (tag) => this.holdings.tagPage(tag, filters, offset, query.per_page),
      (scope) => this.holdings.page({ ...filters, scope }, offset, query.per_page),
    );
    return new OffsetPage(
      found.rows.map((row) => toTokenHolding(row)),
      query.page,
      query.per_page,
      found.total,
    );
  }
}
