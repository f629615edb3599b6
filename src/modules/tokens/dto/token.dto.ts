import { ApiProperty } from '@nestjs/swagger';
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
}

export function toDeployment(row: DeploymentRow): DeploymentDto {
  return { chain: row.chain, address: row.address, decimals: Number(row.decimals) };
}

export function toToken(row: TokenRow, deployments: DeploymentDto[]): TokenDto {
  return { id: row.id, name: row.name, symbol: row.symbol, icon_url: row.icon_url, deployments };
}
