import { ApiProperty } from '@nestjs/swagger';
import { toIso } from '../../../database/dialect';
import type { HoldingRow } from '../holdings.repository';

/**
 * One row of GET /v2/token-holdings: the fields of the interface spec (2.3), plus `address`, the
 * holder, without which a list filtered by tag could not say whose holding a row is.
 */
export class TokenHoldingDto {
  @ApiProperty({ example: 'ethereum' })
  chain!: string;

  @ApiProperty({
    example: '0x52908400098527886e0f7030069857d2e4169ee7',
    description: 'Extension: the canonical address holding the balance.',
  })
  address!: string;

  @ApiProperty({
    example: '0xdac17f958d2ee523a2206206994597c13d831ec7',
    description: "`0` is the chain's native coin.",
  })
  token_address!: string;

  @ApiProperty({ example: 'Tether' })
  token_name!: string;

  @ApiProperty({ example: 'USDT' })
  token_symbol!: string;

  @ApiProperty({
    example: 6,
    description: 'Decimals of this deployment of the token (they may differ between chains).',
  })
  token_decimals!: number;

  @ApiProperty({ example: 'https://assets.coingecko.com/coins/images/325/large/Tether.png' })
  token_icon_url!: string;

  @ApiProperty({ example: 1.0001, description: 'Latest known USD price of the token; 0 when none is known.' })
  token_price!: number;

  @ApiProperty({
    example: '2500000000',
    description: "Balance in the token's smallest unit: a decimal integer string of up to 78 digits.",
  })
  balance!: string;

  @ApiProperty({
    example: 12,
    description: 'Number of addresses holding a balance above 0 of this token on this chain.',
  })
  holders!: number;

  @ApiProperty({ example: '2024-05-01T12:00:00.000Z', description: 'When the balance was last updated.' })
  updated_at!: string;
}

export function toTokenHolding(row: HoldingRow): TokenHoldingDto {
  return {
    chain: row.chain,
    address: row.address,
    token_address: row.token_address,
    token_name: row.name,
    token_symbol: row.symbol,
    token_decimals: Number(row.decimals),
    token_icon_url: row.icon_url,
    token_price: row.usd === null ? 0 : Number(row.usd),
    balance: String(row.balance),
    holders: Number(row.holders),
    updated_at: toIso(row.updated_at),
  };
}
