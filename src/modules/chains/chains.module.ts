import { Module } from '@nestjs/common';
import { ChainsController } from './chains.controller';
import { ChainsRepository } from './chains.repository';
import { ChainsService } from './chains.service';

@Module({
  controllers: [ChainsController],
  providers: [ChainsRepository, ChainsService],
  exports: [ChainsService],
})
export class ChainsModule {}
