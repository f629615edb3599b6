import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { pathParameter } from '../../http/validation/path-params';
import { ApiErrors } from '../../http/docs/api-docs';
import { AccountId } from '../../http/auth/auth';
import { PageAnswer, Paged, Pager } from '../../http/paging/paged';
import { TransactionDto } from './dto/transaction.dto';
import { TransactionsQueryDto } from './dto/transactions-query.dto';
import { TransactionsService } from './transactions.service';

/**
 * `:id`: a transaction's id as the path spells it. One that names no transaction is
 * TRANSACTION_NOT_FOUND, one Express cannot percent-decode included: no transaction has such an id.
 */
const TransactionIdParam = (): ParameterDecorator =>
  pathParameter({
    name: 'id',
    code: 'TRANSACTION_NOT_FOUND',
    docs: {
      description:
        "The transaction's `id`, as lists and webhook payloads show it (percent-encoded in the path where it needs to be).",
      example: 'ethereum:0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060:native',
    },
  });

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

  @Get(':id')
  @ApiOperation({
    summary: 'Retrieve a transaction',
    description:
      'One transfer by its `id`, as `GET /v2/transactions` lists it: to look again at one a webhook announced, ' +
      'or to learn that a reorganisation removed it (404).',
  })
  @ApiOkResponse({ type: TransactionDto, description: 'The transaction.' })
  @ApiErrors('TRANSACTION_NOT_FOUND', 'INVALID_QUERY')
  get(@TransactionIdParam() id: string): Promise<TransactionDto> {
    return this.transactions.get(id);
  }
}
