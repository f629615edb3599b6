import { Inject, Injectable, Optional } from '@nestjs/common';
import { ParsedAddress, parseAddress } from '../../core/addresses';
import { ApiError } from '../../core/errors';
import { CursorPage, OffsetPage } from '../../http/paging/paging';
import { CursorCodec } from '../../http/paging/cursor';
import { addressFilter } from '../../core/addresses/address-filters';
import { parseInstant } from '../../core/time/instant';
import { TagHistoryEntryDto, TagHistoryQueryDto, toTagHistoryEntry } from './dto/tag-history.dto';
import { StatsService } from '../stats/stats.service';
import { TagDetailsDto, TaggedAddressDto, TagSummaryDto, toTaggedAddress, toTagSummary } from './dto/tag.dto';
import { listedTags, MAX_TAGS_PER_ADDRESS, UNTAGGED } from '../../core/tags/tag-rules';
import { TagScopeService } from './tag-scope.service';
import { TagsRepository } from './tags.repository';
import { parseTagChange } from './dto/tag-change';
import type { Sql } from '../../database/db.service';

/**
 * What else names an account's tags, and follows a tag to its new name in the rename's own
 * transaction: the webhooks' tag lists (WebhooksModule provides it, a global module, so that this
 * module needs neither to import it nor to know whether it is there).
 */
export interface TagRenames {
  renamed(tx: Sql, accountId: number, from: string, to: string): Promise<void>;
}

export const TAG_RENAMES = Symbol('TAG_RENAMES');

@Injectable()
export class TagsService {
  private readonly cursors: CursorCodec;

  constructor(
    private readonly tags: TagsRepository,
    private readonly scopes: TagScopeService,
    private readonly stats: StatsService,
    // Absent where WebhooksModule is not loaded (a command holding TagsModule alone).
    @Optional() @Inject(TAG_RENAMES) private readonly renames?: TagRenames,
  ) {
    this.cursors = new CursorCodec('tag history', (candidate) => this.tags.cursorSecret(candidate));
  }

  /** POST /v2/tags/:tag — all or nothing; `0` only tracks the addresses. `key`: who, for the history. */
  async assign(accountId: number, tag: string, addresses: ParsedAddress[], key: string): Promise<TaggedAddressDto[]> {
    const canonical = addresses.map((address) => address.canonical);
    const outcome = await this.tags.assign(
      accountId,
      tag === UNTAGGED ? undefined : tag,
      canonical,
      MAX_TAGS_PER_ADDRESS,
      { key, now: now() },
    );
    if (!outcome.ok) {
      throw new ApiError(
        'TAG_LIMIT_EXCEEDED',
        `An address can carry at most ${MAX_TAGS_PER_ADDRESS} tags; ${outcome.overLimit.length} of these already carry ${MAX_TAGS_PER_ADDRESS}. Nothing was changed.`,
        outcome.overLimit,
      );
    }
    return recordsOf(addresses, outcome.tags);
  }

  /** DELETE /v2/tags/:tag/addresses — the addresses stay tracked; for `0`, untagged ones stop being tracked. */
  async removeFrom(
    accountId: number,
    tag: string,
    addresses: ParsedAddress[],
    key: string,
  ): Promise<TaggedAddressDto[]> {
    const scope = await this.scopes.resolve(accountId, tag);
    const canonical = addresses.map((address) => address.canonical);
    // The tags as the change left them, read under its locks.
    const tags =
      scope.kind === 'tag'
        ? await this.tags.removeMembers({ accountId, tagId: scope.tagId, name: tag }, canonical, { key, now: now() })
        : await this.tags.untrack(accountId, canonical);
    // Deleted by another request after this one found it: gone, as if that one came first.
    if (tags === undefined) throw this.scopes.notFound(tag);
    return recordsOf(addresses, tags);
  }

  /** DELETE /v2/tags/:tag — removes the tag from every address; they stay tracked. */
  async delete(accountId: number, tag: string, key: string): Promise<void> {
    if (tag === UNTAGGED) {
      throw new ApiError(
        'INVALID_TAG',
        'The reserved tag "0" cannot be deleted; remove addresses with DELETE /v2/tags/0/addresses.',
      );
    }
    const scope = await this.scopes.resolve(accountId, tag);
    if (scope.kind !== 'tag') return;
    // Deleted by another request after this one found it: gone, as if that one came first (should a
    // request have created the tag anew since, this deletion is before it).
    if (!(await this.tags.deleteTag({ accountId, tagId: scope.tagId, name: tag }, { key, now: now() })))
      throw this.scopes.notFound(tag);
  }

  /**
   * PATCH /v2/tags/:tag — a new name, a new description or both (`body`: `{"name": …,
   * "description": …}`), the tag's addresses, stats and webhooks kept: 404 when the account has no
   * such tag, 409 TAG_EXISTS when it has one of the new name. The same name renames nothing. `key`:
   * who, for the history.
   */
  async change(accountId: number, tag: string, body: unknown, key: string): Promise<TagSummaryDto> {
    if (tag === UNTAGGED) throw new ApiError('INVALID_TAG', 'The reserved tag "0" cannot be changed.', [{ tag }]);
    const change = parseTagChange(body);
    const to = change.name ?? tag;
    const changed = await this.tags.changeTag(accountId, tag, change, { key, now: now() }, (tx) =>
      this.renames === undefined ? Promise.resolve() : this.renames.renamed(tx, accountId, tag, to),
    );
    if (changed === 'missing') throw this.scopes.notFound(tag);
    if (changed === 'taken') throw new ApiError('TAG_EXISTS', `The account has a tag "${to}" already.`, [{ tag: to }]);
    return toTagSummary(changed);
  }

  /**
   * GET /v2/tags/:tag/history — newest first, keyset paged. The history outlives the tag, so a
   * tag that is gone (or never was, or is another account's) is not an error: it has no entries
   * here. The reserved `0` is the absence of a tag, not a tag: it has none either.
   */
  async history(accountId: number, tag: string, query: TagHistoryQueryDto): Promise<CursorPage<TagHistoryEntryDto>> {
    // A membership is of one spelling: its history is looked up by that spelling alone.
    const address = query.address === undefined ? undefined : addressFilter(query.address);
    const position = query.after === undefined ? undefined : await this.cursors.decode(query.after);
    const rows = await this.tags.history(
      accountId,
      tag,
      {
        address,
        since: parseInstant(query.since),
        until: parseInstant(query.until),
        after: position === undefined ? undefined : { at: position.time, id: Number(position.id) },
      },
      // One row more than the page tells whether another page follows.
      query.per_page + 1,
    );
    const page = rows.slice(0, query.per_page);
    const last = page[page.length - 1];
    const next =
      rows.length > query.per_page && last !== undefined
        ? await this.cursors.encode({ time: last.at, id: String(last.id) })
        : undefined;
    return new CursorPage(page.map(toTagHistoryEntry), next, query.after === undefined);
  }

  async list(
    accountId: number,
    page: number,
    perPage: number,
    prefix: string | undefined,
  ): Promise<OffsetPage<TagSummaryDto>> {
    const { total, tags } = await this.tags.pageTags(accountId, (page - 1) * perPage, perPage, prefix);
    return new OffsetPage(tags.map(toTagSummary), page, perPage, total);
  }

  async details(accountId: number, tag: string): Promise<TagDetailsDto> {
    const stats = await this.stats.forScope(this.scopes.named(accountId, tag));
    if (stats === undefined) throw this.scopes.notFound(tag);
    return { tag, stats };
  }

  async members(accountId: number, tag: string, page: number, perPage: number): Promise<OffsetPage<TaggedAddressDto>> {
    const named = this.scopes.named(accountId, tag);
    if (named.kind === 'named') {
      const found = await this.tags.namedMembersPage(named, (page - 1) * perPage, perPage);
      if (found === undefined) throw this.scopes.notFound(tag);
      const records = found.members.map((member) =>
        toTaggedAddress(reparse(member.address), listedTags(true, member.tags)),
      );
      return new OffsetPage(records, page, perPage, found.total);
    }
    const scope = await this.scopes.resolve(accountId, tag);
    const [total, addresses] = await Promise.all([
      this.tags.countMembers(scope),
      this.tags.pageMembers(scope, (page - 1) * perPage, perPage),
    ]);
    return new OffsetPage(await this.records(accountId, addresses.map(reparse)), page, perPage, total);
  }

  /** Tagged address records, in the order given; an address this account does not track has no tags. */
  async records(accountId: number, addresses: ParsedAddress[]): Promise<TaggedAddressDto[]> {
    const tags = await this.tags.tagsOf(
      accountId,
      addresses.map((address) => address.canonical),
    );
    return recordsOf(addresses, tags);
  }
}

/** The records of addresses, in the order given, from their listed tags (none when not tracked). */
function recordsOf(addresses: ParsedAddress[], tags: ReadonlyMap<string, string[]>): TaggedAddressDto[] {
  return addresses.map((address) => toTaggedAddress(address, tags.get(address.canonical) ?? []));
}

function now(): string {
  return new Date().toISOString();
}

/** Stored addresses are canonical, so parsing them again only recovers their chains. */
function reparse(canonical: string): ParsedAddress {
  const parsed = parseAddress(canonical);
  if (!parsed.ok) throw new Error(`stored address is not canonical: ${canonical}`);
  return parsed.address;
}
