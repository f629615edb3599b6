import { MAX_RETRY_AFTER_MS, nextPollDelay, parseRetryAfter } from './poll-schedule';

describe('nextPollDelay', () => {
  const timing = { refreshMs: 300_000, maxBackoffMs: 3_600_000 };

  it('waits the refresh interval while the source answers', () => {
    expect(nextPollDelay(0, timing)).toBe(300_000);
  });

  it('doubles the wait with every failure of a streak, up to the maximum', () => {
    expect([1, 2, 3, 4, 5, 40].map((failures) => nextPollDelay(failures, timing))).toEqual([
      600_000, 1_200_000, 2_400_000, 3_600_000, 3_600_000, 3_600_000,
    ]);
  });

  it('never asks again before Retry-After, and does not take a Retry-After of weeks literally', () => {
    expect(nextPollDelay(1, timing, 7_200_000)).toBe(7_200_000);
    expect(nextPollDelay(1, timing, 1_000)).toBe(600_000);
    expect(nextPollDelay(1, timing, 30 * MAX_RETRY_AFTER_MS)).toBe(MAX_RETRY_AFTER_MS);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.UTC(2026, 10, 23, 12, 0, 0);

  it('reads delay-seconds and HTTP dates', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Mon, 23 Nov 2026 12:01:30 GMT', now)).toBe(90_000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 11:00:00 GMT', now)).toBe(0);
  });

  it('ignores a missing or unreadable header', () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
  });
});
