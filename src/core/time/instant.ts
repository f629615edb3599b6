/**
 * The one timestamp form chaintags accepts, in query strings and in imported files alike:
 * `YYYY-MM-DDTHH:MM:SSZ`, optionally with one to three fraction digits, always UTC. Offsets, a
 * space instead of `T`, leap seconds and calendar dates that do not exist are refused, so every
 * accepted value has exactly one stored form (`toISOString()`), which also orders correctly as text.
 */
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?Z$/;

export const INSTANT_RULE = 'a UTC timestamp YYYY-MM-DDTHH:MM:SSZ (milliseconds allowed)';

/** The canonical `toISOString()` form of an accepted timestamp, or undefined. */
export function parseInstant(input: unknown): string | undefined {
  if (typeof input !== 'string') return undefined;
  const parts = INSTANT.exec(input);
  if (!parts) return undefined;
  const [year, month, day, hour, minute, second] = parts.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const millisecond = Number((parts[7] ?? '').padEnd(3, '0'));
  // Year 0 does not exist in PostgreSQL's calendar, so it is refused on both databases.
  if (year < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 onto 1900-1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millisecond);
  // A day that does not exist in that month (2024-02-30) rolls over into the next one.
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
    return undefined;
  }
  return date.toISOString();
}
