import { Controller, Get, HttpCode, Post, Query, Req, StreamableFile } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Readable } from 'node:stream';
import { ApiError } from '../../core/errors';
import { AccountId, CallerKey } from '../../http/auth/auth';
import { ApiErrors } from '../../http/docs/api-docs';
import { TagImportQueryDto, TagImportReportDto, toTagImportReport } from './dto/tag-portability.dto';
import type { TagFileFormat } from './portability/tag-files';
import { IMPORT_TOO_LARGE, MAX_IMPORT_BYTES, TagPortabilityService } from './tag-portability.service';

const NDJSON = 'application/x-ndjson';
const CSV = 'text/csv';
/** The media types an import takes, and the format each one names. */
const IMPORT_TYPES: Record<string, TagFileFormat> = {
  [NDJSON]: 'ndjson',
  [CSV]: 'csv',
  'application/yaml': 'tagpack',
  'application/x-yaml': 'tagpack',
  'text/yaml': 'tagpack',
};

@ApiTags('tags')
@Controller('v2')
export class TagPortabilityController {
  constructor(private readonly portability: TagPortabilityService) {}

  @Get('export/tags')
  @ApiOperation({
    summary: "Export the account's tags",
    description:
      'Every address the account tracks with its tags, in address order, streamed. NDJSON by default, one ' +
      '`{"address", "tags"}` a line (tags sorted; `["0"]` for an address tracked without a tag); with ' +
      '`Accept: text/csv`, CSV with the header `address,tag` and a row per (address, tag). `POST /v2/import/tags` ' +
      'takes either back.',
  })
  @ApiOkResponse({
    description: 'The export.',
    content: {
      [NDJSON]: {
        schema: { type: 'string' },
        example: '{"address":"0x52908400098527886e0f7030069857d2e4169ee7","tags":["exchange_wallets","watchlist"]}\n',
      },
      [CSV]: {
        schema: { type: 'string' },
        example: 'address,tag\n0x52908400098527886e0f7030069857d2e4169ee7,exchange_wallets\n',
      },
    },
  })
  @ApiErrors('INVALID_QUERY')
  export(@AccountId() accountId: number, @Req() request: Request): StreamableFile {
    const format = request.accepts([NDJSON, CSV]) === CSV ? 'csv' : 'ndjson';
    // Readable.from asks the generator for the next page only when the client has taken the last.
    const body = Readable.from(this.portability.export(accountId, format), { objectMode: false });
    return new StreamableFile(body, {
      type: format === 'csv' ? `${CSV}; charset=utf-8` : NDJSON,
      disposition: `attachment; filename="chaintags-tags.${format}"`,
    });
  }

  @Post('import/tags')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Import tags',
    description:
      "The export's NDJSON (`application/x-ndjson`) or CSV (`text/csv`), or a GraphSense TagPack " +
      '(`application/yaml`), up to 100 MiB. All or nothing: every line is checked and the 50-tag cap counted ' +
      'for the whole file before anything is written; a bad line makes a 400 listing up to 100 of them by line ' +
      'number. TagPack labels become tag names by the rule the README gives, entries of currencies chaintags ' +
      'does not follow are skipped and counted. Each change is in the tag history under the calling key.',
  })
  @ApiConsumes(NDJSON, CSV, 'application/yaml')
  @ApiBody({
    description: 'The file.',
    schema: { type: 'string' },
    examples: {
      ndjson: { value: '{"address":"0x52908400098527886e0f7030069857d2e4169ee7","tags":["exchange_wallets"]}\n' },
      csv: { value: 'address,tag\nbc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4,cold_storage\n' },
      tagpack: {
        value:
          'title: Example\ncurrency: BTC\ntags:\n  - address: bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4\n    label: Some Exchange\n',
      },
    },
  })
  @ApiOkResponse({
    type: TagImportReportDto,
    description: 'What the import changed, or would change with `dry_run=true`.',
  })
  @ApiErrors('INVALID_BODY', 'INVALID_QUERY', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'TAG_LIMIT_EXCEEDED')
  async import(
    @AccountId() accountId: number,
    @CallerKey() key: string,
    @Query() query: TagImportQueryDto,
    @Req() request: Request,
  ): Promise<TagImportReportDto> {
    const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const format = IMPORT_TYPES[type];
    if (format === undefined) {
      throw new ApiError(
        'UNSUPPORTED_MEDIA_TYPE',
        'Send the file with Content-Type application/x-ndjson, text/csv or application/yaml (a TagPack).',
      );
    }
    if (Number(request.headers['content-length'] ?? 0) > MAX_IMPORT_BYTES) {
      throw new ApiError('PAYLOAD_TOO_LARGE', IMPORT_TOO_LARGE);
    }
    const report = await this.portability.import(accountId, request, format, {
      mode: query.mode,
      dryRun: query.dry_run === 'true',
      key,
      maxBytes: MAX_IMPORT_BYTES,
    });
    return toTagImportReport(report);
  }
}
