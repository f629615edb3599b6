import { DEFAULT_TUNING, nextSpan } from './chain-follower';

describe('nextSpan', () => {
  const tuning = { rangeBlocks: 100, maxRangeBlocks: 1000, rangeReadMs: 1500 };

  it('keeps rangeBlocks near the head, whatever the read took', () => {
    expect(nextSpan(100, 10, 150n, tuning)).toBe(100);
    expect(nextSpan(800, 10, 1000n, tuning)).toBe(100);
    expect(nextSpan(100, 10_000, 0n, tuning)).toBe(100);
  });

  it('doubles while far behind and reading fast, up to maxRangeBlocks', () => {
    expect(nextSpan(100, 400, 10_000n, tuning)).toBe(200);
    expect(nextSpan(400, 1499, 10_000n, tuning)).toBe(800);
    expect(nextSpan(800, 400, 10_000n, tuning)).toBe(1000);
    expect(nextSpan(1000, 400, 10_000n, tuning)).toBe(1000);
  });

  it('keeps a span read in one to two times rangeReadMs, and halves one read slower, never below rangeBlocks', () => {
    expect(nextSpan(400, 1500, 10_000n, tuning)).toBe(400);
    expect(nextSpan(400, 3000, 10_000n, tuning)).toBe(400);
    expect(nextSpan(400, 3001, 10_000n, tuning)).toBe(200);
    expect(nextSpan(150, 9000, 10_000n, tuning)).toBe(100);
  });

  it('has defaults that start from the range near the head', () => {
    expect(DEFAULT_TUNING.maxRangeBlocks).toBeGreaterThanOrEqual(DEFAULT_TUNING.rangeBlocks);
    expect(nextSpan(DEFAULT_TUNING.rangeBlocks, 0, 0n, DEFAULT_TUNING)).toBe(DEFAULT_TUNING.rangeBlocks);
  });
});
