import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_DESCRIPTION_LENGTH } from '../../../core/text/description';
import { CHAIN_IDS } from '../../../core/chains/chain-ids';
import type { ParsedAddress } from '../../../core/addresses';
import type { TagSummaryRow } from '../tags.repository';

export class TagSummaryDto {
  @ApiProperty({ example: 'exchange_wallets' })
  tag!: string;

  @ApiProperty({ example: 12, description: 'Number of addresses carrying the tag.' })
  address_count!: number;

  @ApiProperty({ example: '2026-11-02T10:15:30.123Z', description: 'First assignment of the tag.' })
  created_at!: string;

  @ApiProperty({ example: '2026-11-20T08:00:00.000Z', description: 'Last change of its membership.' })
  updated_at!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'Hot wallets of the exchanges we settle with, from their proof-of-reserves lists (2026-11).',
    description: 'Extension: what the account says the tag means (`PATCH /v2/tags/:tag`); null when it has not said.',
  })
  description!: string | null;
}

export class ChangeTagDto {
  @ApiPropertyOptional({
    example: 'exchange_hot_wallets',
    description: 'The new name: 5-64 characters of a-z, 0-9 and "_".',
  })
  name?: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: MAX_DESCRIPTION_LENGTH,
    example: 'Hot wallets of the exchanges we settle with, from their proof-of-reserves lists (2026-11).',
    description: `What the tag means, up to ${MAX_DESCRIPTION_LENGTH} characters without control characters; null or "" for none.`,
  })
  description?: string | null;
}

export class TagStatsDto {
  @ApiProperty({ example: 12 })
  address_count!: number;

  @ApiProperty({ example: 31, description: 'Holdings with a balance above zero of the tagged addresses.' })
  token_holding_count!: number;

  @ApiProperty({
    example: 420,
    description: 'Transactions sent or received by a tagged address; one between two tagged addresses counts once.',
  })
  txn_count!: number;

  @ApiProperty({
    example: 1523044.17,
    description: 'USD value of those holdings at the latest prices, rounded to cents.',
  })
  total_value_usd!: number;
}

export class TagDetailsDto {
  @ApiProperty({ example: 'exchange_wallets' })
  tag!: string;

  @ApiProperty({ type: TagStatsDto })
  stats!: TagStatsDto;
}

export class TaggedAddressDto {
  @ApiProperty({ example: '0x52908400098527886e0f7030069857d2e4169ee7', description: 'Canonical form of the address.' })
  address!: string;

  @ApiProperty({
    type: [String],
    example: ['exchange_wallets', 'watchlist'],
    description: 'Every tag of the address, ascending; ["0"] when it is tracked without a tag.',
  })
  tags!: string[];

  @ApiProperty({
    enum: CHAIN_IDS,
    isArray: true,
    example: ['ethereum', 'bnb', 'polygon', 'arbitrum', 'optimism', 'base'],
  })
  chains!: string[];
}

export function toTagSummary(row: TagSummaryRow): TagSummaryDto {
  return {
    tag: row.name,
    address_count: row.address_count,
    created_at: row.created_at,
    updated_at: row.updated_at,
    description: row.description,
  };
}

/** `tags` are the address's tags in the calling account, ascending (`["0"]` when tracked untagged). */
export function toTaggedAddress(address: ParsedAddress, tags: string[]): TaggedAddressDto {
  return { address: address.canonical, tags, chains: address.chains };
}
