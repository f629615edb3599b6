import { sharedWhileInFlight } from './in-flight';

describe('sharedWhileInFlight', () => {
  it('answers callers that come while a call runs from that call, and asks again after it', async () => {
    let calls = 0;
    const shared = sharedWhileInFlight(() => Promise.resolve((calls += 1)));
    expect(await Promise.all([shared(), shared(), shared()])).toEqual([1, 1, 1]);
    expect(await shared()).toBe(2);
    expect(calls).toBe(2);
  });

  it('asks again after a call that failed', async () => {
    let calls = 0;
    const shared = sharedWhileInFlight(() => {
      calls += 1;
      return calls === 1 ? Promise.reject(new Error('down')) : Promise.resolve(calls);
    });
    const both = await Promise.allSettled([shared(), shared()]);
    expect(both.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(await shared()).toBe(2);
  });
});
