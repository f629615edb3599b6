import { ApiProperty } from '@nestjs/swagger';
import type { ChainRow } from '../chains.repository';

export class ExplorerDto {
  @ApiProperty({ example: 'Etherscan' })
  name!: string;

  @ApiProperty({ example: 'https://etherscan.io' })
  url!: string;

  @ApiProperty({
    example: 'https://etherscan.io/tx/{{tx_id}}',
    description: 'Contains the literal placeholder {{tx_id}}.',
  })
  tx_url!: string;

  @ApiProperty({
    example: 'https://etherscan.io/address/{{address}}',
    description: 'Contains the literal placeholder {{address}}.',
  })
  address_url!: string;
}

export class ChainDto {
  @ApiProperty({ example: 'ethereum' })
  chain!: string;

  @ApiProperty({ example: 1, description: 'EVM chain id; -1 for chains that are not EVM-based.' })
  chainId!: number;

  @ApiProperty({ example: 'Ethereum' })
  name!: string;

  @ApiProperty({ example: 'https://assets.coingecko.com/coins/images/279/large/ethereum.png' })
  icon_url!: string;

  @ApiProperty({ type: [ExplorerDto] })
  explorers!: ExplorerDto[];
}

export function toChain(row: ChainRow): ChainDto {
  return {
    chain: row.chain,
    chainId: Number(row.chain_id),
    name: row.name,
    icon_url: row.icon_url,
    explorers: JSON.parse(row.explorers) as ExplorerDto[],
  };
}
