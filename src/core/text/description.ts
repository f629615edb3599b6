/** At most this many characters (code points) in a description, a tag's or a webhook's. */
export const MAX_DESCRIPTION_LENGTH = 500;

/** What a description may be, as the API says it when one is refused. */
export const DESCRIPTION_RULE = `description must be null or a string of at most ${MAX_DESCRIPTION_LENGTH} characters without control characters`;

/** C0 and C1 control characters, line breaks, tabs and U+0000 included: a description is one line of text. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * A description as a request sends it: `null` or `""` for none (null), a string within
 * DESCRIPTION_RULE as it is; `undefined` for anything else (the caller refuses it).
 */
export function parseDescription(value: unknown): string | null | undefined {
  if (value === null || value === '') return null;
  if (typeof value !== 'string' || CONTROL.test(value) || [...value].length > MAX_DESCRIPTION_LENGTH) return undefined;
  return value;
}
