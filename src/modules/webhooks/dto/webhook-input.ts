import { ApiError } from '../../../core/errors';
import { bodyFields } from '../../../http/validation/body-fields';
import { isChainId, sortChains } from '../../../core/chains/chain-ids';
import { isValidTag, TAG_RULE } from '../../../core/tags/tag-rules';
import { DESCRIPTION_RULE, parseDescription } from '../../../core/text/description';
import { SUBSCRIBABLE_EVENTS } from '../webhook-events';
import { urlSyntaxProblem } from '../webhook-url';
import { plainDecimal } from '../../../core/money/plain-decimal';
import { binaryOrder } from '../../../core/text/binary-order';
import { isTokenId } from '../../../core/tokens/token-id';

export const MAX_WEBHOOK_TAGS = 50;
/** The most token ids a webhook may name. */
export const MAX_WEBHOOK_TOKENS = 50;

/** A create or update body after its checks: absent fields are undefined. */
export interface WebhookInput {
  url?: string;
  tags?: string[];
  chains?: string[] | null;
  events?: string[];
  description?: string | null;
  /** A plain decimal (plainDecimal), or null for every transfer. */
  min_value_usd?: string | null;
  /** Token ids, sorted, each once; null for every token. */
  tokens?: string[] | null;
  status?: 'active' | 'paused';
}

/** The largest `min_value_usd`: no transfer is worth more (a price stops at 10^12 USD too). */
export const MAX_MIN_VALUE_USD = 1e12;
const MIN_VALUE_USD_RULE = 'min_value_usd must be null or a number of USD from 0 to 1000000000000';

const CREATE_FIELDS = ['url', 'tags', 'chains', 'events', 'description', 'min_value_usd', 'tokens'];
const UPDATE_FIELDS = [...CREATE_FIELDS, 'status'];

/**
 * Checks a create (`POST /v2/webhooks`) or update (`PATCH`) body strictly: a JSON object with only
 * the known fields, each of its type. The codes: INVALID_WEBHOOK_URL for a url that is not http(s),
 * INVALID_TAG for a tag name outside the rules, INVALID_BODY for anything else (unknown fields
 * included), each problem listed in `details`.
 */
export function parseWebhookInput(body: unknown, mode: 'create' | 'update'): WebhookInput {
  const { fields, problems } = bodyFields(body, mode === 'create' ? CREATE_FIELDS : UPDATE_FIELDS);
  const input: WebhookInput = {};

  if (fields.url !== undefined || mode === 'create') {
    if (typeof fields.url !== 'string') problems.push({ field: 'url', message: 'url must be a string' });
    else {
      const problem = urlSyntaxProblem(fields.url);
      if (problem !== undefined)
        throw new ApiError('INVALID_WEBHOOK_URL', problem, [{ field: 'url', message: problem }]);
      input.url = fields.url;
    }
  }

  if (fields.tags !== undefined || mode === 'create') {
    const tags = fields.tags;
    if (!Array.isArray(tags) || tags.length === 0 || tags.length > MAX_WEBHOOK_TAGS) {
      problems.push({ field: 'tags', message: `tags must be an array of 1 to ${MAX_WEBHOOK_TAGS} tag names` });
    } else if (tags.some((tag) => typeof tag !== 'string')) {
      problems.push({ field: 'tags', message: 'tags must be strings' });
    } else {
      const bad = (tags as string[]).filter((tag) => !isValidTag(tag));
      if (bad.length > 0)
        throw new ApiError(
          'INVALID_TAG',
          TAG_RULE,
          bad.map((tag) => ({ tag })),
        );
      input.tags = [...new Set(tags as string[])];
    }
  }

  if (fields.chains !== undefined) {
    const chains = fields.chains;
    if (chains === null) input.chains = null;
    else if (!Array.isArray(chains) || chains.length === 0 || chains.some((chain) => typeof chain !== 'string')) {
      problems.push({ field: 'chains', message: 'chains must be null or a non-empty array of chain ids' });
    } else {
      const unknown = (chains as string[]).filter((chain) => !isChainId(chain));
      if (unknown.length > 0)
        problems.push({ field: 'chains', message: `unknown chain ${unknown.map((c) => `"${c}"`).join(', ')}` });
      else input.chains = sortChains(chains as Parameters<typeof sortChains>[0] & string[]);
    }
  }

  if (fields.events !== undefined) {
    const events = fields.events;
    if (!Array.isArray(events) || events.length === 0 || events.some((event) => typeof event !== 'string')) {
      problems.push({
        field: 'events',
        message: `events must be a non-empty array of ${SUBSCRIBABLE_EVENTS.join(', ')}`,
      });
    } else {
      const unknown = (events as string[]).filter((event) => !SUBSCRIBABLE_EVENTS.includes(event));
      if (unknown.length > 0)
        problems.push({ field: 'events', message: `unknown event ${unknown.map((e) => `"${e}"`).join(', ')}` });
      else input.events = SUBSCRIBABLE_EVENTS.filter((event) => (events as string[]).includes(event));
    }
  }

  if (fields.description !== undefined) {
    const description = parseDescription(fields.description);
    if (description === undefined) problems.push({ field: 'description', message: DESCRIPTION_RULE });
    else input.description = description;
  }

  if (fields.min_value_usd !== undefined) {
    const minimum = fields.min_value_usd;
    if (minimum === null) input.min_value_usd = null;
    else if (typeof minimum !== 'number' || !(minimum >= 0 && minimum <= MAX_MIN_VALUE_USD)) {
      problems.push({ field: 'min_value_usd', message: MIN_VALUE_USD_RULE });
    } else input.min_value_usd = plainDecimal(minimum);
  }

  if (fields.tokens !== undefined) {
    const tokens = fields.tokens;
    if (tokens === null) input.tokens = null;
    else if (
      !Array.isArray(tokens) ||
      tokens.length === 0 ||
      tokens.length > MAX_WEBHOOK_TOKENS ||
      tokens.some((token) => !isTokenId(token))
    ) {
      problems.push({
        field: 'tokens',
        message: `tokens must be null or an array of 1 to ${MAX_WEBHOOK_TOKENS} token ids, as GET /v2/tokens shows them`,
      });
    } else input.tokens = [...new Set(tokens as string[])].sort(binaryOrder);
  }

  if (fields.status !== undefined && mode === 'update') {
    if (fields.status !== 'active' && fields.status !== 'paused') {
      problems.push({ field: 'status', message: 'status must be "active" or "paused"' });
    } else input.status = fields.status;
  }

  if (problems.length > 0) {
    throw new ApiError('INVALID_BODY', problems.map((problem) => problem.message).join('; '), problems);
  }
  return input;
}
