import { Injectable } from '@nestjs/common';
import type { Sql } from '../../database/db.service';
import { CursorPage } from '../../http/paging/paging';
import { listFilters } from '../../core/addresses/address-filters';
import { TagScopeService } from '../tags/tag-scope.service';
import { CursorCodec } from '../../http/paging/cursor';
import { TransactionDto, toTransaction } from './dto/transaction.dto';
import { TransactionsQueryDto } from './dto/transactions-query.dto';
import { parseInstant } from '../../core/time/instant';
import { TransactionFilters, TransactionsRepository } from './transactions.repository';
import { ApiError } from '../../core/errors';
import { MAX_ID_LENGTH } from '../../core/records/transaction-fields';

@Injectable()
export class TransactionsService {
  private readonly cursors: CursorCodec;

  constructor(
    private readonly transactions: TransactionsRepository,
    private readonly tagScopes: TagScopeService,
  ) {
    this.cursors = new CursorCodec('transactions', (candidate) => this.transactions.cursorSecret(candidate));
  }

  async page(accountId: number, query: TransactionsQueryDto): Promise<CursorPage<TransactionDto>> {
    const filters: TransactionFilters = {
      ...listFilters(query),
      since: parseInstant(query.since),
      until: parseInstant(query.until),
      direction: query.direction,
      after: query.after === undefined ? undefined : await this.cursors.decode(query.after),
    };
    // One row more than the page tells whether another page follows. A real tag's rows: the tag is
    // found by the statement that reads its kept size.
    const rows = await this.tagScopes.read(
      accountId,
      { tag: query.tag, address: filters.address },
      (tag) => this.transactions.namedTagPage(tag, filters, query.per_page + 1),
      (scope) => this.transactions.page({ ...filters, scope }, query.per_page + 1),
    );
    const items = rows.slice(0, query.per_page).map(toTransaction);
    const last = items[items.length - 1];
    const next =
      rows.length > query.per_page && last !== undefined
        ? await this.cursors.encode({ time: last.block_time, id: last.id })
        : undefined;
    return new CursorPage(items, next, query.after === undefined);
  }

  /** The transaction with this id as the list shows it; TRANSACTION_NOT_FOUND when none has it. */
  async get(id: string): Promise<TransactionDto> {
    // No stored id is longer, or holds U+0000 (the import refuses both; PostgreSQL could not compare it).
    const [row] = id.length > MAX_ID_LENGTH || id.includes('\u0000') ? [] : await this.transactions.byId(id);
    if (row === undefined)
      throw new ApiError('TRANSACTION_NOT_FOUND', `No transaction ${JSON.stringify(id.slice(0, 200))}.`);
    return toTransaction(row);
  }

  /**
   * The transactions with these ids exactly as `GET /v2/transactions` shows them, read inside
   * `tx`: for the webhooks module, whose payloads carry them from the transaction that records them.
   */
  async shownIn(tx: Sql, ids: readonly string[]): Promise<TransactionDto[]> {
    return (await this.transactions.byIds(tx, ids)).map(toTransaction);
  }
}
