import { Module } from '@nestjs/common';
import { StatsModule } from '../stats/stats.module';
import { TagPortabilityController } from './tag-portability.controller';
import { TagPortabilityModule } from './tag-portability.module';
import { TagScopeService } from './tag-scope.service';
import { TagsController } from './tags.controller';
import { TagsRepository } from './tags.repository';
import { TagsService } from './tags.service';

@Module({
  imports: [StatsModule, TagPortabilityModule],
  controllers: [TagsController, TagPortabilityController],
  providers: [TagsRepository, TagScopeService, TagsService],
  exports: [TagScopeService, TagsService],
})
export class TagsModule {}
