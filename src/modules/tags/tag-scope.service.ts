import { Injectable } from '@nestjs/common';
import { ApiError } from '../../core/errors';
import { isValidTag, TAG_RULE, UNTAGGED } from '../../core/tags/tag-rules';
import { TagScope } from '../../core/tags/tag-scope';
import { TagsRepository } from './tags.repository';

/** Turns a tag name from a request into the calling account's TagScope. */
@Injectable()
export class TagScopeService {
  constructor(private readonly tags: TagsRepository) {}

  /** INVALID_TAG for a malformed name; TAG_NOT_FOUND when this account has no such tag. */
  async resolve(accountId: number, tag: string): Promise<TagScope> {
    if (!isValidTag(tag)) throw new ApiError('INVALID_TAG', TAG_RULE, [{ tag }]);
    if (tag === UNTAGGED) return { kind: 'untagged', accountId };
    const found = await this.tags.findTag(accountId, tag);
    if (found === undefined) throw new ApiError('TAG_NOT_FOUND', `No tag "${tag}" in this account.`);
    return { kind: 'tag', accountId, tagId: found.id, revision: found.revision };
  }
}
