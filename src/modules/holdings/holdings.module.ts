import { Module } from '@nestjs/common';
import { TagsModule } from '../tags/tags.module';
import { HoldingsController } from './holdings.controller';
import { HoldingsRepository } from './holdings.repository';
import { HoldingsService } from './holdings.service';

@Module({
  imports: [TagsModule],
  controllers: [HoldingsController],
  providers: [HoldingsRepository, HoldingsService],
})
export class HoldingsModule {}
