import { readFileSync } from 'node:fs';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { renderOpenApi, OPENAPI_PATH } from '../scripts/openapi';
import { CHAIN_IDS } from '../src/core/chains/chain-ids';
import { importLines, parseLinks, tagAddresses } from './support/fixtures';
import { keyPrefix } from '../src/modules/accounts/api-key';
import { transaction, transactionLine } from './support/factories';
import { DATABASES, newKey, startOnFreshDatabase, TestApp } from './support/test-app';

describe.each(DATABASES)('foundation on %s', (kind) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startOnFreshDatabase(kind);
  });

  afterAll(async () => {
    await t.close();
  });

  describe('API keys', () => {
    it('answers 401 UNAUTHORIZED without a key, with a made-up key and with an empty key', async () => {
      for (const path of ['/v2/chains', `/v2/chains?api_key=ctk_${'x'.repeat(40)}`, '/v2/chains?api_key=']) {
        const response = await t.http().get(path);
        expect(response.status).toBe(401);
        expect(response.body).toMatchObject({ statusCode: 401, error: 'Unauthorized', code: 'UNAUTHORIZED' });
      }
    });

    it('accepts the key as api_key or as the X-API-Key header', async () => {
      await t.http().get(`/v2/chains?api_key=${t.keys.alice}`).expect(200);
      await t.http().get('/v2/chains').set('X-API-Key', t.keys.bob).expect(200);
    });

    it('rejects a revoked key on the next request', async () => {
      const accounts = t.app.get(AccountsService);
      const key = await accounts.createKey('carol');
      await t.http().get('/v2/chains').set('X-API-Key', key).expect(200);
      await accounts.revokeKey(key.slice(0, 12));
      const response = await t.http().get('/v2/chains').set('X-API-Key', key);
      expect(response.status).toBe(401);
      expect(response.body.code).toBe('UNAUTHORIZED');
    });

    it('lists keys by prefix only and stores no key in plain text', async () => {
      const listed = await t.app.get(AccountsService).listKeys();
      expect(listed.map((key) => key.prefix)).toEqual(
        expect.arrayContaining([t.keys.alice.slice(0, 12), t.keys.bob.slice(0, 12)]),
      );
      expect(JSON.stringify(listed)).not.toContain(t.keys.alice);
    });
  });

  describe('GET /v2/chains', () => {
    it('lists the 13 chains in contract order with explorer templates', async () => {
      const { body } = await t.http().get('/v2/chains').set('X-API-Key', t.keys.alice).expect(200);
      expect(body.map((chain: { chain: string }) => chain.chain)).toEqual([...CHAIN_IDS]);
      const byId = Object.fromEntries(
        body.map((chain: { chain: string; chainId: number }) => [chain.chain, chain.chainId]),
      );
      expect(byId).toMatchObject({
        ethereum: 1,
        bnb: 56,
        polygon: 137,
        arbitrum: 42161,
        optimism: 10,
        base: 8453,
        bitcoin: -1,
        ton: -1,
      });
      for (const chain of body) {
        expect(Object.keys(chain).sort()).toEqual(['chain', 'chainId', 'explorers', 'icon_url', 'name']);
        expect(chain.explorers.length).toBeGreaterThan(0);
        for (const explorer of chain.explorers) {
          expect(explorer.tx_url).toContain('{{tx_id}}');
          expect(explorer.address_url).toContain('{{address}}');
        }
      }
    });

    it('rejects unknown query parameters', async () => {
      const response = await t.http().get('/v2/chains?chain=bitcoin').set('X-API-Key', t.keys.alice);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'INVALID_QUERY', details: [{ parameter: 'chain' }] });
    });
  });

  describe('GET /v2/tokens', () => {
    const get = (query: string) => t.http().get(`/v2/tokens?api_key=${t.keys.alice}${query}`);

    it('lists tokens by id with deployments, USDT decimals differing per chain', async () => {
      const { body, headers } = await get('&per_page=100').expect(200);
      expect(headers.link).toBeUndefined();
      const ids = body.map((token: { id: string }) => token.id);
      expect(ids).toEqual([...ids].sort());
      const tether = body.find((token: { id: string }) => token.id === 'tether');
      const decimals = Object.fromEntries(
        tether.deployments.map((d: { chain: string; decimals: number }) => [d.chain, d.decimals]),
      );
      expect(decimals).toMatchObject({ ethereum: 6, bnb: 18 });
      const ether = body.find((token: { id: string }) => token.id === 'ethereum');
      expect(ether.deployments.map((d: { chain: string; address: string }) => `${d.chain}:${d.address}`)).toEqual([
        'ethereum:0',
        'arbitrum:0',
        'optimism:0',
        'base:0',
      ]);
    });

    it('finds the tokens deployed on a chain, at an address in any spelling, or both', async () => {
      type Listed = { id: string; deployments: { chain: string; address: string }[] };
      const all = (await get('&per_page=100').expect(200)).body as Listed[];
      const ids = (tokens: Listed[]) => tokens.map((token) => token.id);
      const deployedWhere = (test: (deployment: { chain: string; address: string }) => boolean) =>
        ids(all.filter((token) => token.deployments.some(test)));
      const onSolana = (await get('&per_page=100&chain=solana').expect(200)).body as Listed[];
      expect(ids(onSolana)).toEqual(deployedWhere((deployment) => deployment.chain === 'solana'));
      expect(ids(onSolana)).toEqual(expect.arrayContaining(['solana', 'tether', 'usd-coin']));
      const usdt = '0xdac17f958d2ee523a2206206994597c13d831ec7';
      const tether = all.find((token) => token.id === 'tether');
      // The matching token with every one of its deployments, found by an upper-case spelling.
      expect((await get(`&chain=ethereum&address=${usdt.toUpperCase().replace('0X', '0x')}`).expect(200)).body).toEqual(
        [tether],
      );
      expect(ids((await get(`&address=${usdt}`).expect(200)).body as Listed[])).toEqual(['tether']);
      expect((await get(`&chain=bnb&address=${usdt}`).expect(200)).body).toEqual([]);
      const natives = (await get('&per_page=100&address=0').expect(200)).body as Listed[];
      expect(ids(natives)).toEqual(deployedWhere((deployment) => deployment.address === '0'));
      expect(natives.length).toBeGreaterThanOrEqual(10);
      const mint = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
      expect(ids((await get(`&chain=solana&address=${mint}`).expect(200)).body as Listed[])).toEqual(['usd-coin']);
      for (const [query, code] of [
        [`&chain=ethereum&address=${mint}`, 'INVALID_ADDRESS'],
        ['&address=0x1234', 'INVALID_ADDRESS'],
        ['&chain=nowhere', 'INVALID_QUERY'],
      ] as const) {
        const refused = await get(query);
        expect({ query, status: refused.status, code: (refused.body as { code: string }).code }).toEqual({
          query,
          status: 400,
          code,
        });
      }
      const named = await get(`&chain=ethereum&address=${mint}`);
      expect((named.body as { details: { parameter: string }[] }).details).toMatchObject([{ parameter: 'address' }]);
    });

    it('pages with GitHub-style Link headers that repeat every parameter', async () => {
      const all = (await get('&per_page=100')).body as { id: string }[];
      const perPage = 4;
      const last = Math.ceil(all.length / perPage);
      const first = await get(`&per_page=${perPage}`).expect(200);
      expect(first.body.map((token: { id: string }) => token.id)).toEqual(
        all.slice(0, perPage).map((token) => token.id),
      );
      const links = parseLinks(first.headers.link);
      expect(Object.keys(links).sort()).toEqual(['last', 'next']);
      const next = new URL(links.next!);
      expect(next.searchParams.get('api_key')).toBe(t.keys.alice);
      expect(next.searchParams.get('per_page')).toBe(String(perPage));
      expect(next.searchParams.get('page')).toBe('2');
      expect(new URL(links.last!).searchParams.get('page')).toBe(String(last));

      const middle = parseLinks((await get(`&per_page=${perPage}&page=2`)).headers.link);
      expect(Object.keys(middle).sort()).toEqual(['first', 'last', 'next', 'prev']);
      const lastPage = await get(`&per_page=${perPage}&page=${last}`);
      expect(Object.keys(parseLinks(lastPage.headers.link)).sort()).toEqual(['first', 'prev']);
      expect(lastPage.body.map((token: { id: string }) => token.id)).toEqual(
        all.slice((last - 1) * perPage).map((token) => token.id),
      );
      const beyond = await get(`&per_page=${perPage}&page=${last + 1}`).expect(200);
      expect(beyond.body).toEqual([]);
      // The total still comes back past the end: the link back names the last page.
      expect(new URL(parseLinks(beyond.headers.link).prev!).searchParams.get('page')).toBe(String(last));
    });

    it('answers a far page with an empty list', async () => {
      expect((await get('&page=1000000000').expect(200)).body).toEqual([]);
    });

    it.each([
      'per_page=0',
      'per_page=101',
      'per_page=abc',
      'per_page=2.5',
      'page=0',
      'page=-1',
      'page=1000000001',
      'per_page=1&per_page=2',
      'limit=5',
    ])('rejects %s with 400 INVALID_QUERY', async (query) => {
      const response = await get(`&${query}`);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('INVALID_QUERY');
    });
  });

  describe('errors and headers', () => {
    it('answers unknown routes with 404 NOT_FOUND in the contract body', async () => {
      const response = await t.http().get('/v2/nothing-here').set('X-API-Key', t.keys.alice);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({
        statusCode: 404,
        error: 'Not Found',
        code: 'NOT_FOUND',
        message: 'No route GET /v2/nothing-here',
      });
    });

    it("answers a path parameter with broken percent-encoding with the route's own 400", async () => {
      const address = await t.http().get('/v2/addresses/%FF').set('X-API-Key', t.keys.alice);
      expect([address.status, address.body.code]).toEqual([400, 'INVALID_ADDRESS']);
      const tag = await t.http().get('/v2/tags/%E0%A4%A').set('X-API-Key', t.keys.alice);
      expect([tag.status, tag.body.code]).toEqual([400, 'INVALID_TAG']);
    });

    it('names the parameter in the code and message its route declares, on every method', async () => {
      const cases: [Method, string, string, string][] = [
        ['get', '/v2/addresses/%E0%A4%A', 'INVALID_ADDRESS', 'address'],
        ['get', '/v2/tags/%FF/addresses', 'INVALID_TAG', 'tag'],
        ['post', '/v2/tags/%FF', 'INVALID_TAG', 'tag'],
        ['delete', '/v2/tags/%FF', 'INVALID_TAG', 'tag'],
      ];
      for (const [method, path, code, name] of cases) {
        const response = await t.http()[method](path).set('X-API-Key', t.keys.alice);
        expect({ path, status: response.status, body: response.body }).toEqual({
          path,
          status: 400,
          body: {
            statusCode: 400,
            error: 'Bad Request',
            code,
            message: `The ${name} in the path is not valid percent-encoded text.`,
          },
        });
      }
    });

    it('answers a webhook or delivery id it cannot decode as one that does not exist', async () => {
      for (const path of ['/v2/webhooks/%FF', '/v2/webhooks/wh_%E0%A4/deliveries']) {
        const response = await t.http().get(path).set('X-API-Key', t.keys.alice);
        expect({ path, status: response.status, body: response.body }).toEqual({
          path,
          status: 404,
          body: {
            statusCode: 404,
            error: 'Not Found',
            code: 'WEBHOOK_NOT_FOUND',
            message: 'The id in the path is not valid percent-encoded text.',
          },
        });
      }
      const delivery = await t
        .http()
        .get('/v2/webhooks/wh_AAAAAAAAAAAAAAAA/deliveries/evt_%FF')
        .set('X-API-Key', t.keys.alice);
      expect({ status: delivery.status, body: delivery.body as unknown }).toEqual({
        status: 404,
        body: {
          statusCode: 404,
          error: 'Not Found',
          code: 'DELIVERY_NOT_FOUND',
          message: 'The delivery_id in the path is not valid percent-encoded text.',
        },
      });
    });

    it('sends a request id, security headers and no X-Powered-By', async () => {
      const response = await t.http().get('/health').expect(200);
      expect(response.body).toEqual({ status: 'ok' });
      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      const csp = String(response.headers['content-security-policy']);
      expect(csp).toContain("script-src 'self';");
      expect(csp).not.toContain('upgrade-insecure-requests');
      expect(response.headers['x-powered-by']).toBeUndefined();
    });

    it('serves Swagger UI and the OpenAPI document without a key', async () => {
      const ui = await t.http().get('/docs').redirects(1);
      expect(ui.status).toBe(200);
      expect(ui.text).toContain('swagger');
      const { body } = await t.http().get('/docs-json').expect(200);
      expect(body.openapi).toMatch(/^3\./);
      expect(Object.keys(body.components.securitySchemes).sort()).toEqual(['X-API-Key', 'api_key']);
      // Swagger UI keeps the key entered under Authorize across reloads, and sends requests at once.
      const init = await t.http().get('/docs/swagger-ui-init.js').expect(200);
      for (const option of ['persistAuthorization', 'tryItOutEnabled', 'displayRequestDuration', 'filter']) {
        expect(init.text).toMatch(new RegExp(`"${option}": true`));
      }
    });

    it('describes every operation and every answer of it in the OpenAPI document', async () => {
      const { body } = await t.http().get('/docs-json').expect(200);
      const operations = Object.entries(
        body.paths as Record<
          string,
          Record<string, { summary?: string; responses: Record<string, { description?: string }> }>
        >,
      ).flatMap(([path, item]) =>
        Object.entries(item).map(([method, operation]) => ({ at: `${method} ${path}`, operation })),
      );
      expect(operations.length).toBeGreaterThan(20);
      const undescribed = operations.flatMap(({ at, operation }) => [
        ...(operation.summary ? [] : [`${at}: no summary`]),
        ...Object.entries(operation.responses)
          .filter(([, response]) => !response.description)
          .map(([status]) => `${at} ${status}: no description`),
      ]);
      expect(undescribed).toEqual([]);
      // Each operation in a group the document describes.
      const groups = new Map((body.tags as { name: string; description?: string }[]).map((tag) => [tag.name, tag]));
      const ungrouped = operations
        .filter(
          ({ operation }) => !(operation as { tags?: string[] }).tags?.every((tag) => groups.get(tag)?.description),
        )
        .map(({ at }) => at);
      expect(ungrouped).toEqual([]);
    });

    it("documents the headers of every answer: the request id, the rate limit's, Retry-After on a 429", async () => {
      const { body } = await t.http().get('/docs-json').expect(200);
      expect(body.components.headers['X-Request-Id'].required).toBe(true);
      const problems: string[] = [];
      for (const [path, item] of Object.entries(
        body.paths as Record<string, Record<string, { responses: Record<string, { headers?: object }> }>>,
      )) {
        for (const [method, operation] of Object.entries(item)) {
          for (const [status, response] of Object.entries(operation.responses)) {
            const names = Object.keys(response.headers ?? {});
            const at = `${method} ${path} ${status}`;
            if (!names.includes('X-Request-Id')) problems.push(`${at}: no X-Request-Id`);
            if (!path.startsWith('/v2/')) continue;
            if (status === '429' && !names.includes('Retry-After')) problems.push(`${at}: no Retry-After`);
            if (/^[23]/.test(status) && !names.includes('X-RateLimit-Remaining')) problems.push(`${at}: no rate limit`);
          }
        }
      }
      expect(problems).toEqual([]);
    });
  });

  describe('every /v2 route needs a key', () => {
    it('answers 401 on each registered route when no key is sent', async () => {
      const routes = registeredRoutes(t);
      expect(routes.length).toBeGreaterThanOrEqual(3);
      for (const { method, path } of routes.filter((route) => route.path.startsWith('/v2/'))) {
        const concrete = path
          .replace(/:tag/g, 'some_tag')
          .replace(/:address/g, '0x52908400098527886e0f7030069857d2e4169ee7')
          .replace(/:id/g, 'wh_walkerwalkerwalke');
        const response = await t.http()[method](concrete).set('Content-Type', 'application/json').send('["x"]');
        expect({ method, path, status: response.status, code: response.body.code }).toEqual({
          method,
          path,
          status: 401,
          code: 'UNAUTHORIZED',
        });
      }
    });
  });

  describe('a read-only key', () => {
    it('reads every GET route and is refused on every other /v2 route, which then changes nothing', async () => {
      const reader = await t.app.get(AccountsService).createKey('alice', 'read');
      await tagAddresses(t, t.keys.alice, 'walker_tag', [WALKER_ADDRESS]).expect(200);
      const routes = registeredRoutes(t).filter((route) => route.path.startsWith('/v2/'));
      const writes = routes.filter((route) => route.method !== 'get');
      expect(writes.length).toBeGreaterThanOrEqual(10);
      for (const { method, path } of routes) {
        const concrete = walkerPath(path);
        const http = t.http();
        const response = await http[method](`${concrete}?${requiredQuery(path)}`)
          .set('X-API-Key', reader)
          .set('Content-Type', 'application/json')
          .send(`["${WALKER_ADDRESS}"]`);
        if (method === 'get') {
          // Reads are answered as for any key of the account (an unknown webhook is its 404).
          expect({ path, status: response.status }).toEqual({
            path,
            status: path.includes(':id') ? 404 : 200,
          });
        } else {
          expect({ method, path, status: response.status, code: response.body.code }).toEqual({
            method,
            path,
            status: 403,
            code: 'READ_ONLY_KEY',
          });
        }
      }
      // The tag and its member are as they were, and the key is the account's for reading.
      const tag = await t.http().get('/v2/tags/walker_tag/addresses').set('X-API-Key', reader).expect(200);
      expect(tag.body.map((row: { address: string }) => row.address)).toEqual([WALKER_ADDRESS]);
      const history = await t.http().get('/v2/tags/walker_tag/history').set('X-API-Key', reader).expect(200);
      expect(history.body.every((entry: { key: string }) => entry.key === keyPrefix(t.keys.alice))).toBe(true);
    });
  });

  describe('every route rejects unknown query parameters', () => {
    it('answers 400 INVALID_QUERY on each registered route for a parameter it does not take, and takes api_key', async () => {
      const routes = registeredRoutes(t).filter((route) => !isDocumentation(route.path));
      expect(routes.map((route) => route.path)).toEqual(
        expect.arrayContaining(['/health', '/v2/chains', '/v2/tags/:tag', '/v2/addresses/:address']),
      );
      const unknown = 'unknown query parameter "not_a_parameter"';
      for (const { method, path } of routes) {
        // A valid tag, address and body: the unknown parameter is the request's only fault.
        const url = `${walkerPath(path)}?${requiredQuery(path)}`;
        const send = (query: string) =>
          t.http()[method](`${url}${query}`).set('Content-Type', 'application/json').send([WALKER_ADDRESS]);
        const rejected = await send(`api_key=${t.keys.alice}&not_a_parameter=1`);
        expect({ method, path, status: rejected.status, body: rejected.body }).toEqual({
          method,
          path,
          status: 400,
          body: {
            statusCode: 400,
            error: 'Bad Request',
            code: 'INVALID_QUERY',
            message: unknown,
            details: [{ parameter: 'not_a_parameter', message: unknown }],
          },
        });
        // Taken: whatever else the route answers (a webhook route refuses an address-array body), it is not INVALID_QUERY.
        const accepted = await send(`api_key=${t.keys.alice}`);
        expect({ method, path, code: accepted.body.code }).not.toEqual({ method, path, code: 'INVALID_QUERY' });
      }
    });

    it('lists unknown parameters before bad values of known ones, in one answer', async () => {
      const response = await t.http().get('/v2/tokens?per_page=0&limit=5').set('X-API-Key', t.keys.alice);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        statusCode: 400,
        error: 'Bad Request',
        code: 'INVALID_QUERY',
        message: 'unknown query parameter "limit"; per_page must be a whole number from 1 to 100',
        details: [
          { parameter: 'limit', message: 'unknown query parameter "limit"' },
          { parameter: 'per_page', message: 'per_page must be a whole number from 1 to 100' },
        ],
      });
    });

    it('rejects names that objects carry anyway, such as constructor', async () => {
      for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
        const response = await t.http().get(`/v2/chains?${name}=1`).set('X-API-Key', t.keys.alice);
        expect([name, response.status, response.body.details]).toEqual([
          name,
          400,
          [{ parameter: name, message: `unknown query parameter "${name}"` }],
        ]);
      }
    });

    it('still answers 401 first when the key is missing', async () => {
      const response = await t.http().get('/v2/chains?limit=5');
      expect([response.status, response.body.code]).toEqual([401, 'UNAUTHORIZED']);
    });
  });
});

describe('rate limiting', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startOnFreshDatabase('sqlite', { rateLimitPerMinute: 3 });
  });

  afterAll(async () => {
    await t.close();
  });

  it('gives each key one budget across all routes, and says when to retry', async () => {
    const paths = ['/v2/chains', '/v2/tokens', '/v2/tags'];
    for (let remaining = 2; remaining >= 0; remaining -= 1) {
      const response = await t.http().get(paths[remaining]!).set('X-API-Key', t.keys.alice).expect(200);
      expect(response.headers['x-ratelimit-limit']).toBe('3');
      expect(response.headers['x-ratelimit-remaining']).toBe(String(remaining));
    }
    for (const path of paths) {
      const limited = await t.http().get(path).set('X-API-Key', t.keys.alice);
      expect(limited.status).toBe(429);
      expect(limited.body).toMatchObject({ statusCode: 429, code: 'RATE_LIMITED' });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    }
    await t.http().get('/v2/chains').set('X-API-Key', t.keys.bob).expect(200);
  });

  it('counts a request with an unknown query parameter, and limits before checking the query', async () => {
    const key = await t.app.get(AccountsService).createKey('dave');
    const rejected = await t.http().get('/v2/chains?limit=5').set('X-API-Key', key);
    expect([rejected.status, rejected.body.code, rejected.headers['x-ratelimit-remaining']]).toEqual([
      400,
      'INVALID_QUERY',
      '2',
    ]);
    await t.http().get('/v2/chains').set('X-API-Key', key).expect(200);
    await t.http().get('/v2/chains').set('X-API-Key', key).expect(200);
    const limited = await t.http().get('/v2/chains?limit=5').set('X-API-Key', key);
    expect([limited.status, limited.body.code]).toEqual([429, 'RATE_LIMITED']);
  });
});

describe('browsers on other origins (CORS_ORIGINS)', () => {
  const page = 'https://dash.example.com';
  let listed: TestApp;
  let closed: TestApp;
  let open: TestApp;

  beforeAll(async () => {
    listed = await startOnFreshDatabase('sqlite', {
      rateLimitPerMinute: 3,
      env: { CORS_ORIGINS: `${page}, http://localhost:5173` },
    });
    closed = await startOnFreshDatabase('sqlite');
    open = await startOnFreshDatabase('sqlite', { env: { CORS_ORIGINS: '*' } });
  });

  afterAll(async () => {
    await listed.close();
    await closed.close();
    await open.close();
  });

  const preflight = (t: TestApp, origin: string, method = 'POST', headers = 'content-type,x-api-key,idempotency-key') =>
    t
      .http()
      .options('/v2/webhooks')
      .set('Origin', origin)
      .set('Access-Control-Request-Method', method)
      .set('Access-Control-Request-Headers', headers);

  it("answers a listed origin's preflight without a key, naming what the page may send", async () => {
    const response = await preflight(listed, page).expect(204);
    expect(response.headers['access-control-allow-origin']).toBe(page);
    expect(response.headers['vary']).toMatch(/Origin/);
    expect(response.headers['access-control-allow-methods']!.split(',')).toEqual(
      expect.arrayContaining(['GET', 'POST', 'PATCH', 'DELETE']),
    );
    expect(response.headers['access-control-allow-headers']!.toLowerCase().split(',')).toEqual(
      expect.arrayContaining(['content-type', 'x-api-key', 'idempotency-key', 'if-none-match']),
    );
    expect(response.headers['access-control-max-age']).toBe('600');
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
    const local = await preflight(listed, 'http://localhost:5173', 'DELETE').expect(204);
    expect(local.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    // CORS_ORIGINS=*: any page, answered with * rather than its origin.
    expect(
      (await preflight(open, 'https://anyone.example.org').expect(204)).headers['access-control-allow-origin'],
    ).toBe('*');
    const read = await open
      .http()
      .get('/v2/chains')
      .set('Origin', 'https://anyone.example.org')
      .set('X-API-Key', open.keys.bob);
    expect([read.status, read.headers['access-control-allow-origin']]).toEqual([200, '*']);
  });

  it('gives an unlisted origin no access, and a server without CORS_ORIGINS none at all', async () => {
    for (const [t, origin] of [
      [listed, 'https://evil.example.com'],
      [listed, 'http://dash.example.com'],
      [closed, page],
    ] as const) {
      const answer = await preflight(t, origin);
      expect(answer.headers['access-control-allow-origin']).toBeUndefined();
      const read = await t.http().get('/v2/chains').set('Origin', origin).set('X-API-Key', t.keys.bob);
      expect(read.status).toBe(200);
      expect(read.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('lets the page read answers, errors included, and the headers it needs to page and back off', async () => {
    const read = await listed
      .http()
      .get('/v2/tokens?per_page=1')
      .set('Origin', page)
      .set('X-API-Key', listed.keys.alice);
    expect(read.status).toBe(200);
    expect(read.headers['access-control-allow-origin']).toBe(page);
    expect(read.headers['link']).toBeDefined();
    const exposed = read.headers['access-control-expose-headers']!.toLowerCase().split(',');
    expect(exposed).toEqual(
      expect.arrayContaining([
        'link',
        'etag',
        'retry-after',
        'x-ratelimit-remaining',
        'x-request-id',
        'idempotent-replayed',
      ]),
    );
    const unauthorised = await listed.http().get('/v2/tags').set('Origin', page);
    expect([unauthorised.status, unauthorised.body.code]).toEqual([401, 'UNAUTHORIZED']);
    expect(unauthorised.headers['access-control-allow-origin']).toBe(page);
    // A preflight spends none of the key's budget (3 a minute here): it carries no key.
    for (let i = 0; i < 5; i += 1) await preflight(listed, page, 'GET', 'x-api-key').expect(204);
    await listed.http().get('/v2/chains').set('X-API-Key', listed.keys.alice).expect(200);
    await listed.http().get('/v2/chains').set('X-API-Key', listed.keys.alice).expect(200);
    const limited = await listed.http().get('/v2/chains').set('Origin', page).set('X-API-Key', listed.keys.alice);
    expect([limited.status, limited.body.code]).toEqual([429, 'RATE_LIMITED']);
    expect(limited.headers['access-control-allow-origin']).toBe(page);
  });
});

describe('a read-only key from API_KEYS (account:key:read)', () => {
  it('is created read-only at start, next to full keys', async () => {
    const keys = { alice: newKey(), bob: newKey() };
    const carol = newKey();
    const t = await startOnFreshDatabase('sqlite', {
      keys,
      env: { API_KEYS: `alice:${keys.alice},bob:${keys.bob},carol:${carol}:read` },
    });
    try {
      await t.http().get('/v2/tags').set('X-API-Key', carol).expect(200);
      const refused = await tagAddresses(t, carol, 'carols_tag', [WALKER_ADDRESS]);
      expect([refused.status, refused.body.code]).toEqual([403, 'READ_ONLY_KEY']);
      await tagAddresses(t, keys.bob, 'bobs_tag', [WALKER_ADDRESS]).expect(200);
    } finally {
      await t.close();
    }
  });
});

describe('behind a proxy (PUBLIC_URL)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startOnFreshDatabase('sqlite', { env: { PUBLIC_URL: 'https://api.example.com/chaintags/' } });
  });

  afterAll(async () => {
    await t.close();
  });

  it("builds Link URLs on the public address, whatever Host and protocol the proxy's request had", async () => {
    const response = await t
      .http()
      .get('/v2/tokens?per_page=1&page=2')
      .set('Host', 'api:3000')
      .set('X-API-Key', t.keys.alice)
      .expect(200);
    const links = parseLinks(response.headers.link);
    expect(Object.keys(links).sort()).toEqual(['first', 'last', 'next', 'prev']);
    expect(links.next).toBe('https://api.example.com/chaintags/v2/tokens?per_page=1&page=3');
    expect(links.first).toBe('https://api.example.com/chaintags/v2/tokens?per_page=1&page=1');
    await importLines(t, [
      transactionLine(transaction({ chain: 'ethereum' })),
      transactionLine(transaction({ chain: 'base' })),
    ]);
    const first = await t.http().get('/v2/transactions?per_page=1').set('X-API-Key', t.keys.alice).expect(200);
    const next = parseLinks(first.headers.link).next!;
    expect(next).toMatch(/^https:\/\/api\.example\.com\/chaintags\/v2\/transactions\?per_page=1&after=/);
    // Through the proxy, which takes the prefix off, the link leads to the second page.
    const second = await t
      .http()
      .get(new URL(next).pathname.replace(/^\/chaintags/, '') + new URL(next).search)
      .set('X-API-Key', t.keys.alice)
      .expect(200);
    expect(second.body).toHaveLength(1);
    expect(second.body[0].id).not.toBe(first.body[0].id);
    expect(parseLinks(second.headers.link).first).toBe('https://api.example.com/chaintags/v2/transactions?per_page=1');
  });

  it("names the public address as the served document's server, where Swagger UI sends its requests", async () => {
    const { body } = await t.http().get('/docs-json').expect(200);
    expect(body.servers).toEqual([
      { url: 'https://api.example.com/chaintags', description: 'This chaintags instance (PUBLIC_URL)' },
    ]);
  });
});

describe('openapi.json', () => {
  it('is the document the code generates (run `npm run openapi` after changing a route or DTO)', async () => {
    expect(readFileSync(OPENAPI_PATH, 'utf8')).toBe(await renderOpenApi());
  });
});

const WALKER_ADDRESS = '0x52908400098527886e0f7030069857d2e4169ee7';

/** A registered route's path with a valid tag, address and webhook id in its parameters. */
function walkerPath(path: string): string {
  return path
    .replace(/:tag/g, 'walker_tag')
    .replace(/:address/g, WALKER_ADDRESS)
    .replace(/:id/g, 'wh_walkerwalkerwalke');
}

/** The query parameters a route needs (`GET /v2/addresses` its addresses), each followed by `&`. */
function requiredQuery(path: string): string {
  return path === '/v2/addresses' ? `address=${WALKER_ADDRESS}&` : '';
}

/** Swagger UI and the OpenAPI document are served by SwaggerModule, not by controllers. */
function isDocumentation(path: string): boolean {
  return /^\/docs([-/]|$)/.test(path);
}

type Method = 'get' | 'post' | 'delete' | 'put' | 'patch';

function registeredRoutes(t: TestApp): { method: Method; path: string }[] {
  const router = (t.app.getHttpAdapter().getInstance() as { router: { stack: RouterLayer[] } }).router;
  return router.stack.flatMap((layer) =>
    layer.route
      ? Object.keys(layer.route.methods)
          .filter((method) => layer.route!.methods[method])
          .map((method) => ({ method: method as Method, path: layer.route!.path }))
      : [],
  );
}

interface RouterLayer {
  route?: { path: string; methods: Record<string, boolean> };
}

describe('idle client connections (HTTP_KEEP_ALIVE_SECONDS)', () => {
  /** A connection that has had one answer, and when the server closed it (undefined while open). */
  async function keptConnection(t: TestApp): Promise<{ socket: Socket; closedAt: () => number | undefined }> {
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    let closedAt: number | undefined;
    socket.on('close', () => (closedAt = Date.now()));
    let received = '';
    await new Promise<void>((resolve) => {
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString();
        if (received.includes('{"status":"ok"}')) resolve();
      });
      socket.write('GET /health HTTP/1.1\r\nHost: chaintags\r\n\r\n');
    });
    return { socket, closedAt: () => closedAt };
  }

  it('keeps them 65 s by default, above load balancers’ idle time, and closes them after the time set', async () => {
    const kept = await startOnFreshDatabase('sqlite');
    const short = await startOnFreshDatabase('sqlite', { env: { HTTP_KEEP_ALIVE_SECONDS: '1' } });
    try {
      expect(kept.app.getHttpServer().keepAliveTimeout).toBe(65_000);
      const [open, closing] = await Promise.all([keptConnection(kept), keptConnection(short)]);
      const answeredAt = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      // Node's own default (5 s) would have kept both.
      expect(closing.closedAt()).toBeDefined();
      expect(closing.closedAt()! - answeredAt).toBeGreaterThanOrEqual(500);
      expect(open.closedAt()).toBeUndefined();
      open.socket.destroy();
      closing.socket.destroy();
    } finally {
      await Promise.all([kept.close(), short.close()]);
    }
  });
});
