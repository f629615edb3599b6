import { Injectable } from '@nestjs/common';
import { ChainRow, ChainsRepository } from './chains.repository';
import { ChainDto, ExplorerDto } from './dto/chain.dto';

@Injectable()
export class ChainsService {
  constructor(private readonly chains: ChainsRepository) {}

  async list(): Promise<ChainDto[]> {
    return (await this.chains.list()).map(toChain);
  }
}

function toChain(row: ChainRow): ChainDto {
  return {
    chain: row.chain,
    chainId: Number(row.chain_id),
    name: row.name,
    icon_url: row.icon_url,
    explorers: JSON.parse(row.explorers) as ExplorerDto[],
  };
}
