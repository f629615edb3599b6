import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../../http/docs/api-docs';
import { PageAnswer, Paged, Pager } from '../../http/paging/paged';
import { PageQueryDto } from '../../http/validation/query.dto';
import { TokenDto } from './dto/token.dto';
import { TokensService } from './tokens.service';

@ApiTags('tokens')
@Controller('v2/tokens')
export class TokensController {
  constructor(private readonly tokens: TokensService) {}

  @Get()
  @Paged(TokenDto, 'A page of tokens, by id.')
  @ApiOperation({
    summary: 'List all tokens',
    description: 'Tokens ordered by id, with every deployment. Paginated by `page`; see the `Link` header.',
  })
  @ApiErrors('INVALID_QUERY')
  async list(@Query() query: PageQueryDto, @Pager() pager: PageAnswer): Promise<TokenDto[]> {
    return pager.answer(await this.tokens.page(query.page, query.per_page));
  }
}
