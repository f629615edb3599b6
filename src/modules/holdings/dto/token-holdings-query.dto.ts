import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { CHAIN_IDS, ChainId } from '../../../core/chains/chain-ids';
import { PageQueryDto } from '../../../http/validation/query.dto';

export const CHAIN_RULE = `chain must be one of ${CHAIN_IDS.join(', ')}`;

/** Filters of GET /v2/token-holdings; they combine with AND. */
export class TokenHoldingsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    description: "Only holdings of the addresses carrying this tag in the caller's account (`0`: tracked, untagged).",
    example: 'treasury',
  })
  @IsOptional()
  @IsString({ message: 'tag must be a single value' })
  tag?: string;

  @ApiPropertyOptional({
    description: 'Only holdings of this address (any accepted spelling; matched in canonical form).',
    example: '0x52908400098527886e0f7030069857d2e4169ee7',
  })
  @IsOptional()
  @IsString({ message: 'address must be a single value' })
  address?: string;

  @ApiPropertyOptional({ description: 'Only holdings on this chain.', enum: CHAIN_IDS, example: 'ethereum' })
  @IsOptional()
  @IsIn(CHAIN_IDS, { message: CHAIN_RULE })
  chain?: ChainId;

  @ApiPropertyOptional({
    description: "Only holdings of this token: `0` for a chain's native coin, else its contract, mint or coin type.",
    example: '0xdac17f958d2ee523a2206206994597c13d831ec7',
  })
  @IsOptional()
  @IsString({ message: 'token_address must be a single value' })
  token_address?: string;
}
