import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, ValidateBy } from 'class-validator';
import { CHAIN_IDS, ChainId } from '../../../core/chains/chain-ids';
import { PerPageQueryDto } from '../../../http/validation/query.dto';
import { CHAIN_RULE } from '../../holdings/dto/token-holdings-query.dto';
import { INSTANT_RULE, parseInstant } from '../../../core/time/instant';

const IsInstant = () =>
  ValidateBy({
    name: 'isInstant',
    validator: {
      validate: (value: unknown) => parseInstant(value) !== undefined,
      defaultMessage: () => `since must be ${INSTANT_RULE}, a date that exists`,
    },
  });

/** Filters of GET /v2/transactions (combined with AND) and its keyset paging. */
export class TransactionsQueryDto extends PerPageQueryDto {
  @ApiPropertyOptional({
    description: 'Only transactions this address sent or received (any accepted spelling).',
    example: '0x52908400098527886e0f7030069857d2e4169ee7',
  })
  @IsOptional()
  @IsString({ message: 'address must be a single value' })
  address?: string;

  @ApiPropertyOptional({ description: 'Only transactions on this chain.', enum: CHAIN_IDS, example: 'ethereum' })
  @IsOptional()
  @IsIn(CHAIN_IDS, { message: CHAIN_RULE })
  chain?: ChainId;

  @ApiPropertyOptional({
    description: "Only transfers of this token: `0` for a chain's native coin, else its contract, mint or coin type.",
    example: '0xdac17f958d2ee523a2206206994597c13d831ec7',
  })
  @IsOptional()
  @IsString({ message: 'token_address must be a single value' })
  token_address?: string;

  @ApiPropertyOptional({
    description:
      "Only transactions sent or received by an address carrying this tag in the caller's account (`0`: tracked, untagged).",
    example: 'treasury',
  })
  @IsOptional()
  @IsString({ message: 'tag must be a single value' })
  tag?: string;

  @ApiPropertyOptional({
    description:
      'Only transactions with a block time strictly after this instant: YYYY-MM-DDTHH:MM:SSZ, milliseconds allowed.',
    example: '2024-05-01T00:00:00Z',
  })
  @IsOptional()
  @IsInstant()
  since?: string;

  @ApiPropertyOptional({
    description:
      'Opaque cursor: the page after the one that handed it out. Take it from the `next` link rather than building it.',
    example: 'WyIyMDI0LTA1LTAxVDEyOjAwOjAwLjAwMFoiLCJ0eC0xIl0.0123456789abcdefABCDEF',
  })
  @IsOptional()
  @IsString({ message: 'after must be a single value' })
  after?: string;
}
