import type { ChainId } from '../../../core/chains/chain-ids';
import {
  AddressFilter,
  AfterCursor,
  Beside,
  ChainFilter,
  OneOf,
  SinceFilter,
  TagFilter,
  TokenAddressFilter,
  UntilFilter,
} from '../../../http/validation/query-params';
import { PerPageQueryDto } from '../../../http/validation/query.dto';

export const DIRECTIONS = ['sent', 'received'] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** Filters of GET /v2/transactions (combined with AND) and its keyset paging. */
export class TransactionsQueryDto extends PerPageQueryDto {
  @AddressFilter('Only transactions this address sent or received (any accepted spelling).')
  address?: string;

  @ChainFilter('Only transactions on this chain.')
  chain?: ChainId;

  @TokenAddressFilter('Only transfers of this token')
  token_address?: string;

  @TagFilter('Only transactions sent or received by an address carrying this tag')
  tag?: string;

  @OneOf(
    DIRECTIONS,
    'With `address`, only the transactions it sent (it is `from_address`) or received (`to_address`); with `tag` alone, those a member sent or received. A transfer to oneself is both.',
  )
  @Beside(['address', 'tag'])
  direction?: Direction;

  @SinceFilter('Only transactions with a block time', '2024-05-01T00:00:00Z')
  since?: string;

  @UntilFilter('Only transactions with a block time', '2024-06-01T00:00:00Z')
  until?: string;

  @AfterCursor('WyIyMDI0LTA1LTAxVDEyOjAwOjAwLjAwMFoiLCJ0eC0xIl0.0123456789abcdefABCDEF')
  after?: string;
}
