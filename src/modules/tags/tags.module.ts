import { Module } from '@nestjs/common';
import { StatsModule } from '../stats/stats.module';
import { TagScopeService } from './tag-scope.service';
import { TagsController } from './tags.controller';
import { TagsRepository } from './tags.repository';
import { TagsService } from './tags.service';

@Module({
  imports: [StatsModule],
  controllers: [TagsController],
  providers: [TagsRepository, TagScopeService, TagsService],
  exports: [TagScopeService, TagsService],
})
export class TagsModule {}
