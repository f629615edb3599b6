import { Injectable } from '@nestjs/common';
import { ChainsRepository } from './chains.repository';
import { ChainDto, toChain } from './dto/chain.dto';

@Injectable()
export class ChainsService {
  constructor(private readonly chains: ChainsRepository) {}

  async list(): Promise<ChainDto[]> {
    return (await this.chains.list()).map(toChain);
  }
}
