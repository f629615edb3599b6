import { Injectable } from '@nestjs/common';
import { ApiError } from '../../core/errors';
import { isValidTag, TAG_RULE, UNTAGGED } from '../../core/tags/tag-rules';
import { NamedScope, NamedTag, TagScope } from '../../core/tags/tag-scope';
import type { Sql } from '../../database/db.service';
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

  /**
   * For something kept by tag name (a webhook's tags), written in `tx`: INVALID_TAG for a malformed
   * name, TAG_NOT_FOUND for the first of `tags` (the reserved `0` aside) this account has no tag
   * of; the others are held until `tx` ends, so none is renamed or deleted between this check and
   * the commit (a rename that committed first is seen: its old name is not found).
   */
  async holdTags(tx: Sql, accountId: number, tags: readonly string[]): Promise<void> {
    const names = tags.filter((tag) => this.named(accountId, tag).kind === 'named');
    const found = await this.tags.holdNamed(tx, accountId, names);
    const missing = names.find((name) => !found.has(name));
    if (missing !== undefined) throw this.notFound(missing);
  }

  /** INVALID_TAG for a malformed name; otherwise the reserved tag's scope, or the tag's name to look up. */
  named(accountId: number, tag: string): NamedScope {
    if (!isValidTag(tag)) throw new ApiError('INVALID_TAG', TAG_RULE, [{ tag: tag.slice(0, 100) }]);
    return tag === UNTAGGED ? { kind: 'untagged', accountId } : { kind: 'named', accountId, name: tag };
  }

  /**
   * Reads a list in the scope of a request's `tag` filter (none, the reserved `0` or a real tag):
   * a real tag without an `address` filter through `byName`, whose one statement also finds the tag
   * by its name (undefined when the account has none: TAG_NOT_FOUND); anything else through
   * `inScope`, the tag resolved first (undefined without a `tag` filter).
   */
  async read<T>(
    accountId: number,
    filters: { tag?: string; address?: readonly string[] },
    byName: (tag: NamedTag) => Promise<T | undefined>,
    inScope: (scope: TagScope | undefined) => Promise<T>,
  ): Promise<T> {
    if (filters.tag === undefined) return inScope(undefined);
    const named = this.named(accountId, filters.tag);
    if (named.kind === 'named' && filters.address === undefined) {
      const found = await byName(named);
      if (found === undefined) throw this.notFound(named.name);
      return found;
    }
    return inScope(await this.resolve(accountId, filters.tag));
  }

  /** The error for a tag this account does not have. */
  notFound(tag: string): ApiError {
    return new ApiError('TAG_NOT_FOUND', `No tag "${tag}" in this account.`);
  }
}
