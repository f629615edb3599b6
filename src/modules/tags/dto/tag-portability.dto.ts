import { ApiProperty } from '@nestjs/swagger';
import { OneOf } from '../../../http/validation/query-params';
import type { ImportMode } from '../tag-portability.repository';
import type { ImportReport } from '../tag-portability.service';

/** Query of POST /v2/import/tags. */
export class TagImportQueryDto {
  @OneOf(
    ['merge', 'replace'],
    "`merge` adds the file to the account's tags; `replace` makes the account's tags equal to the file (memberships and tracked addresses the file lacks go).",
    'merge',
  )
  mode: ImportMode = 'merge';

  @OneOf(['true', 'false'], '`true`: answer what the import would change, and change nothing.', 'false')
  dry_run: 'true' | 'false' = 'false';
}

export class TagImportReportDto {
  @ApiProperty({ example: 1200, description: 'Distinct addresses in the file.' })
  addresses!: number;

  @ApiProperty({
    example: 950,
    description: '(address, tag) pairs added; a `0` entry counts when it starts tracking its address.',
  })
  added!: number;

  @ApiProperty({
    example: 0,
    description:
      '(address, tag) pairs removed (replace only); an address that stops being tracked without a tag counts as its `0`.',
  })
  removed!: number;

  @ApiProperty({ example: 310, description: 'Pairs of the file the account had already.' })
  unchanged!: number;

  @ApiProperty({ example: 4, description: 'TagPack entries of a currency chaintags does not follow.' })
  skipped!: number;

  @ApiProperty({ example: false, description: 'Whether this was a dry run, which changed nothing.' })
  dry_run!: boolean;
}

export function toTagImportReport(report: ImportReport): TagImportReportDto {
  const { addresses, added, removed, unchanged, skipped, dry_run } = report;
  return { addresses, added, removed, unchanged, skipped, dry_run };
}
