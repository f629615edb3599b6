import { ApiProperty } from '@nestjs/swagger';
import { AddressFilter, AfterCursor, SinceFilter, UntilFilter } from '../../../http/validation/query-params';
import { PerPageQueryDto } from '../../../http/validation/query.dto';
import type { HistoryRow } from '../tags.repository';

/** Filters of GET /v2/tags/:tag/history (combined with AND) and its keyset paging. */
export class TagHistoryQueryDto extends PerPageQueryDto {
  @AddressFilter('Only changes to this address (any accepted spelling).')
  address?: string;

  @SinceFilter('Only changes', '2026-11-01T00:00:00Z')
  since?: string;

  @UntilFilter('Only changes', '2026-12-01T00:00:00Z')
  until?: string;

  @AfterCursor('WyIyMDI2LTExLTAxVDEyOjAwOjAwLjAwMFoiLCI0MiJd.0123456789abcdefABCDEF')
  after?: string;
}

export class TagHistoryEntryDto {
  @ApiProperty({ example: '2026-11-20T08:00:00.000Z', description: 'When the change was committed.' })
  at!: string;

  @ApiProperty({ enum: ['added', 'removed'], example: 'added' })
  action!: 'added' | 'removed';

  @ApiProperty({ example: '0x52908400098527886e0f7030069857d2e4169ee7', description: 'Canonical form of the address.' })
  address!: string;

  @ApiProperty({
    example: 'ctk_9fQx2LmA',
    description: 'The first 12 characters of the API key that made the change; `cli` for the command line.',
  })
  key!: string;
}

export function toTagHistoryEntry(row: HistoryRow): TagHistoryEntryDto {
  return { at: row.at, action: row.action, address: row.address, key: row.key_prefix };
}
