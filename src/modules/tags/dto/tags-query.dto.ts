import { applyDecorators } from '@nestjs/common';
import { Matches } from 'class-validator';
import { OptionalString } from '../../../http/validation/query-params';
import { PageQueryDto } from '../../../http/validation/query.dto';

/** What a tag name may start with: the characters of tag names, 1 to 64 of them. */
export const TAG_PREFIX_FORMAT = /^[a-z0-9_]{1,64}$/;

/** Query of GET /v2/tags. */
export class TagsQueryDto extends PageQueryDto {
  @applyDecorators(
    OptionalString({
      description:
        'Only the tags whose name starts with this (1-64 characters of a-z, 0-9 and "_"; "_" is itself, not a wildcard).',
      example: 'exchange_',
    }),
    Matches(TAG_PREFIX_FORMAT, { message: '$property must be 1-64 characters of a-z, 0-9 and "_"' }),
  )
  prefix?: string;
}
