import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  Min,
  ValidateBy,
} from 'class-validator';
import { CHAIN_IDS } from '../../core/chains/chain-ids';
import { INSTANT_RULE, parseInstant } from '../../core/time/instant';

/**
 * Decorators for the fields of query DTOs, each the validation rule and its OpenAPI description
 * together. Messages name the parameter through class-validator's `$property`.
 */

/** A repeated parameter (`?tag=a&tag=b`) arrives as an array: INVALID_QUERY rather than a guess. */
export const SingleValue = (): PropertyDecorator => IsString({ message: '$property must be a single value' });

interface Docs {
  description: string;
  example: string;
}

/** An optional parameter taken as one string. */
export const OptionalString = (docs: Docs): PropertyDecorator =>
  applyDecorators(ApiPropertyOptional(docs), IsOptional(), SingleValue());

/** An optional parameter with a fixed set of values; `fallback`, the value when it is absent, if any. */
export const OneOf = (values: readonly string[], description: string, fallback?: string): PropertyDecorator =>
  applyDecorators(
    ApiPropertyOptional({ enum: values, description, ...(fallback === undefined ? {} : { default: fallback }) }),
    IsOptional(),
    IsIn(values, { message: `$property must be one of ${values.join(', ')}` }),
  );

/** `chain`: one of the supported chain ids. */
export const ChainFilter = (description: string): PropertyDecorator =>
  applyDecorators(
    ApiPropertyOptional({ description, enum: CHAIN_IDS, example: 'ethereum' }),
    IsOptional(),
    IsIn(CHAIN_IDS, { message: `$property must be one of ${CHAIN_IDS.join(', ')}` }),
  );

/** `address`: an address in any accepted spelling; the service parses it (INVALID_ADDRESS). */
export const AddressFilter = (description: string): PropertyDecorator =>
  OptionalString({ description, example: '0x52908400098527886e0f7030069857d2e4169ee7' });

/**
 * A required list of 1 to `maximum` addresses, comma-separated, repeated (`?address=a&address=b`)
 * or both, as one array; the service parses each (INVALID_ADDRESS naming every one that is none).
 */
export const AddressList = (maximum: number, description: string): PropertyDecorator => {
  const message = `$property must list 1 to ${maximum} addresses, comma-separated or repeated`;
  return applyDecorators(
    ApiProperty({
      description,
      type: [String],
      minItems: 1,
      maxItems: maximum,
      example: ['0x52908400098527886e0f7030069857d2e4169ee7', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'],
    }),
    Transform(({ value }: { value: unknown }) => {
      const values = typeof value === 'string' ? [value] : value;
      return Array.isArray(values) && values.every((item) => typeof item === 'string')
        ? values.flatMap((item: string) => item.split(','))
        : value;
    }),
    IsArray({ message }),
    IsString({ each: true, message }),
    ArrayMinSize(1, { message }),
    ArrayMaxSize(maximum, { message }),
  );
};

/** `token_address`; `subject` says what the list keeps, e.g. "Only holdings of this token". */
export const TokenAddressFilter = (subject: string): PropertyDecorator =>
  OptionalString({
    description: `${subject}: \`0\` for a chain's native coin, else its contract, mint or coin type.`,
    example: '0xdac17f958d2ee523a2206206994597c13d831ec7',
  });

/** `tag`, of the calling account; the service resolves it (INVALID_TAG, TAG_NOT_FOUND). */
export const TagFilter = (subject: string): PropertyDecorator =>
  OptionalString({
    description: `${subject} in the caller's account (\`0\`: tracked, untagged).`,
    example: 'treasury',
  });

/** `since`: only what happened strictly after an instant; `subject` says what, e.g. "Only transactions with a block time". */
export const SinceFilter = (subject: string, example: string): PropertyDecorator =>
  applyDecorators(
    ApiPropertyOptional({
      description: `${subject} strictly after this instant: YYYY-MM-DDTHH:MM:SSZ, milliseconds allowed.`,
      example,
    }),
    IsOptional(),
    IsInstant(),
  );

/**
 * `until`: only what happened at or before an instant, the other end of `since`'s window:
 * `since=A&until=B` keeps (A, B], so windows that share their ends tile a list without a gap or a
 * repeat. `subject` as for SinceFilter.
 */
export const UntilFilter = (subject: string, example: string): PropertyDecorator =>
  applyDecorators(
    ApiPropertyOptional({
      description: `${subject} at or before this instant: YYYY-MM-DDTHH:MM:SSZ, milliseconds allowed. With \`since\`, the window (since, until].`,
      example,
    }),
    IsOptional(),
    IsInstant(),
  );

/** `after`: the opaque keyset cursor of a list paged newest first. */
export const AfterCursor = (example: string): PropertyDecorator =>
  OptionalString({
    description:
      'Opaque cursor: the page after the one that handed it out. Take it from the `next` link rather than building it.',
    example,
  });

/** An instant in the one accepted timestamp form (core/time/instant.ts). */
export const IsInstant = (): PropertyDecorator =>
  ValidateBy({
    name: 'isInstant',
    validator: {
      validate: (value: unknown) => parseInstant(value) !== undefined,
      defaultMessage: () => `$property must be ${INSTANT_RULE}, a date that exists`,
    },
  });

/** Valid only beside one of `others` (other parameters of the same query). */
export const Beside = (others: readonly string[]): PropertyDecorator =>
  ValidateBy({
    name: 'beside',
    validator: {
      validate: (_value: unknown, args) =>
        others.some((other) => (args?.object as Record<string, unknown>)[other] !== undefined),
      defaultMessage: () => `$property needs ${others.join(' or ')}`,
    },
  });

/**
 * A whole number from 1 to `maximum`. Digits only become a number; anything else stays a string
 * and fails with the one message.
 */
export const WholeNumber = (maximum: number, docs: { description: string; default: number }): PropertyDecorator => {
  const message = `$property must be a whole number from 1 to ${maximum}`;
  return applyDecorators(
    ApiPropertyOptional({ description: docs.description, minimum: 1, maximum, default: docs.default, type: Number }),
    IsOptional(),
    Transform(({ value }: { value: unknown }) =>
      typeof value === 'string' && /^\d{1,12}$/.test(value) ? Number(value) : value,
    ),
    IsInt({ message }),
    Min(1, { message }),
    Max(maximum, { message }),
  );
};
