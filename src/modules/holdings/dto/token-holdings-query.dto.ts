import type { ChainId } from '../../../core/chains/chain-ids';
import { AddressFilter, ChainFilter, TagFilter, TokenAddressFilter } from '../../../http/validation/query-params';
import { PageQueryDto } from '../../../http/validation/query.dto';

/** Filters of GET /v2/token-holdings; they combine with AND. */
export class TokenHoldingsQueryDto extends PageQueryDto {
  @TagFilter('Only holdings of the addresses carrying this tag')
  tag?: string;

  @AddressFilter('Only holdings of this address (any accepted spelling; matched in canonical form).')
  address?: string;

  @ChainFilter('Only holdings on this chain.')
  chain?: ChainId;

  @TokenAddressFilter('Only holdings of this token')
  token_address?: string;
}
