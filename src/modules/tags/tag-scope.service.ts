import { Injectable } from '@nestjs/common';
import { ApiError } from '../../core/errors';
import { isValidTag, TAG_RULE, UNTAGGED } from '../../core/tags/tag-rules';
import { NamedScope, TagScope } from '../../core/tags/tag-scope';
import { TagsRepository } from './tags.repository';

/** Turns a tag name from a request into the calling account's TagScope. */
@Injectable()
export class TagScopeService {
  constructor(private readonly tags: TagsRepository) {}

  /** INVALID_TAG for a malformed name; TAG_NOT_FOUND when this account has no such tag. */
  async resolve(accountId: number, tag: string): Promise<TagScope> {
    const named = this.named(accountId, tag);
    if (named.kind === 'untagged') return named;
    const found = await this.tags.findTag(accountId, tag);
    if (found === undefined) throw this.notFound(tag);
    return { kind: 'tag', accountId, tagId: found.id, revision: found.revision };
  }

  /** INVALID_TAG for a malformed name; otherwise the reserved tag's scope, or the tag's name to look up. */
  named(accountId: number, tag: string): NamedScope {
    if (!isValidTag(tag)) throw new ApiError('INVALID_TAG', TAG_RULE, [{ tag }]);
    return tag === UNTAGGED ? { kind: 'untagged', accountId } : { kind: 'named', accountId, name: tag };
  }

  /** The error for a tag this account does not have. */
  notFound(tag: string): ApiError {
    return new ApiError('TAG_NOT_FOUND', `No tag "${tag}" in this account.`);
  }
}
