import { ApiError } from '../../core/errors';

/** One entry of an INVALID_BODY answer's `details`: the field, and what is wrong with it. */
export interface BodyProblem {
  field: string;
  message: string;
}

/**
 * A route's JSON object body as its fields (INVALID_BODY when it is not an object), and a problem
 * for each field not among `known`, to which the caller adds its own and answers them all in one
 * INVALID_BODY.
 */
export function bodyFields(
  body: unknown,
  known: readonly string[],
): { fields: Record<string, unknown>; problems: BodyProblem[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError('INVALID_BODY', 'The body must be a JSON object.');
  }
  const fields = body as Record<string, unknown>;
  const problems = Object.keys(fields)
    .filter((field) => !known.includes(field))
    .map((field) => ({ field, message: `unknown field "${field}"` }));
  return { fields, problems };
}
