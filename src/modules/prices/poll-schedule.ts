/** When the price poller asks the source next. Pure, so the back-off can be tested without timers. */
import { backoff } from '../../core/time/backoff';

export interface PollTiming {
  refreshMs: number;
  maxBackoffMs: number;
}

/** A `Retry-After` longer than a day is not taken literally. */
export const MAX_RETRY_AFTER_MS = 86_400_000;

/**
 * The wait before the next poll. After `failures` consecutive failed polls it doubles with each
 * one (2×, 4×, 8× the refresh interval …) up to `maxBackoffMs`, and never ends before the source's
 * `Retry-After`.
 */
export function nextPollDelay(failures: number, timing: PollTiming, retryAfterMs?: number): number {
  if (failures === 0) return timing.refreshMs;
  return Math.max(
    backoff(failures, timing.refreshMs, timing.maxBackoffMs),
    Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS),
  );
}

/** IMF-fixdate, the form servers send: `Sun, 06 Nov 1994 08:49:37 GMT`. */
const HTTP_DATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/** `Retry-After` in milliseconds from now: delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(header: string | null, nowMs: number): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // Date.parse alone would also read "-5" or "12" as dates.
  if (!HTTP_DATE.test(value)) return undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}
