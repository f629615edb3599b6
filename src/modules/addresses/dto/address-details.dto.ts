import { ApiProperty } from '@nestjs/swagger';
import { CHAIN_IDS } from '../../../core/chains/chain-ids';
import type { ParsedAddress } from '../../../core/addresses/address-families';

export class AddressStatsDto {
  @ApiProperty({ example: 3, description: 'Holdings with a balance above zero.' })
  token_holding_count!: number;

  @ApiProperty({ example: 57, description: 'Transactions the address sent or received.' })
  txn_count!: number;

  @ApiProperty({ example: 10423.5, description: 'USD value of the holdings at the latest prices, rounded to cents.' })
  total_value_usd!: number;
}

export class AddressDetailsDto {
  @ApiProperty({ example: '0x52908400098527886e0f7030069857d2e4169ee7', description: 'Canonical form of the address.' })
  address!: string;

  @ApiProperty({
    enum: CHAIN_IDS,
    isArray: true,
    example: ['ethereum', 'bnb', 'polygon', 'arbitrum', 'optimism', 'base'],
  })
  chains!: string[];

  @ApiProperty({
    type: [String],
    example: ['watchlist'],
    description: 'Tags of the calling account, ascending; ["0"] when tracked without a tag; [] when not tracked.',
  })
  tags!: string[];

  @ApiProperty({ type: AddressStatsDto })
  stats!: AddressStatsDto;
}

export function toAddressDetails(address: ParsedAddress, tags: string[], stats: AddressStatsDto): AddressDetailsDto {
  return { address: address.canonical, chains: address.chains, tags, stats };
}
