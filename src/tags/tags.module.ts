import { Module } from '@nestjs/common';
import { TagScopeService } from './tag-scope.service';
import { TagsRepository } from './tags.repository';

@Module({
  providers: [TagsRepository, TagScopeService],
  exports: [TagScopeService],
})
export class TagsModule {}
