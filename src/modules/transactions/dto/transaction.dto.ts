import { ApiProperty } from '@nestjs/swagger';
import { toIso } from '../../../database/dialect';
import type { TransactionRow } from '../transactions.repository';

/** One row of GET /v2/transactions, field for field as the interface spec (2.4) names them: one value transfer. */
export class TransactionDto {
  @ApiProperty({ example: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060:0' })
  id!: string;

  @ApiProperty({ example: 'ethereum' })
  chain!: string;

  @ApiProperty({ example: '0', description: "`0` is the chain's native coin." })
  token_address!: string;

  @ApiProperty({
    example: '0x52908400098527886e0f7030069857d2e4169ee7',
    description: '`0` where the transfer has no sender (a mint or block reward).',
  })
  from_address!: string;

  @ApiProperty({ example: '0xde709f2102306220921060314715629080e2fb77' })
  to_address!: string;

  @ApiProperty({ example: '1500000000000000000', description: 'In the smallest unit: a decimal integer string.' })
  value!: string;

  @ApiProperty({ example: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060' })
  tx_hash!: string;

  @ApiProperty({ example: '19800000', description: 'A JSON string of digits.' })
  block_number!: string;

  @ApiProperty({ example: '0x8f5bab218b6bb34476f51ca588e9f4553a3a7ce5e13a66c660a5283e97e9a85a' })
  block_hash!: string;

  @ApiProperty({ example: '2024-05-01T12:00:00.000Z' })
  block_time!: string;
}

export function toTransaction(row: TransactionRow): TransactionDto {
  return {
    id: row.id,
    chain: row.chain,
    token_address: row.token_address,
    from_address: row.from_address,
    to_address: row.to_address,
    value: String(row.value),
    tx_hash: row.tx_hash,
    block_number: String(row.block_number),
    block_hash: row.block_hash,
    block_time: toIso(row.block_time),
  };
}
