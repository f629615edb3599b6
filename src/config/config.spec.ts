import { ConfigError, parseConfig } from './config';

describe('parseConfig', () => {
  it('uses the documented defaults', () => {
    const config = parseConfig({});
    expect(config).toMatchObject({ port: 3000, rateLimitPerMinute: 6000, logLevel: 'info', bootstrapKeys: [] });
    expect(config.database).toEqual({ kind: 'sqlite', path: expect.stringMatching(/data\/chaintags\.sqlite$/) });
  });

  it('reads PostgreSQL URLs, SQLite paths and bootstrap keys', () => {
    const key = `ctk_${'a'.repeat(30)}`;
    const config = parseConfig({
      DATABASE_URL: 'postgres://u@h:5432/db',
      API_KEYS: ` ops:${key} , ci-bot:${key}, dash:${key}:read`,
    });
    expect(config.database).toEqual({ kind: 'postgres', url: 'postgres://u@h:5432/db' });
    expect(config.bootstrapKeys).toEqual([
      { account: 'ops', key, access: 'full' },
      { account: 'ci-bot', key, access: 'full' },
      { account: 'dash', key, access: 'read' },
    ]);
    expect(parseConfig({ DATABASE_URL: 'sqlite::memory:' }).database).toEqual({ kind: 'sqlite', path: ':memory:' });
  });

  it.each([
    ['PORT', { PORT: 'eighty' }],
    ['PORT', { PORT: '70000' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://x' }],
    ['DATABASE_URL', { DATABASE_URL: 'sqlite:' }],
    ['API_KEYS', { API_KEYS: 'nocolon' }],
    ['API_KEYS', { API_KEYS: 'ops:short' }],
    ['API_KEYS', { API_KEYS: `ops:ctk_${'a'.repeat(30)}:write` }],
    ['API_KEYS', { API_KEYS: `ops:ctk_${'a'.repeat(30)}:read:x` }],
    ['RATE_LIMIT_PER_MINUTE', { RATE_LIMIT_PER_MINUTE: '-1' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['PRICE_REFRESH_SECONDS', { PRICE_REFRESH_SECONDS: '5m' }],
    ['PRICE_REFRESH_SECONDS', { PRICE_REFRESH_SECONDS: '86401' }],
    ['PRICE_SOURCE_URL', { PRICE_SOURCE_URL: 'ftp://prices.example' }],
    ['PRICE_SOURCE_URL', { PRICE_SOURCE_URL: 'not a url' }],
    ['PRICE_API_PLAN', { PRICE_API_PLAN: 'enterprise' }],
    ['PRICE_API_KEY', { PRICE_API_PLAN: 'pro' }],
    ['PRICE_API_KEY', { PRICE_API_KEY: 'two words' }],
    ['METRICS', { METRICS: 'yes' }],
    ['REDIS_URL', { REDIS_URL: 'localhost:6379' }],
    ['REDIS_URL', { REDIS_URL: 'http://cache:6379' }],
  ])('stops with a message naming %s', (variable, env) => {
    expect(() => parseConfig(env)).toThrow(ConfigError);
    expect(() => parseConfig(env)).toThrow(variable);
  });

  describe('price source', () => {
    it("polls CoinGecko's public API every 300 s by default, keyless, spacing requests for its limits", () => {
      expect(parseConfig({}).prices).toEqual({
        url: 'https://api.coingecko.com/api/v3',
        apiKey: undefined,
        plan: 'demo',
        refreshMs: 300_000,
        timeoutMs: 10_000,
        requestGapMs: 6_000,
        maxBackoffMs: 3_600_000,
        unknownRetryMs: 86_400_000,
      });
    });

    it('uses the pro host with PRICE_API_PLAN=pro and keeps an explicit PRICE_SOURCE_URL', () => {
      expect(parseConfig({ PRICE_API_PLAN: 'pro', PRICE_API_KEY: 'CG-pro' }).prices).toMatchObject({
        url: 'https://pro-api.coingecko.com/api/v3',
        apiKey: 'CG-pro',
        plan: 'pro',
        requestGapMs: 300,
      });
      expect(
        parseConfig({ PRICE_SOURCE_URL: 'http://127.0.0.1:9000/api/v3/', PRICE_API_KEY: 'CG-demo' }).prices,
      ).toMatchObject({ url: 'http://127.0.0.1:9000/api/v3', plan: 'demo', requestGapMs: 2_500 });
    });

    it('turns the poller off with 0 and never backs off for less than the refresh interval', () => {
      expect(parseConfig({ PRICE_REFRESH_SECONDS: '0' }).prices.refreshMs).toBe(0);
      expect(parseConfig({ PRICE_REFRESH_SECONDS: '7200' }).prices).toMatchObject({
        refreshMs: 7_200_000,
        maxBackoffMs: 7_200_000,
      });
    });
  });

  it('reads the operations settings: metrics on unless METRICS=off, REDIS_URL, NODE_ENV=production', () => {
    expect(parseConfig({}).operations).toEqual({
      metrics: true,
      redisUrl: undefined,
      production: false,
      corsOrigins: undefined,
      publicUrl: undefined,
      keepAliveMs: 65_000,
    });
    expect(
      parseConfig({ METRICS: 'OFF', REDIS_URL: 'redis://:pw@cache:6379/2', NODE_ENV: 'production' }).operations,
    ).toEqual({
      metrics: false,
      redisUrl: 'redis://:pw@cache:6379/2',
      production: true,
      corsOrigins: undefined,
      publicUrl: undefined,
      keepAliveMs: 65_000,
    });
    expect(parseConfig({ REDIS_URL: '' }).operations.redisUrl).toBeUndefined();
    expect(() => parseConfig({ REDIS_URL: 'cache:secret@6379' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('secret') }),
    );
  });

  it('reads CORS_ORIGINS: *, or origins as browsers send them, each once', () => {
    const origins = (value: string) => parseConfig({ CORS_ORIGINS: value }).operations.corsOrigins;
    expect(origins('')).toBeUndefined();
    expect(origins(' , ')).toBeUndefined();
    expect(origins('*')).toBe('*');
    expect(origins(' * ')).toBe('*');
    expect(origins('https://App.Example.com, http://localhost:5173,https://app.example.com')).toEqual([
      'https://app.example.com',
      'http://localhost:5173',
    ]);
    expect(origins('https://[::1]:8443')).toEqual(['https://[::1]:8443']);
    for (const bad of [
      'https://app.example.com/',
      'https://app.example.com/dash',
      'https://app.example.com:443',
      'app.example.com',
      'ftp://files.example.com',
      'https://user@app.example.com',
      'https://app.example.com?x=1',
    ]) {
      expect(() => origins(`http://localhost:5173,${bad}`)).toThrow(`CORS_ORIGINS entry 2 must be an origin`);
    }
    expect(() => origins('*,https://app.example.com')).toThrow('CORS_ORIGINS is either * or a list of origins');
  });

  it('reads PUBLIC_URL: an http(s) URL, a path kept, no trailing slash', () => {
    const publicUrl = (value: string) => parseConfig({ PUBLIC_URL: value }).operations.publicUrl;
    expect(publicUrl('')).toBeUndefined();
    expect(publicUrl('https://API.example.com')).toBe('https://api.example.com');
    expect(publicUrl('https://api.example.com/')).toBe('https://api.example.com');
    expect(publicUrl('https://example.com:8443/chaintags/')).toBe('https://example.com:8443/chaintags');
    expect(publicUrl('http://10.0.0.5:3000')).toBe('http://10.0.0.5:3000');
    for (const bad of [
      'api.example.com',
      'ftp://api.example.com',
      'https://user:pw@api.example.com',
      'https://api.example.com/?x=1',
      'https://api.example.com/#top',
      'https://api.example.com?',
    ]) {
      expect(() => publicUrl(bad)).toThrow(/^PUBLIC_URL must/);
    }
    expect(() => publicUrl('https://user:secret@api.example.com')).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('secret') }),
    );
  });

  it('never echoes a bad key in its message', () => {
    expect(() => parseConfig({ API_KEYS: 'ops:ctk_secret' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('secret') }),
    );
    expect(() => parseConfig({ PRICE_API_KEY: 'CG secret' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('secret') }),
    );
  });

  it("reads METRICS_PORT, the follow worker's metrics port: none by default, a port from 1 to 65535", () => {
    const port = (value?: string) =>
      parseConfig(value === undefined ? {} : { METRICS_PORT: value }).operations.workerMetricsPort;
    expect(port()).toBeUndefined();
    expect(port('')).toBeUndefined();
    expect(port('9464')).toBe(9464);
    for (const bad of ['0', '65536', 'x', '-1', '94.6']) expect(() => port(bad)).toThrow(/^METRICS_PORT must/);
  });

  it('keeps idle client connections 65 s by default (HTTP_KEEP_ALIVE_SECONDS, 1 to 3600)', () => {
    const keepAlive = (value?: string) =>
      parseConfig(value === undefined ? {} : { HTTP_KEEP_ALIVE_SECONDS: value }).operations.keepAliveMs;
    expect(keepAlive()).toBe(65_000);
    expect(keepAlive('620')).toBe(620_000);
    for (const bad of ['0', '3601', 'x', '1.5']) expect(() => keepAlive(bad)).toThrow(/^HTTP_KEEP_ALIVE_SECONDS must/);
  });

  describe('following the chains', () => {
    it('follows nothing by default and keeps every chain with its documented confirmations', () => {
      const follow = parseConfig({}).follow;
      expect(follow).toMatchObject({ enabled: true, intervalMs: 2000, leaseMs: 20_000 });
      expect(follow.chains.map((chain) => chain.chain)).toHaveLength(13);
      expect(follow.chains.every((chain) => chain.rpcUrls.length === 0)).toBe(true);
      expect(follow.chains.find((chain) => chain.chain === 'ethereum')).toEqual({
        chain: 'ethereum',
        rpcUrls: [],
        confirmations: 12,
        startBlock: 0n,
        nativeBackfillBlocks: 100_000n,
        network: 'mainnet',
      });
    });

    it('reads the per-chain settings, fallbacks in order, and FOLLOW=off', () => {
      const follow = parseConfig({
        FOLLOW: 'OFF',
        FOLLOW_INTERVAL_MS: '200',
        FOLLOW_LEASE_SECONDS: '4',
        RPC_URL_BASE: 'https://base.example/v2/key1, http://127.0.0.1:8545',
        CONFIRMATIONS_BASE: '0',
        START_BLOCK_BASE: '21000000',
        NATIVE_BACKFILL_BLOCKS_BASE: 'all',
      }).follow;
      expect(follow).toMatchObject({ enabled: false, intervalMs: 200, leaseMs: 4000 });
      expect(follow.chains.find((chain) => chain.chain === 'base')).toEqual({
        chain: 'base',
        rpcUrls: ['https://base.example/v2/key1', 'http://127.0.0.1:8545'],
        confirmations: 0,
        startBlock: 21_000_000n,
        nativeBackfillBlocks: 'all',
        network: 'mainnet',
      });
    });

    it('follows the Bitcoin family from a node with credentials in its URL, on mainnet or regtest', () => {
      const follow = parseConfig({
        RPC_URL_DOGECOIN: 'http://user:pass@127.0.0.1:22555',
        NETWORK_DOGECOIN: 'regtest',
      }).follow;
      expect(follow.chains.find((chain) => chain.chain === 'dogecoin')).toMatchObject({
        rpcUrls: ['http://user:pass@127.0.0.1:22555'],
        confirmations: 6,
        network: 'regtest',
      });
      expect(follow.chains.find((chain) => chain.chain === 'bitcoin')).toMatchObject({ network: 'mainnet' });
      expect(() => parseConfig({ NETWORK_BITCOIN: 'testnet' })).toThrow(/NETWORK_BITCOIN must be mainnet or regtest/);
      expect(() => parseConfig({ NETWORK_ETHEREUM: 'regtest' })).toThrow(
        /NETWORK_ETHEREUM: ethereum is followed on mainnet only/,
      );
    });

    it('follows Solana from fallback URLs on mainnet or a localnet node, 0 confirmations (finalized slots)', () => {
      const follow = parseConfig({
        RPC_URL_SOLANA: 'https://solana.example/?api-key=k, http://127.0.0.1:8899',
        NETWORK_SOLANA: 'localnet',
      }).follow;
      expect(follow.chains.find((chain) => chain.chain === 'solana')).toMatchObject({
        rpcUrls: ['https://solana.example/?api-key=k', 'http://127.0.0.1:8899'],
        confirmations: 0,
        network: 'localnet',
      });
      expect(parseConfig({}).follow.chains.find((chain) => chain.chain === 'solana')).toMatchObject({
        rpcUrls: [],
        network: 'mainnet',
      });
      expect(() => parseConfig({ NETWORK_SOLANA: 'devnet' })).toThrow(/NETWORK_SOLANA must be mainnet or localnet/);
    });

    it('follows TON through a toncenter API, on mainnet or a local network (contract §16)', () => {
      const follow = parseConfig({
        RPC_URL_TON: 'https://toncenter.example/api/v2/?api_key=secret',
        NETWORK_TON: 'localnet',
      }).follow;
      expect(follow.chains.find((chain) => chain.chain === 'ton')).toMatchObject({
        rpcUrls: ['https://toncenter.example/api/v2/?api_key=secret'],
        confirmations: 0,
        network: 'localnet',
      });
      expect(parseConfig({}).follow.chains.find((chain) => chain.chain === 'ton')).toMatchObject({
        network: 'mainnet',
      });
      expect(() => parseConfig({ NETWORK_TON: 'testnet' })).toThrow(/NETWORK_TON must be mainnet or localnet/);
      expect(() => parseConfig({ NETWORK_BITCOIN: 'localnet' })).toThrow(/NETWORK_BITCOIN must be mainnet or regtest/);
    });

    it('follows Aptos and Sui through their nodes, on mainnet or a local network, 0 confirmations (final when shown)', () => {
      const follow = parseConfig({
        RPC_URL_APTOS: 'https://aptos.example/v1?api_key=secret,http://127.0.0.1:8080/v1',
        NETWORK_APTOS: 'localnet',
      }).follow;
      expect(follow.chains.find((chain) => chain.chain === 'aptos')).toMatchObject({
        rpcUrls: ['https://aptos.example/v1?api_key=secret', 'http://127.0.0.1:8080/v1'],
        confirmations: 0,
        network: 'localnet',
      });
      expect(parseConfig({}).follow.chains.find((chain) => chain.chain === 'aptos')).toMatchObject({
        network: 'mainnet',
      });
      expect(() => parseConfig({ NETWORK_APTOS: 'testnet' })).toThrow(/NETWORK_APTOS must be mainnet or localnet/);
      expect(
        parseConfig({ RPC_URL_SUI: 'http://127.0.0.1:9000', NETWORK_SUI: 'localnet' }).follow.chains.find(
          (chain) => chain.chain === 'sui',
        ),
      ).toMatchObject({
        rpcUrls: ['http://127.0.0.1:9000'],
        confirmations: 0,
        network: 'localnet',
      });
      expect(() => parseConfig({ NETWORK_ETHEREUM: 'localnet' })).toThrow(
        /NETWORK_ETHEREUM: ethereum is followed on mainnet only/,
      );
    });

    it('refuses a toncenter API v3 URL for TON at start, naming the API v2 base to point at, without echoing it', () => {
      for (const url of [
        'https://toncenter.com/api/v3',
        'https://toncenter.com/api/v3/?api_key=secret',
        'https://toncenter.com/api/v3/index',
      ]) {
        const refused = (() => {
          try {
            parseConfig({ RPC_URL_TON: `https://toncenter.com/api/v2/, ${url}` });
          } catch (error) {
            return error as Error;
          }
          return undefined;
        })();
        expect(refused?.message).toBe(
          'RPC_URL_TON entry 2 is a toncenter API v3 URL; chaintags reads TON through API v2 only: ' +
            'point it at an API v2 base (https://toncenter.com/api/v2/, or the root of a ton-http-api server)',
        );
      }
      // API v2 bases, a ton-http-api root and paths that only look alike are taken.
      for (const url of [
        'https://toncenter.com/api/v2/',
        'https://toncenter.com/api/v2/jsonRPC',
        'http://127.0.0.1:8081/',
        'https://ton.example/api/v30/',
        'https://ton.example/?path=/api/v3/',
      ]) {
        expect(parseConfig({ RPC_URL_TON: url }).follow.chains.find((chain) => chain.chain === 'ton')?.rpcUrls).toEqual(
          [url],
        );
      }
    });

    it('refuses bad RPC URLs without echoing them, and bad numbers', () => {
      expect(() => parseConfig({ RPC_URL_ETHEREUM: 'wss://node.example/secret' })).toThrow(
        expect.objectContaining({
          message: expect.stringContaining('RPC_URL_ETHEREUM') as unknown,
        }),
      );
      expect(() => parseConfig({ RPC_URL_ETHEREUM: 'wss://node.example/secret' })).toThrow(
        expect.objectContaining({ message: expect.not.stringContaining('secret') }),
      );
      expect(() => parseConfig({ START_BLOCK_ETHEREUM: '-1' })).toThrow(/START_BLOCK_ETHEREUM/);
      expect(() => parseConfig({ NATIVE_BACKFILL_BLOCKS_ETHEREUM: 'some' })).toThrow(/NATIVE_BACKFILL_BLOCKS_ETHEREUM/);
      expect(() => parseConfig({ FOLLOW: 'maybe' })).toThrow(/FOLLOW/);
      expect(() => parseConfig({ FOLLOW_INTERVAL_MS: '10' })).toThrow(/FOLLOW_INTERVAL_MS/);
    });
  });
  describe('webhooks', () => {
    it('retries on the documented schedule and refuses private URLs by default', () => {
      expect(parseConfig({}).webhooks).toEqual({
        retrySeconds: [5, 30, 120, 600, 1800, 3600, 10800, 21600],
        allowPrivateUrls: false,
      });
    });

    it('reads WEBHOOK_RETRY_SECONDS and WEBHOOK_ALLOW_PRIVATE_URLS', () => {
      expect(parseConfig({ WEBHOOK_RETRY_SECONDS: ' 1, 2 ,0', WEBHOOK_ALLOW_PRIVATE_URLS: 'ON' }).webhooks).toEqual({
        retrySeconds: [1, 2, 0],
        allowPrivateUrls: true,
      });
    });

    it('refuses schedules that are not whole seconds and switches that are not on or off', () => {
      for (const bad of ['5,,30', '5;30', '-5', '1.5', '604801', Array(21).fill('1').join(',')]) {
        expect(() => parseConfig({ WEBHOOK_RETRY_SECONDS: bad })).toThrow(/WEBHOOK_RETRY_SECONDS/);
      }
      expect(() => parseConfig({ WEBHOOK_ALLOW_PRIVATE_URLS: 'yes' })).toThrow(/WEBHOOK_ALLOW_PRIVATE_URLS/);
    });
  });
});
