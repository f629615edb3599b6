import { Injectable } from '@nestjs/common';
import { OffsetPage } from '../../http/paging/paging';
import { TagScopeService } from '../tags/tag-scope.service';
import { listFilters } from '../../core/addresses/address-filters';
import { TokenHoldingDto, toTokenHolding } from './dto/token-holding.dto';
import { TokenHoldingsQueryDto } from './dto/token-holdings-query.dto';
import { HoldingFilters, HoldingsPage, HoldingsRepository } from './holdings.repository';

@Injectable()
export class HoldingsService {
  constructor(
    private readonly holdings: HoldingsRepository,
    private readonly tagScopes: TagScopeService,
  ) {}

  async page(accountId: number, query: TokenHoldingsQueryDto): Promise<OffsetPage<TokenHoldingDto>> {
    const filters: HoldingFilters = listFilters(query);
    const offset = (query.page - 1) * query.per_page;
    const named = query.tag === undefined ? undefined : this.tagScopes.named(accountId, query.tag);
    let found: HoldingsPage;
    if (named?.kind === 'named' && filters.address === undefined) {
      // A real tag's page reads its kept rows, and finds the tag, in one statement.
      const page = await this.holdings.tagPage(named, filters, offset, query.per_page);
      if (page === undefined) throw this.tagScopes.notFound(named.name);
      found = page;
    } else {
      if (query.tag !== undefined) filters.scope = await this.tagScopes.resolve(accountId, query.tag);
      found = await this.holdings.page(filters, offset, query.per_page);
    }
    return new OffsetPage(
      found.rows.map((row) => toTokenHolding(row)),
      query.page,
      query.per_page,
      found.total,
    );
  }
}
