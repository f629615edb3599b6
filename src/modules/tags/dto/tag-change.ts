import { ApiError } from '../../../core/errors';
import { isValidTag, TAG_RULE, UNTAGGED } from '../../../core/tags/tag-rules';
import { bodyFields } from '../../../http/validation/body-fields';
import { DESCRIPTION_RULE, parseDescription } from '../../../core/text/description';

/** What `PATCH /v2/tags/:tag` changes: a new name, a new description (null: none), or both. */
export interface TagChange {
  name?: string;
  description?: string | null;
}

/**
 * The body of `PATCH /v2/tags/:tag`: a JSON object with `name`, `description` or both, and nothing
 * else (INVALID_BODY otherwise). `name` is a real tag's name (INVALID_TAG for one outside the
 * rules, or `0`); `description` up to 500 characters without control characters, or null or ""
 * for none.
 */
export function parseTagChange(body: unknown): TagChange {
  const { fields, problems } = bodyFields(body, ['name', 'description']);
  const { name, description } = fields;
  if (name === undefined && description === undefined && problems.length === 0) {
    problems.push({ field: 'name', message: 'send name, description or both' });
  }
  if (name !== undefined && typeof name !== 'string') {
    problems.push({ field: 'name', message: 'name must be a string: the new name of the tag' });
  }
  const described = description === undefined ? undefined : parseDescription(description);
  if (description !== undefined && described === undefined) {
    problems.push({ field: 'description', message: DESCRIPTION_RULE });
  }
  if (problems.length > 0) {
    throw new ApiError('INVALID_BODY', problems.map((problem) => problem.message).join('; '), problems);
  }
  const change: TagChange = {};
  if (typeof name === 'string') {
    if (!isValidTag(name)) throw new ApiError('INVALID_TAG', TAG_RULE, [{ tag: name.slice(0, 128) }]);
    if (name === UNTAGGED) {
      throw new ApiError('INVALID_TAG', 'A tag cannot be renamed to the reserved "0".', [{ tag: name }]);
    }
    change.name = name;
  }
  if (described !== undefined) change.description = described;
  return change;
}
