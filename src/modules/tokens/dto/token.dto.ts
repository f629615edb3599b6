import { ApiProperty } from '@nestjs/swagger';
import { toIso } from '../../../database/dialect';
import type { DeploymentRow, TokenRow } from '../tokens.repository';

export class DeploymentDto {
  @ApiProperty({ example: 'ethereum' })
  chain!: string;

  @ApiProperty({
    example: '0xdac17f958d2ee523a2206206994597c13d831ec7',
    description: "`0` is the chain's native coin.",
  })
  address!: string;

  @ApiProperty({ example: 6, description: 'May differ between deployments of one token.' })
  decimals!: number;
}

export class TokenDto {
  @ApiProperty({ example: 'tether', description: 'CoinGecko-style slug.' })
  id!: string;

  @ApiProperty({ example: 'Tether' })
  name!: string;

  @ApiProperty({ example: 'USDT' })
  symbol!: string;

  @ApiProperty({ example: 'https://assets.coingecko.com/coins/images/325/large/Tether.png' })
  icon_url!: string;

  @ApiProperty({ type: [DeploymentDto] })
  deployments!: DeploymentDto[];

  @ApiProperty({
    type: Number,
    nullable: true,
    example: 1.0001,
    description:
      "Extension: the newest USD price, the one holdings' `token_price` and every `total_value_usd` use; null when the token has none (it then counts 0 in values).",
  })
  price_usd!: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '2026-11-25T10:14:00.000Z',
    description:
      "Extension: when that price was the market's (the price source's time, or the import's); null without one.",
  })
  price_updated_at!: string | null;
}

export function toDeployment(row: DeploymentRow): DeploymentDto {
  return { chain: row.chain, address: row.address, decimals: Number(row.decimals) };
}

export function toToken(row: TokenRow, deployments: DeploymentDto[]): TokenDto {
  return {
    id: row.id,
    name: row.name,
    symbol: row.symbol,
    icon_url: row.icon_url,
    deployments,
    price_usd: row.usd === null ? null : Number(row.usd),
    price_updated_at: row.price_at === null ? null : toIso(row.price_at),
  };
}
