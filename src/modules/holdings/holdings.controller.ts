import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../../http/docs/api-docs';
import { AccountId } from '../../http/auth/auth';
import { PageAnswer, Paged, Pager } from '../../http/paging/paged';
import { TokenHoldingDto } from './dto/token-holding.dto';
import { TokenHoldingsQueryDto } from './dto/token-holdings-query.dto';
import { HoldingsService } from './holdings.service';

@ApiTags('token-holdings')
@Controller('v2/token-holdings')
export class HoldingsController {
  constructor(private readonly holdings: HoldingsService) {}

  @Get()
  @Paged(TokenHoldingDto, 'A page of holdings with a balance above zero.')
  @ApiOperation({
    summary: 'List token holdings',
    description:
      'Holdings with a balance above 0, ordered by chain, token_address, address. Filters combine with AND. ' +
      'Paginated by `page`; see the `Link` header.',
  })
  @ApiErrors('INVALID_QUERY', 'INVALID_ADDRESS', 'INVALID_TAG', 'TAG_NOT_FOUND')
  async list(
    @AccountId() accountId: number,
    @Query() query: TokenHoldingsQueryDto,
    @Pager() pager: PageAnswer,
  ): Promise<TokenHoldingDto[]> {
    return pager.answer(await this.holdings.page(accountId, query));
  }
}
