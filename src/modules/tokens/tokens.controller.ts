import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../../http/docs/api-docs';
import { PageAnswer, Paged, Pager } from '../../http/paging/paged';
import { TokenDto } from './dto/token.dto';
import { TokensQueryDto } from './dto/tokens-query.dto';
import { TokensService } from './tokens.service';

@ApiTags('tokens')
@Controller('v2/tokens')
export class TokensController {
  constructor(private readonly tokens: TokensService) {}

  @Get()
  @Paged(TokenDto, 'A page of tokens, by id.')
  @ApiOperation({
    summary: 'List all tokens',
    description:
      'Tokens ordered by id, with every deployment (a matching token shows all of its deployments). `chain` and `address` find the token of a contract, mint, Jetton master or coin type: `?chain=ethereum&address=0xdac1…1ec7`. Paginated by `page`; see the `Link` header.',
  })
  @ApiErrors('INVALID_ADDRESS', 'INVALID_QUERY')
  async list(@Query() query: TokensQueryDto, @Pager() pager: PageAnswer): Promise<TokenDto[]> {
    return pager.answer(await this.tokens.page(query.page, query.per_page, query));
  }
}
