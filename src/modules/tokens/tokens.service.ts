import { Injectable } from '@nestjs/common';
import { tokenAddressFilter } from '../../core/addresses/address-filters';
import type { ChainId } from '../../core/chains/chain-ids';
import { OffsetPage } from '../../http/paging/paging';
import { DeploymentDto, toDeployment, toToken, TokenDto } from './dto/token.dto';
import { TokensRepository } from './tokens.repository';

@Injectable()
export class TokensService {
  constructor(private readonly tokens: TokensRepository) {}

  /**
   * A page of the tokens; `chain` and `address` (any accepted spelling, else INVALID_ADDRESS) keep
   * those deployed there.
   */
  async page(
    page: number,
    perPage: number,
    filters: { chain?: ChainId; address?: string } = {},
  ): Promise<OffsetPage<TokenDto>> {
    const { chain } = filters;
    const address = filters.address === undefined ? undefined : tokenAddressFilter(filters.address, chain, 'address');
    const { total, rows } = await this.tokens.page((page - 1) * perPage, perPage, { chain, address });
    const deployments = new Map<string, DeploymentDto[]>();
    for (const row of await this.tokens.deploymentsOf(rows.map((token) => token.id))) {
      const list = deployments.get(row.token_id) ?? [];
      list.push(toDeployment(row));
      deployments.set(row.token_id, list);
    }
    const items = rows.map((token) => toToken(token, deployments.get(token.id) ?? []));
    return new OffsetPage(items, page, perPage, total);
  }
}
