import type { ChainId } from '../../../core/chains/chain-ids';
import { ChainFilter, TokenAddressFilter } from '../../../http/validation/query-params';
import { PageQueryDto } from '../../../http/validation/query.dto';

/** Filters of GET /v2/tokens; they combine with AND. */
export class TokensQueryDto extends PageQueryDto {
  @ChainFilter('Only tokens with a deployment on this chain.')
  chain?: ChainId;

  @TokenAddressFilter('Only the tokens deployed at this address (on `chain`, or on any chain where it is one)')
  address?: string;
}
