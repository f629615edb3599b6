import { StatsCache } from './stats-cache';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

describe('StatsCache', () => {
  it('computes once per key and answers later requests from the entry', async () => {
    const cache = new StatsCache<number>(10);
    const compute = jest.fn(() => Promise.resolve(42));
    expect(await cache.get('7:1:1', compute)).toBe(42);
    expect(await cache.get('7:1:1', compute)).toBe(42);
    expect(compute).toHaveBeenCalledTimes(1);
  });

  it('computes afresh when the key (a revision) changes', async () => {
    const cache = new StatsCache<string>(10);
    expect(await cache.get('7:1:1', () => Promise.resolve('before'))).toBe('before');
    expect(await cache.get('7:2:1', () => Promise.resolve('after members changed'))).toBe('after members changed');
    expect(await cache.get('7:2:2', () => Promise.resolve('after an import'))).toBe('after an import');
  });

  it('lets concurrent requests for one key share a single computation', async () => {
    const cache = new StatsCache<number>(10);
    const pending = deferred<number>();
    const compute = jest.fn(() => pending.promise);
    const answers = Promise.all([cache.get('k', compute), cache.get('k', compute), cache.get('k', compute)]);
    pending.resolve(5);
    expect(await answers).toEqual([5, 5, 5]);
    expect(compute).toHaveBeenCalledTimes(1);
  });

  it('does not keep a failed computation', async () => {
    const cache = new StatsCache<number>(10);
    await expect(cache.get('k', () => Promise.reject(new Error('database went away')))).rejects.toThrow('went away');
    expect(cache.size).toBe(0);
    expect(await cache.get('k', () => Promise.resolve(3))).toBe(3);
  });

  it('drops the least recently used entry beyond its capacity', async () => {
    const cache = new StatsCache<string>(2);
    await cache.get('a', () => Promise.resolve('a'));
    await cache.get('b', () => Promise.resolve('b'));
    await cache.get('a', () => Promise.resolve('a again'));
    await cache.get('c', () => Promise.resolve('c'));
    expect(cache.size).toBe(2);
    expect(await cache.get('a', () => Promise.resolve('a recomputed'))).toBe('a');
    expect(await cache.get('b', () => Promise.resolve('b recomputed'))).toBe('b recomputed');
  });
});
