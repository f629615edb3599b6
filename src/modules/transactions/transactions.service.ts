import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { ApiError } from '../../core/errors';
import type { Sql } from '../../database/db.service';
import { CursorPage } from '../../http/paging/paging';
import { listFilters } from '../../core/addresses/address-filters';
import { TagScopeService } from '../tags/tag-scope.service';
import { CursorPosition, decodeCursor, encodeCursor } from './cursor';
import { TransactionDto, toTransaction } from './dto/transaction.dto';
import { TransactionsQueryDto } from './dto/transactions-query.dto';
import { parseInstant } from '../../core/time/instant';
import { TransactionFilters, TransactionsRepository } from './transactions.repository';

const SECRET_BYTES = 32;

@Injectable()
export class TransactionsService {
  /** Loaded from the database once; a failed load is retried by the next request. */
  private secret: Promise<Buffer> | undefined;

  constructor(
    private readonly transactions: TransactionsRepository,
    private readonly tagScopes: TagScopeService,
  ) {}

  async page(accountId: number, query: TransactionsQueryDto): Promise<CursorPage<TransactionDto>> {
    const filters: TransactionFilters = {
      ...listFilters(query),
      since: query.since === undefined ? undefined : parseInstant(query.since),
      after: query.after === undefined ? undefined : await this.position(query.after),
      scope: query.tag === undefined ? undefined : await this.tagScopes.resolve(accountId, query.tag),
    };
    // One row more than the page tells whether another page follows.
    const rows = await this.transactions.page(filters, query.per_page + 1);
    const items = rows.slice(0, query.per_page).map(toTransaction);
    const last = items[items.length - 1];
    const next =
      rows.length > query.per_page && last !== undefined
        ? encodeCursor({ blockTime: last.block_time, id: last.id }, await this.cursorSecret())
        : undefined;
    return new CursorPage(items, next, query.after === undefined);
  }

  /**
   * The transactions with these ids exactly as `GET /v2/transactions` shows them, read inside
   * `tx`: for the webhooks module, whose payloads carry them from the transaction that records them.
   */
  async shownIn(tx: Sql, ids: readonly string[]): Promise<TransactionDto[]> {
    return (await this.transactions.byIds(tx, ids)).map(toTransaction);
  }

  private async position(cursor: string): Promise<CursorPosition> {
    const position = decodeCursor(cursor, await this.cursorSecret());
    if (position === undefined) {
      throw new ApiError('INVALID_QUERY', 'after is not a cursor this server handed out; follow the Link header.', [
        { parameter: 'after', message: 'invalid cursor' },
      ]);
    }
    return position;
  }

  private cursorSecret(): Promise<Buffer> {
    this.secret ??= this.transactions.cursorSecret(randomBytes(SECRET_BYTES).toString('hex')).then(
      (hex) => Buffer.from(hex, 'hex'),
      (error: unknown) => {
        this.secret = undefined;
        throw error;
      },
    );
    return this.secret;
  }
}
