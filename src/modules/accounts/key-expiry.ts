import { INSTANT_RULE, parseInstant } from '../../core/time/instant';

/** How `keys create --expires` and `keys expire` name when a key expires. */
export const EXPIRY_RULE = `${INSTANT_RULE}, or a time from now: a whole number of minutes, hours or days (90m, 12h, 30d), or "now"`;

/** Up to six digits: 999999d is some 2,700 years on, so the instant keeps its four year digits. */
const FROM_NOW = /^(\d{1,6})([mhd])$/;
const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * The instant an expiry names, as `toISOString()` writes it: a timestamp as given, a time after
 * `now` (`30d`), or `now` itself; undefined for anything else.
 */
export function parseExpiry(input: string, now: Date): string | undefined {
  if (input === 'now') return now.toISOString();
  const fromNow = FROM_NOW.exec(input);
  if (fromNow === null) return parseInstant(input);
  return new Date(now.getTime() + Number(fromNow[1]) * UNIT_MS[fromNow[2]!]!).toISOString();
}
