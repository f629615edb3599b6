import { Injectable } from '@nestjs/common';
import { OffsetPage } from '../../http/paging/paging';
import { DeploymentDto, toDeployment, toToken, TokenDto } from './dto/token.dto';
import { TokensRepository } from './tokens.repository';

@Injectable()
export class TokensService {
  constructor(private readonly tokens: TokensRepository) {}

  async page(page: number, perPage: number): Promise<OffsetPage<TokenDto>> {
    const { total, rows } = await this.tokens.page((page - 1) * perPage, perPage);
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
