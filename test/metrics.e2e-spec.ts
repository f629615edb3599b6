import { version as packageVersion } from '../package.json';
import request from 'supertest';
import { createApp } from '../src/app.factory';
import { parseConfig } from '../src/config/config';
import { Metrics } from '../src/http/metrics/metrics.service';
import { keyPrefix } from '../src/modules/accounts/api-key';
import { evmAddress, segwitAddress } from './support/factories';
import { find, parse, Sample } from './support/prometheus';
import { DATABASES, startOnFreshDatabase, TestApp } from './support/test-app';

describe.each(DATABASES)('GET /metrics on %s', (kind) => {
  let t: TestApp;
  const tag = 'metrics_whales';
  const evm = evmAddress('metrics');
  const segwit = segwitAddress('metrics');

  beforeAll(async () => {
    t = await startOnFreshDatabase(kind, { rateLimitPerMinute: 1000, processMetrics: true });
  });

  afterAll(async () => {
    await t.close();
  });

  async function scrape(): Promise<{ text: string; samples: Sample[] }> {
    const response = await t.http().get('/metrics').expect(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    return { text: response.text, samples: parse(response.text) };
  }

  it('counts requests and their latency by route template and status, never by what they name', async () => {
    const { alice, bob } = t.keys;
    await t
      .http()
      .post(`/v2/tags/${tag}`)
      .set('X-API-Key', alice)
      .set('Content-Type', 'application/json')
      .send([evm.input, segwit.input])
      .expect(200);
    await t.http().get(`/v2/tags/${tag}?api_key=${alice}`).expect(200);
    await t.http().get(`/v2/tags/${tag}`).set('X-API-Key', bob).expect(404);
    await t.http().get(`/v2/addresses/${evm.input}`).set('X-API-Key', bob).expect(200);
    await t.http().get(`/v2/transactions?address=${segwit.input}`).set('X-API-Key', alice).expect(200);
    await t
      .http()
      .get('/v2/chains')
      .set('X-API-Key', `ctk_${'n'.repeat(40)}`)
      .expect(401);
    await t.http().get(`/v2/${tag}/${evm.canonical}`).set('X-API-Key', alice).expect(404);

    const { text, samples } = await scrape();
    const requests = (method: string, route: string, status: string) =>
      find(samples, 'chaintags_http_requests_total', { method, route, status })?.value;
    expect(requests('POST', '/v2/tags/:tag', '200')).toBe(1);
    expect(requests('GET', '/v2/tags/:tag', '200')).toBe(1);
    expect(requests('GET', '/v2/tags/:tag', '404')).toBe(1);
    expect(requests('GET', '/v2/addresses/:address', '200')).toBe(1);
    expect(requests('GET', '/v2/transactions', '200')).toBe(1);
    expect(requests('GET', '/v2/chains', '401')).toBe(1);
    expect(requests('GET', 'unmatched', '404')).toBe(1);
    expect(
      find(samples, 'chaintags_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/v2/tags/:tag',
        status: '200',
      })?.value,
    ).toBe(1);

    const routes = new Set(samples.map((sample) => sample.labels.route).filter((route) => route !== undefined));
    for (const route of routes) expect(route).toMatch(/^(unmatched|\/[a-z0-9/:_-]*)$/);
    for (const secret of [
      tag,
      evm.input,
      evm.canonical,
      segwit.input,
      segwit.canonical,
      alice,
      bob,
      keyPrefix(alice),
      keyPrefix(bob),
      'alice',
      'bob',
      'nnnnnnnn',
    ]) {
      expect(text).not.toContain(secret);
    }
  });

  it('shows the database pool on PostgreSQL, and no pool figures on SQLite', async () => {
    // A statement just before, so that its connection is idle in the pool (pg closes idle ones after 10 s).
    await t.http().get('/health').expect(200);
    const { samples } = await scrape();
    const max = find(samples, 'chaintags_db_pool_connections_max');
    if (kind === 'postgres') {
      expect(max?.value).toBe(20);
      expect(find(samples, 'chaintags_db_pool_connections_in_use')?.value).toBeGreaterThanOrEqual(0);
      expect(find(samples, 'chaintags_db_pool_connections_idle')?.value).toBeGreaterThan(0);
      expect(find(samples, 'chaintags_db_pool_waiting')?.value).toBe(0);
    } else {
      expect(samples.filter((sample) => sample.name.startsWith('chaintags_db_pool'))).toEqual([]);
    }
  });

  it('shows what the price source reports, the version and Node.js process metrics, and no follower of a chain nobody follows', async () => {
    const metrics = t.app.get(Metrics);
    metrics.priceSourceErrors.inc();
    const { samples } = await scrape();
    // No chain has an RPC URL here (test/follow-processes.e2e-spec.ts shows a followed one).
    expect(samples.filter((sample) => sample.name.startsWith('chaintags_follower_'))).toEqual([]);
    expect(find(samples, 'chaintags_price_source_errors_total')?.value).toBe(1);
    expect(find(samples, 'chaintags_build_info', { version: packageVersion })?.value).toBe(1);
    expect(find(samples, 'process_cpu_user_seconds_total')?.value).toBeGreaterThan(0);
    expect(find(samples, 'nodejs_heap_size_used_bytes')?.value).toBeGreaterThan(0);
  });
});

describe('GET /metrics', () => {
  it('needs no key and is not rate limited', async () => {
    const t = await startOnFreshDatabase('sqlite', { rateLimitPerMinute: 1 });
    try {
      for (let scrape = 0; scrape < 3; scrape += 1) await t.http().get('/metrics').expect(200);
    } finally {
      await t.close();
    }
  });

  it("leaves out the process's own metrics for an app created with processMetrics false", async () => {
    const t = await startOnFreshDatabase('sqlite', { processMetrics: false });
    try {
      const response = await t.http().get('/metrics').expect(200);
      const names = parse(response.text).map((sample) => sample.name);
      expect(names).toContain('chaintags_price_source_errors_total');
      expect(names.filter((name) => name.startsWith('process_') || name.startsWith('nodejs_'))).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('is gone with METRICS=off', async () => {
    const app = await createApp(parseConfig({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent', METRICS: 'off' }));
    await app.init();
    try {
      const response = await request(app.getHttpServer()).get('/metrics').expect(404);
      expect(response.body).toMatchObject({ code: 'NOT_FOUND' });
    } finally {
      await app.close();
    }
  });
});
