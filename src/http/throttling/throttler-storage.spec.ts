import { ThrottlerStorageService } from '@nestjs/throttler';
import fc from 'fast-check';
import { SlidingWindowThrottlerStorage } from './throttler-storage';

/** One request as the guard sends it to the storage, after some time has passed. */
const step = fc.record({
  advanceMs: fc.integer({ min: 0, max: 2_500 }),
  key: fc.constantFrom('key:1', 'key:2'),
  throttler: fc.constantFrom('default', 'burst'),
});

describe('SlidingWindowThrottlerStorage', () => {
  beforeEach(() => jest.useFakeTimers({ now: Date.UTC(2026, 0, 1), doNotFake: ['performance'] }));
  afterEach(() => jest.useRealTimers());

  it.each([
    ['blocking for a while once over the limit', 4_000],
    ['not blocking (blockDuration 0)', 0],
  ])('answers exactly what @nestjs/throttler’s own storage answers, %s', async (_case, blockDuration) => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 120 }), async (steps) => {
        const reference = new ThrottlerStorageService();
        const storage = new SlidingWindowThrottlerStorage();
        try {
          for (const { advanceMs, key, throttler } of steps) {
            jest.setSystemTime(Date.now() + advanceMs);
            const expected = await reference.increment(key, 10_000, 5, blockDuration, throttler);
            expect(await storage.increment(key, 10_000, 5, blockDuration, throttler)).toEqual(expected);
          }
        } finally {
          reference.onApplicationShutdown();
          storage.onApplicationShutdown();
        }
      }),
    );
  });

  it('keeps the cost of a request flat however many hits the window holds', async () => {
    const storage = new SlidingWindowThrottlerStorage();
    try {
      const started = performance.now();
      let totalHits = 0;
      // 100 requests every 100 ms: the one-minute window fills up to 60,000 hits, then slides.
      for (let tick = 1; tick <= 1_000; tick += 1) {
        jest.setSystemTime(Date.now() + 100);
        for (let request = 0; request < 100; request += 1) {
          ({ totalHits } = await storage.increment('key:1', 60_000, 1_000_000, 60_000, 'default'));
        }
      }
      expect(totalHits).toBe(60_000);
      // The library's storage filters the whole window on every request: minutes for this loop.
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      storage.onApplicationShutdown();
    }
  });
});
