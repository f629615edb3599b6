import { Module } from '@nestjs/common';
import { TagPortabilityRepository } from './tag-portability.repository';
import { TagPortabilityService } from './tag-portability.service';

/**
 * Export and import of an account's tags (contract §15), without their routes: TagsModule declares
 * those and imports this module; `tags export` and `tags import` hold this module alone, so that
 * they load neither the routes, their DTOs and validation, nor the OpenAPI decorators.
 */
@Module({
  providers: [TagPortabilityRepository, TagPortabilityService],
  exports: [TagPortabilityService],
})
export class TagPortabilityModule {}
