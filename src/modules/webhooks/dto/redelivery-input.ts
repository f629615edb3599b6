import { ApiError } from '../../../core/errors';
import { INSTANT_RULE, parseInstant } from '../../../core/time/instant';
import { bodyFields } from '../../../http/validation/body-fields';

/** At most this many deliveries named in one redelivery. */
export const MAX_REDELIVERIES_NAMED = 100;

/** What `POST /v2/webhooks/:id/redeliver` sends again: the failed deliveries since an instant, or the ones named. */
export type RedeliveryInput = { since: string } | { deliveries: string[] };

/**
 * Checks a redelivery body: a JSON object with exactly one of `since` (a UTC timestamp) and
 * `deliveries` (1 to 100 delivery ids), and nothing else; INVALID_BODY otherwise.
 */
export function parseRedeliveryInput(body: unknown): RedeliveryInput {
  const { fields, problems } = bodyFields(body, ['since', 'deliveries']);
  if (problems.length > 0) {
    throw new ApiError('INVALID_BODY', problems.map((problem) => problem.message).join('; '), problems);
  }
  if ((fields.since === undefined) === (fields.deliveries === undefined)) {
    throw new ApiError('INVALID_BODY', 'Send exactly one of "since" and "deliveries".');
  }
  if (fields.since !== undefined) {
    const since = parseInstant(fields.since);
    if (since === undefined) {
      throw new ApiError('INVALID_BODY', `since must be ${INSTANT_RULE}`, [
        { field: 'since', message: `since must be ${INSTANT_RULE}` },
      ]);
    }
    return { since };
  }
  const deliveries = fields.deliveries;
  if (
    !Array.isArray(deliveries) ||
    deliveries.length === 0 ||
    deliveries.length > MAX_REDELIVERIES_NAMED ||
    deliveries.some((id) => typeof id !== 'string')
  ) {
    const message = `deliveries must be an array of 1 to ${MAX_REDELIVERIES_NAMED} delivery ids`;
    throw new ApiError('INVALID_BODY', message, [{ field: 'deliveries', message }]);
  }
  return { deliveries: [...new Set(deliveries as string[])] };
}
