import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

export const DEFAULT_PER_PAGE = 30;
export const MAX_PER_PAGE = 100;
export const MAX_PAGE = 1_000_000_000;

/** Digits only become numbers; anything else stays a string and fails @IsInt with a clear message. */
const wholeNumber = () =>
  Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && /^\d{1,12}$/.test(value) ? Number(value) : value,
  );

export class PerPageQueryDto {
  @ApiPropertyOptional({
    description: 'Results per page.',
    minimum: 1,
    maximum: MAX_PER_PAGE,
    default: DEFAULT_PER_PAGE,
    type: Number,
  })
  @IsOptional()
  @wholeNumber()
  @IsInt({ message: 'per_page must be a whole number from 1 to 100' })
  @Min(1, { message: 'per_page must be a whole number from 1 to 100' })
  @Max(MAX_PER_PAGE, { message: 'per_page must be a whole number from 1 to 100' })
  per_page: number = DEFAULT_PER_PAGE;
}

export class PageQueryDto extends PerPageQueryDto {
  @ApiPropertyOptional({
    description: 'Page number, from 1. A page past the end is an empty array.',
    minimum: 1,
    maximum: MAX_PAGE,
    default: 1,
    type: Number,
  })
  @IsOptional()
  @wholeNumber()
  @IsInt({ message: 'page must be a whole number from 1 to 1000000000' })
  @Min(1, { message: 'page must be a whole number from 1 to 1000000000' })
  @Max(MAX_PAGE, { message: 'page must be a whole number from 1 to 1000000000' })
  page: number = 1;
}
