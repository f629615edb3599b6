import { ApiProperty } from '@nestjs/swagger';

export const SYNC_STATUSES = ['off', 'syncing', 'synced', 'error'] as const;
export type SyncStatus = (typeof SYNC_STATUSES)[number];

export class SyncDto {
  @ApiProperty({ example: 'ethereum', description: 'Chain id, as in GET /v2/chains.' })
  chain!: string;

  @ApiProperty({
    enum: SYNC_STATUSES,
    example: 'synced',
    description:
      '`off`: no RPC URL, the chain gets data by import only. `syncing`: behind head − confirmations, or reading the history of newly tracked addresses. `synced`: caught up. `error`: the follower is stopped or failing (see `error`).',
  })
  status!: SyncStatus;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '21400000',
    description: "The chain's latest block number as last seen, a string of digits.",
  })
  head_block!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '21399988',
    description: 'The last block whose data is committed, a string of digits.',
  })
  indexed_block!: string | null;

  @ApiProperty({ example: 12, description: 'How many blocks the follower stays behind the head.' })
  confirmations!: number;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'Why the follower is stopped or failing, for a person; null unless `status` is `error`.',
  })
  error!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '2026-11-23T16:00:00.000Z',
    description: 'When the follower last reported; null before its first report.',
  })
  updated_at!: string | null;

  @ApiProperty({
    example: 0,
    description:
      "Extension: how many tracked addresses still have their earlier history read (a backfill), 0 when none. An address tracked since the follower's last turn counts from the turn that takes it in; `status` is `syncing` meanwhile.",
  })
  backfill_addresses!: number;
}
