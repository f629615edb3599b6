/** Token ids are lowercase slugs (a-z, 0-9, inner "-": "usd-coin") of at most 100 characters. */
export const MAX_TOKEN_ID_LENGTH = 100;
const TOKEN_ID = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Whether `value` is a token id as the import takes it and chaintags writes them. */
export function isTokenId(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_TOKEN_ID_LENGTH && TOKEN_ID.test(value);
}
