import { newKey } from './support/test-app';
import { freshDatabase } from './support/test-app';
import { RedisServer, startRedis } from './support/redis-server';
import { startServerProcess, ServerProcess } from './support/server-process';

/**
 * Two server processes with the same REDIS_URL: one budget per key between them. Without Redis,
 * each would allow the whole budget (the in-memory storage is per process).
 */
describe('rate limiting shared through Redis by two server processes', () => {
  let redis: RedisServer;
  let database: { url: string; drop: () => Promise<void> };
  const servers: ServerProcess[] = [];
  const alice = newKey();
  const bob = newKey();

  beforeAll(async () => {
    redis = await startRedis();
    database = await freshDatabase('postgres');
    const env = {
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      RATE_LIMIT_PER_MINUTE: '4',
      API_KEYS: `alice:${alice},bob:${bob}`,
    };
    // One after the other: both create the keys of API_KEYS when absent.
    servers.push(await startServerProcess(env));
    servers.push(await startServerProcess(env));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.kill()));
    await redis?.stop();
    await database?.drop();
  });

  function tags(server: ServerProcess, key: string): Promise<Response> {
    return fetch(`${server.url}/v2/tags`, { headers: { 'X-API-Key': key } });
  }

  it('gives a key one budget across both processes', async () => {
    const [first, second] = servers as [ServerProcess, ServerProcess];
    const statuses: number[] = [];
    let refused: Response | undefined;
    for (const server of [first, second, first, second, first, second]) {
      const response = await tags(server, alice);
      statuses.push(response.status);
      if (response.status === 429) refused ??= response;
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused!.json()).toMatchObject({ code: 'RATE_LIMITED' });
    // Another key has a budget of its own.
    expect((await tags(second, bob)).status).toBe(200);
  });

  it('lets requests through unlimited while Redis is gone, and counts them', async () => {
    await redis.stop();
    const [first] = servers as [ServerProcess];
    for (let request = 0; request < 6; request += 1) expect((await tags(first, bob)).status).toBe(200);
    const metrics = await (await fetch(`${first.url}/metrics`)).text();
    expect(metrics).toMatch(/^chaintags_rate_limit_storage_errors_total 6$/m);
  });
});
