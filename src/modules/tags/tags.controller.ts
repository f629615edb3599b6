import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import { ApiBody, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { ParsedAddress } from '../../core/addresses';
import { AddressListPipe } from '../../http/validation/address.pipes';
import { ApiErrors } from '../../http/docs/api-docs';
import { AccountId, CallerKey } from '../../http/auth/auth';
import { JsonBody } from '../../http/json-body';
import { PageAnswer, Paged, Pager } from '../../http/paging/paged';
import { ChangeTagDto, TagDetailsDto, TaggedAddressDto, TagSummaryDto } from './dto/tag.dto';
import { TagHistoryEntryDto, TagHistoryQueryDto } from './dto/tag-history.dto';
import { TagsQueryDto } from './dto/tags-query.dto';
import { PageQueryDto } from '../../http/validation/query.dto';
import { TagParam } from '../../http/validation/path-params';
import { TagsService } from './tags.service';

const ADDRESS_LIST = {
  description: 'A JSON array of 1 to 1000 address strings, in any accepted form; repeats collapse to one.',
  schema: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 1000 },
  examples: {
    evm_and_bitcoin: {
      value: ['0x52908400098527886E0F7030069857D2E4169EE7', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'],
    },
  },
};

@ApiTags('tags')
@Controller('v2/tags')
export class TagsController {
  constructor(private readonly tags: TagsService) {}

  @Get()
  @Paged(TagSummaryDto, "A page of the account's tags.")
  @ApiOperation({
    summary: 'List tags',
    description:
      "The calling account's tags by name, with their address counts, or those whose name starts with `prefix`. The reserved `0` is not listed.",
  })
  @ApiErrors('INVALID_QUERY')
  async list(
    @AccountId() accountId: number,
    @Query() query: TagsQueryDto,
    @Pager() pager: PageAnswer,
  ): Promise<TagSummaryDto[]> {
    return pager.answer(await this.tags.list(accountId, query.page, query.per_page, query.prefix));
  }

  @Get(':tag')
  @ApiOperation({ summary: 'Retrieve tag details', description: 'Statistics over every address carrying the tag.' })
  @ApiOkResponse({ type: TagDetailsDto, description: 'The tag and its statistics.' })
  @ApiErrors('INVALID_TAG', 'TAG_NOT_FOUND', 'INVALID_QUERY')
  details(@AccountId() accountId: number, @TagParam() tag: string): Promise<TagDetailsDto> {
    return this.tags.details(accountId, tag);
  }

  @Post(':tag')
  @HttpCode(200)
  @JsonBody()
  @ApiOperation({
    summary: 'Assign a tag to addresses',
    description:
      'Creates the tag when new. All or nothing: every address is validated and the 50-tag cap checked before anything is written. Tagging an address that already carries the tag is a no-op. `POST /v2/tags/0` tracks addresses without a tag. Answers one record per distinct address, in first-seen order.',
  })
  @ApiBody(ADDRESS_LIST)
  @ApiOkResponse({
    type: [TaggedAddressDto],
    description: 'One record per distinct address sent, with all its tags after the assignment.',
  })
  @ApiErrors(
    'INVALID_TAG',
    'INVALID_ADDRESS',
    'INVALID_BODY',
    'PAYLOAD_TOO_LARGE',
    'UNSUPPORTED_MEDIA_TYPE',
    'TAG_LIMIT_EXCEEDED',
    'INVALID_QUERY',
  )
  assign(
    @AccountId() accountId: number,
    @TagParam() tag: string,
    @Body(AddressListPipe) addresses: ParsedAddress[],
    @CallerKey() key: string,
  ): Promise<TaggedAddressDto[]> {
    return this.tags.assign(accountId, tag, addresses, key);
  }

  @Get(':tag/addresses')
  @Paged(TaggedAddressDto, 'A page of the addresses carrying the tag, each with all its tags.')
  @ApiOperation({ summary: 'List addresses carrying a tag', description: 'By time of assignment, then address.' })
  @ApiErrors('INVALID_TAG', 'TAG_NOT_FOUND', 'INVALID_QUERY')
  async members(
    @AccountId() accountId: number,
    @TagParam() tag: string,
    @Query() query: PageQueryDto,
    @Pager() pager: PageAnswer,
  ): Promise<TaggedAddressDto[]> {
    return pager.answer(await this.tags.members(accountId, tag, query.page, query.per_page));
  }

  @Delete(':tag/addresses')
  @JsonBody()
  @ApiOperation({
    summary: 'Remove a tag from addresses',
    description:
      'Extension: removes the tag from the listed addresses, which stay tracked, and answers their updated records. For `0`, listed addresses that carry no tag stop being tracked.',
  })
  @ApiBody(ADDRESS_LIST)
  @ApiOkResponse({
    type: [TaggedAddressDto],
    description: 'One record per distinct address sent, with the tags it still carries.',
  })
  @ApiErrors(
    'INVALID_TAG',
    'TAG_NOT_FOUND',
    'INVALID_ADDRESS',
    'INVALID_BODY',
    'PAYLOAD_TOO_LARGE',
    'UNSUPPORTED_MEDIA_TYPE',
    'INVALID_QUERY',
  )
  remove(
    @AccountId() accountId: number,
    @TagParam() tag: string,
    @Body(AddressListPipe) addresses: ParsedAddress[],
    @CallerKey() key: string,
  ): Promise<TaggedAddressDto[]> {
    return this.tags.removeFrom(accountId, tag, addresses, key);
  }

  @Patch(':tag')
  @JsonBody()
  @ApiOperation({
    summary: 'Rename a tag or describe it',
    description:
      'Extension: gives the tag a new name (`{"name": "…"}`), a description (`{"description": "…"}`, null or "" for ' +
      "none) or both. Its addresses, stats, `created_at` and `updated_at` stay, and on a rename the account's webhooks " +
      'listening to it listen to the new name and the history records each member removed under the old name and ' +
      'added under the new one. 409 `TAG_EXISTS` when the account has a tag of the new name.',
  })
  @ApiBody({ type: ChangeTagDto })
  @ApiOkResponse({ type: TagSummaryDto, description: 'The tag as changed.' })
  @ApiErrors(
    'INVALID_TAG',
    'INVALID_BODY',
    'TAG_NOT_FOUND',
    'TAG_EXISTS',
    'PAYLOAD_TOO_LARGE',
    'UNSUPPORTED_MEDIA_TYPE',
    'INVALID_QUERY',
  )
  change(
    @AccountId() accountId: number,
    @TagParam() tag: string,
    @Body() body: unknown,
    @CallerKey() key: string,
  ): Promise<TagSummaryDto> {
    return this.tags.change(accountId, tag, body, key);
  }

  @Delete(':tag')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a tag',
    description: 'Extension: removes the tag from every address (they stay tracked) and deletes it.',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors('INVALID_TAG', 'TAG_NOT_FOUND', 'INVALID_QUERY')
  async delete(@AccountId() accountId: number, @TagParam() tag: string, @CallerKey() key: string): Promise<void> {
    await this.tags.delete(accountId, tag, key);
  }

  @Get(':tag/history')
  @Paged(TagHistoryEntryDto, "A page of the tag's changes; `Link` names the next page by cursor.", 'cursor')
  @ApiOperation({
    summary: "A tag's history",
    description:
      'Every change to the membership of the tag in the calling account, newest first (`at`, then entry, ' +
      'descending): one entry per address added or removed, with the first 12 characters of the API key that ' +
      'made the change (`cli` for the command line). A request that changed nothing left no entry. The history ' +
      "outlives the tag; a tag without history (another account's, or `0`) answers `[]`. Keyset paging as on " +
      '`/v2/transactions`: `next` while more entries follow, `first` on every page but the first.',
  })
  @ApiErrors('INVALID_TAG', 'INVALID_ADDRESS', 'INVALID_QUERY')
  async history(
    @AccountId() accountId: number,
    @TagParam() tag: string,
    @Query() query: TagHistoryQueryDto,
    @Pager() pager: PageAnswer,
  ): Promise<TagHistoryEntryDto[]> {
    return pager.answer(await this.tags.history(accountId, tag, query));
  }
}
