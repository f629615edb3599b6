import { ApiError } from '../../../core/errors';
import { isValidTag, TAG_RULE, UNTAGGED } from '../../../core/tags/tag-rules';

/**
 * The new name of `PATCH /v2/tags/:tag`: a JSON object holding `name` and nothing else
 * (INVALID_BODY otherwise), a real tag's name (INVALID_TAG for one outside the rules, or `0`).
 */
export function parseTagRename(body: unknown): string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError('INVALID_BODY', 'The body must be a JSON object: {"name": "<new name>"}.');
  }
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((field) => field !== 'name');
  if (unknown.length > 0) {
    const problems = unknown.map((field) => ({ field, message: `unknown field "${field.slice(0, 64)}"` }));
    throw new ApiError('INVALID_BODY', problems.map((problem) => problem.message).join('; '), problems);
  }
  const { name } = fields;
  if (typeof name !== 'string') {
    const message = 'name must be a string: the new name of the tag';
    throw new ApiError('INVALID_BODY', message, [{ field: 'name', message }]);
  }
  if (!isValidTag(name)) throw new ApiError('INVALID_TAG', TAG_RULE, [{ tag: name.slice(0, 128) }]);
  if (name === UNTAGGED) {
    throw new ApiError('INVALID_TAG', 'A tag cannot be renamed to the reserved "0".', [{ tag: name }]);
  }
  return name;
}
