import { Injectable, PipeTransform } from '@nestjs/common';
import { ApiError } from '../../core/errors';
import { isValidTag, TAG_RULE } from '../../core/tags/tag-rules';

/**
 * The tag rules for every `:tag` path parameter (GET, POST and DELETE). It checks the format only:
 * the 50-tag cap depends on what is stored, so it is enforced inside the write transaction
 * (TagsRepository.assign), where concurrent requests cannot slip past it.
 */
@Injectable()
export class TagValidationPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!isValidTag(value))
      throw new ApiError('INVALID_TAG', `"${value.slice(0, 100)}" is not a valid tag. ${TAG_RULE}`, [
        { tag: value.slice(0, 100) },
      ]);
    return value;
  }
}
