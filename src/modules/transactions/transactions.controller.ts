import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../../http/docs/api-docs';
import { AccountId } from '../../http/auth/auth';
import { PageAnswer, Paged, Pager } from '../../http/paging/paged';
import { TransactionDto } from './dto/transaction.dto';
import { TransactionsQueryDto } from './dto/transactions-query.dto';
import { TransactionsService } from './transactions.service';

@ApiTags('transactions')
@Controller('v2/transactions')
export class TransactionsController {
  constructor(private readonly transactions: TransactionsService) {}

  @Get()
  @Paged(TransactionDto, 'A page of transfers, newest first; `Link` names the next page by cursor.', 'cursor')
  @ApiOperation({
    summary: 'List transactions',
    description:
      'Newest first (block_time, then id, descending). Filters combine with AND. Keyset paging: the `Link` ' +
      'header has `next` while more rows follow and `first` on every page but the first; rows added meanwhile ' +
      'never shift a page.',
  })
  @ApiErrors('INVALID_QUERY', 'INVALID_ADDRESS', 'INVALID_TAG', 'TAG_NOT_FOUND')
  async list(
    @AccountId() accountId: number,
    @Query() query: TransactionsQueryDto,
    @Pager() pager: PageAnswer,
  ): Promise<TransactionDto[]> {
    return pager.answer(await this.transactions.page(accountId, query));
  }
}
