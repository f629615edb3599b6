import { Module } from '@nestjs/common';
import { StatsModule } from '../stats/stats.module';
import { TagPortabilityController } from './tag-portability.controller';
import { TagPortabilityRepository } from './tag-portability.repository';
import { TagPortabilityService } from './tag-portability.service';
import { TagScopeService } from './tag-scope.service';
import { TagsController } from './tags.controller';
import { TagsRepository } from './tags.repository';
import { TagsService } from './tags.service';

@Module({
  imports: [StatsModule],
  controllers: [TagsController, TagPortabilityController],
  providers: [TagsRepository, TagScopeService, TagsService, TagPortabilityRepository, TagPortabilityService],
  exports: [TagScopeService, TagsService, TagPortabilityService],
})
export class TagsModule {}
