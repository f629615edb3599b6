import { resolve } from 'node:path';
import { CHAINS, isFollowable, isUtxoChain, type Chain } from '../core/chains/chain-registry';
import type { ChainId } from '../core/chains/chain-ids';

export type DatabaseConfig = { kind: 'postgres'; url: string } | { kind: 'sqlite'; path: string };

export interface BootstrapKey {
  account: string;
  key: string;
  /** `read`: a read-only key (`account:key:read`); `full` otherwise. */
  access: 'full' | 'read';
}

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface AppConfig {
  port: number;
  database: DatabaseConfig;
  bootstrapKeys: BootstrapKey[];
  rateLimitPerMinute: number;
  logLevel: LogLevel;
  prices: PriceSourceConfig;
  operations: OperationsConfig;
  follow: FollowConfig;
  webhooks: WebhooksConfig;
}

export const APP_CONFIG = Symbol('APP_CONFIG');

export class ConfigError extends Error {}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
export const ACCOUNT_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const API_KEY_FORMAT = /^ctk_[A-Za-z0-9_-]{22,128}$/;

/**
 * Reads and checks the environment once. Every problem names the variable, so a bad deployment
 * stops at start-up with a message an operator can act on.
 */
export function parseConfig(env: NodeJS.ProcessEnv): AppConfig {
  return {
    port: parseInteger(env, 'PORT', 3000, 0, 65535),
    database: parseDatabaseUrl(env.DATABASE_URL ?? 'sqlite:data/chaintags.sqlite'),
    bootstrapKeys: parseBootstrapKeys(env.API_KEYS ?? ''),
    rateLimitPerMinute: parseInteger(env, 'RATE_LIMIT_PER_MINUTE', 6000, 0, 10_000_000),
    logLevel: parseLogLevel(env.LOG_LEVEL ?? 'info'),
    prices: parsePriceSource(env),
    operations: parseOperations(env),
    follow: parseFollow(env),
    webhooks: parseWebhooks(env),
  };
}

function parseInteger(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

export function parseDatabaseUrl(raw: string): DatabaseConfig {
  if (/^postgres(ql)?:\/\//.test(raw)) {
    try {
      new URL(raw);
    } catch {
      throw new ConfigError('DATABASE_URL is not a valid postgres:// URL');
    }
    return { kind: 'postgres', url: raw };
  }
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length);
    if (path === '') throw new ConfigError('DATABASE_URL "sqlite:" needs a file path or :memory:');
    return { kind: 'sqlite', path: path === ':memory:' ? path : resolve(path) };
  }
  throw new ConfigError('DATABASE_URL must start with postgres://, postgresql:// or sqlite:');
}

function parseBootstrapKeys(raw: string): BootstrapKey[] {
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry, index) => {
      // account:key, or account:key:read (keys hold no colon).
      const [account = '', key = '', access = 'full', ...rest] = entry.split(':');
      if (!ACCOUNT_NAME.test(account)) {
        throw new ConfigError(
          `API_KEYS entry ${index + 1}: the account must be 1-64 of a-z, 0-9, "_" or "-" (format account:key)`,
        );
      }
      if (!API_KEY_FORMAT.test(key)) {
        // The key itself is never echoed: this message may end up in a log.
        throw new ConfigError(
          `API_KEYS entry ${index + 1} (account ${account}): the key must be "ctk_" followed by at least 22 characters of A-Z, a-z, 0-9, "_" or "-"`,
        );
      }
      if ((access !== 'full' && access !== 'read') || rest.length > 0) {
        throw new ConfigError(
          `API_KEYS entry ${index + 1} (account ${account}): after the key comes nothing, or ":read" for a read-only key`,
        );
      }
      return { account, key, access };
    });
}

function parseLogLevel(raw: string): LogLevel {
  const level = raw.toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(level)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  }
  return level;
}

// --- Prices (contract §11) -----------------------------------------------------------------------

export type PricePlan = 'demo' | 'pro';

/** The CoinGecko-compatible price source and how the poller treats it. */
export interface PriceSourceConfig {
  /** `PRICE_SOURCE_URL`, without a trailing slash. */
  url: string;
  /** `PRICE_API_KEY`; never logged. */
  apiKey: string | undefined;
  plan: PricePlan;
  /** `PRICE_REFRESH_SECONDS` in milliseconds; 0 turns the poller off. */
  refreshMs: number;
  /** How long one request to the source may take, body included. */
  timeoutMs: number;
  /** The pause between two requests of one poll, so a poll stays within the plan's per-minute limit. */
  requestGapMs: number;
  /** The longest wait between polls while the source keeps failing (never below `refreshMs`). */
  maxBackoffMs: number;
  /** How long a token the source answered nothing for goes unasked (a day; the tests shorten it). */
  unknownRetryMs: number;
}

export const PRICE_SOURCE_URLS: Record<PricePlan, string> = {
  demo: 'https://api.coingecko.com/api/v3',
  pro: 'https://pro-api.coingecko.com/api/v3',
};

/**
 * Request gaps below CoinGecko's documented per-minute limits: about 30 calls a minute with a demo
 * key and fewer, varying with traffic, without one; 250 and more on the paid plans.
 */
const REQUEST_GAP_MS = { keyless: 6_000, demo: 2_500, pro: 300 } as const;

function parsePriceSource(env: NodeJS.ProcessEnv): PriceSourceConfig {
  const rawPlan = (env.PRICE_API_PLAN ?? '').toLowerCase() || 'demo';
  if (rawPlan !== 'demo' && rawPlan !== 'pro') {
    throw new ConfigError(`PRICE_API_PLAN must be demo or pro, got "${env.PRICE_API_PLAN}"`);
  }
  const plan: PricePlan = rawPlan;
  const apiKey = env.PRICE_API_KEY === undefined || env.PRICE_API_KEY === '' ? undefined : env.PRICE_API_KEY;
  // The key travels in a header: anything a header cannot carry would fail every request.
  if (apiKey !== undefined && !/^[\x21-\x7e]{1,200}$/.test(apiKey)) {
    throw new ConfigError('PRICE_API_KEY must be 1-200 printable characters without spaces');
  }
  if (plan === 'pro' && apiKey === undefined) {
    throw new ConfigError('PRICE_API_PLAN=pro needs PRICE_API_KEY (the pro API answers nothing without a key)');
  }
  const url = (env.PRICE_SOURCE_URL || PRICE_SOURCE_URLS[plan]).replace(/\/+$/, '');
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || !['http:', 'https:'].includes(parsed.protocol) || parsed.search !== '') {
    // The value is not echoed: a URL may carry credentials.
    throw new ConfigError(
      'PRICE_SOURCE_URL must be an http(s) URL without a query, like https://api.coingecko.com/api/v3',
    );
  }
  const refreshMs = parseInteger(env, 'PRICE_REFRESH_SECONDS', 300, 0, 86_400) * 1000;
  return {
    url,
    apiKey,
    plan,
    refreshMs,
    timeoutMs: 10_000,
    requestGapMs: apiKey === undefined ? REQUEST_GAP_MS.keyless : REQUEST_GAP_MS[plan],
    maxBackoffMs: Math.max(refreshMs, 3_600_000),
    unknownRetryMs: 86_400_000,
  };
}

// --- Operations (contract §12) -------------------------------------------------------------------

/** Running in production (docs/operations.md): metrics, the shared rate-limit store, the log format. */
export interface OperationsConfig {
  /** `METRICS=off` removes GET /metrics and the request counting behind it. */
  metrics: boolean;
  /** With `REDIS_URL`, every process using that Redis shares one rate-limit budget per key. */
  redisUrl: string | undefined;
  /** `NODE_ENV=production`: JSON logs even on a terminal. */
  production: boolean;
  /**
   * `CORS_ORIGINS`: the web origins whose pages may call the API from a browser, `*` for any;
   * undefined (the default): no CORS headers, so browsers allow only same-origin pages.
   */
  corsOrigins: '*' | string[] | undefined;
  /**
   * `PUBLIC_URL`: the address clients reach the service at (`https://api.example.com`, with a path
   * if a proxy serves it under one), without a trailing slash. Link URLs start with it; undefined:
   * with the request's protocol and `Host`.
   */
  publicUrl: string | undefined;
  /** `METRICS_PORT`: the port the `follow` worker serves GET /metrics on; undefined: it serves none. */
  workerMetricsPort: number | undefined;
  /**
   * `HTTP_KEEP_ALIVE_SECONDS` in milliseconds: how long the server keeps an idle client connection
   * open. Above a load balancer's idle timeout (60 s on AWS's), so that the balancer, not the
   * server, closes a connection it might be sending a request on.
   */
  keepAliveMs: number;
}

function parseOperations(env: NodeJS.ProcessEnv): OperationsConfig {
  const metrics = (env.METRICS ?? 'on').toLowerCase();
  if (metrics !== 'on' && metrics !== 'off') throw new ConfigError(`METRICS must be on or off, got "${env.METRICS}"`);
  const redisUrl = env.REDIS_URL === '' ? undefined : env.REDIS_URL;
  if (redisUrl !== undefined && !isRedisUrl(redisUrl)) {
    // The URL is not echoed: it may hold a password.
    throw new ConfigError('REDIS_URL must be a redis:// or rediss:// URL');
  }
  return {
    metrics: metrics === 'on',
    redisUrl,
    production: env.NODE_ENV === 'production',
    corsOrigins: parseCorsOrigins(env.CORS_ORIGINS ?? ''),
    publicUrl: parsePublicUrl(env.PUBLIC_URL ?? ''),
    workerMetricsPort:
      env.METRICS_PORT === undefined || env.METRICS_PORT === ''
        ? undefined
        : parseInteger(env, 'METRICS_PORT', 0, 1, 65535),
    keepAliveMs: parseInteger(env, 'HTTP_KEEP_ALIVE_SECONDS', 65, 1, 3600) * 1000,
  };
}

function parsePublicUrl(raw: string): string | undefined {
  if (raw.trim() === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConfigError(`PUBLIC_URL must be an http(s) URL such as https://api.example.com, got "${raw}"`);
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.username !== '' || url.password !== '') {
    throw new ConfigError(
      `PUBLIC_URL must be an http(s) URL without a user or password, such as https://api.example.com`,
    );
  }
  if (url.search !== '' || url.hash !== '' || raw.includes('?') || raw.includes('#')) {
    throw new ConfigError(`PUBLIC_URL must have no query or fragment, got "${raw}"`);
  }
  return url.origin + url.pathname.replace(/\/+$/, '');
}

/** `*`, or origins as a browser sends them (`https://app.example.com`, `http://localhost:5173`), comma-separated. */
function parseCorsOrigins(raw: string): '*' | string[] | undefined {
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) return undefined;
  if (entries.includes('*')) {
    if (entries.length > 1) throw new ConfigError('CORS_ORIGINS is either * or a list of origins, not both');
    return '*';
  }
  return [
    ...new Set(
      entries.map((entry, index) => {
        if (!isOrigin(entry)) {
          throw new ConfigError(
            `CORS_ORIGINS entry ${index + 1} must be an origin such as https://app.example.com (scheme, host and port if not the default; no path), got "${entry}"`,
          );
        }
        return entry.toLowerCase();
      }),
    ),
  ];
}

/** An http(s) origin written as browsers send it in `Origin` (lower case, no default port, no path or slash). */
function isOrigin(entry: string): boolean {
  try {
    const url = new URL(entry);
    return ['http:', 'https:'].includes(url.protocol) && url.origin === entry.toLowerCase();
  } catch {
    return false;
  }
}

function isRedisUrl(raw: string): boolean {
  try {
    return ['redis:', 'rediss:'].includes(new URL(raw).protocol);
  } catch {
    return false;
  }
}

// --- Following the chains (contract §10) ---------------------------------------------------------

/** How one chain is followed; `rpcUrls` empty: it is not (import only). */
export interface FollowedChainConfig {
  chain: ChainId;
  /** `RPC_URL_<CHAIN>`, comma-separated; later ones are fallbacks. Never logged (they may hold keys). */
  rpcUrls: string[];
  /** `CONFIRMATIONS_<CHAIN>`: blocks kept behind the head. */
  confirmations: number;
  /** `START_BLOCK_<CHAIN>`: the first block whose transfers are recorded. */
  startBlock: bigint;
  /** `NATIVE_BACKFILL_BLOCKS_<CHAIN>`: how far back a newly tracked address's native transfers are searched. */
  nativeBackfillBlocks: bigint | 'all';
  /**
   * `NETWORK_<CHAIN>` (the Bitcoin family): `mainnet`, or `regtest` to follow a local
   * regression-test node, whose scripts are recorded in their mainnet address forms. Solana, TON,
   * Aptos and Sui: `mainnet`, or `localnet` for a local test node (contract §16). Always `mainnet` for the
   * EVM chains, whose chain id says the network.
   */
  network: ChainNetwork;
}

export type ChainNetwork = 'mainnet' | 'regtest' | 'localnet';

/** The test network each chain family with one may be pointed at instead of mainnet. */
function testNetworkOf(chain: Chain): ChainNetwork | undefined {
  if (isUtxoChain(chain)) return 'regtest';
  // The families whose nodes can run a local network; the EVM chains' chain id says the network.
  if (chain.rpc !== undefined && chain.rpc !== 'evm-json-rpc') return 'localnet';
  return undefined;
}

export interface FollowConfig {
  /** `FOLLOW=off`: `npm start` serves the API only (the `follow` command still follows). */
  enabled: boolean;
  /** `FOLLOW_INTERVAL_MS`: how often each follower asks for a new head. */
  intervalMs: number;
  /**
   * `FOLLOW_LEASE_SECONDS` in milliseconds: how long a process's claim to write a chain stands
   * without being renewed; another process takes over at most this long (plus a quarter of it)
   * after the writer dies.
   */
  leaseMs: number;
  /** Every chain, in the registry's order; only chains with a source kind in the registry can have RPC URLs. */
  chains: FollowedChainConfig[];
}

function parseFollow(env: NodeJS.ProcessEnv): FollowConfig {
  const follow = (env.FOLLOW ?? 'on').toLowerCase();
  if (follow !== 'on' && follow !== 'off') throw new ConfigError(`FOLLOW must be on or off, got "${env.FOLLOW}"`);
  const chains = CHAINS.map((chain): FollowedChainConfig => {
    const suffix = chain.id.toUpperCase();
    const rpcUrls = parseRpcUrls(env, `RPC_URL_${suffix}`);
    if (chain.rpc === 'toncenter-http') refuseTonApiV3(rpcUrls, `RPC_URL_${suffix}`);
    if (rpcUrls.length > 0 && !isFollowable(chain)) {
      throw new ConfigError(
        `RPC_URL_${suffix}: ${chain.id} cannot be followed yet (its data arrives by import only); remove it`,
      );
    }
    return {
      chain: chain.id,
      rpcUrls,
      confirmations: parseInteger(env, `CONFIRMATIONS_${suffix}`, chain.defaultConfirmations, 0, 10_000),
      startBlock: parseBlock(env, `START_BLOCK_${suffix}`, 0n),
      nativeBackfillBlocks:
        (env[`NATIVE_BACKFILL_BLOCKS_${suffix}`] ?? '').toLowerCase() === 'all'
          ? 'all'
          : parseBlock(env, `NATIVE_BACKFILL_BLOCKS_${suffix}`, 100_000n),
      network: parseNetwork(env, chain),
    };
  });
  return {
    enabled: follow === 'on',
    intervalMs: parseInteger(env, 'FOLLOW_INTERVAL_MS', 2000, 50, 3_600_000),
    leaseMs: parseInteger(env, 'FOLLOW_LEASE_SECONDS', 20, 2, 600) * 1000,
    chains,
  };
}

/** `NETWORK_<CHAIN>`: only the chains whose node can be on a local test network take it. */
function parseNetwork(env: NodeJS.ProcessEnv, chain: Chain): ChainNetwork {
  const name = `NETWORK_${chain.id.toUpperCase()}`;
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '' || raw === 'mainnet') return 'mainnet';
  const test = testNetworkOf(chain);
  if (test === undefined) throw new ConfigError(`${name}: ${chain.id} is followed on mainnet only; remove it`);
  if (raw === test) return test;
  throw new ConfigError(`${name} must be mainnet or ${test}, got "${env[name]}"`);
}

function parseRpcUrls(env: NodeJS.ProcessEnv, name: string): string[] {
  const raw = env[name] ?? '';
  const urls = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  urls.forEach((url, index) => {
    let protocol: string | undefined;
    try {
      protocol = new URL(url).protocol;
    } catch {
      protocol = undefined;
    }
    // The URL is not echoed: providers put API keys in them.
    if (protocol !== 'http:' && protocol !== 'https:') {
      throw new ConfigError(`${name} entry ${index + 1} must be an http(s) JSON-RPC URL`);
    }
  });
  return urls;
}

/**
 * The TON follower speaks toncenter's API v2 only (what `ton-http-api` serves); an API v3 base
 * answers none of its methods, which would show as a 404 on every call once following. Refused at
 * start instead, naming what to point at (the URL is not echoed: it may carry an API key).
 */
function refuseTonApiV3(urls: readonly string[], name: string): void {
  urls.forEach((url, index) => {
    const path = new URL(url).pathname.replace(/\/+$/, '');
    if (path.endsWith('/api/v3') || path.includes('/api/v3/')) {
      throw new ConfigError(
        `${name} entry ${index + 1} is a toncenter API v3 URL; chaintags reads TON through API v2 only: ` +
          'point it at an API v2 base (https://toncenter.com/api/v2/, or the root of a ton-http-api server)',
      );
    }
  });
}

function parseBlock(env: NodeJS.ProcessEnv, name: string, fallback: bigint): bigint {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,18}$/.test(raw)) throw new ConfigError(`${name} must be a block number (digits), got "${raw}"`);
  return BigInt(raw);
}

export interface WebhooksConfig {
  /**
   * `WEBHOOK_RETRY_SECONDS`: the pause before each retry of a delivery that was not answered with a
   * 2xx, in order; after the last one the delivery is `failed`.
   */
  retrySeconds: number[];
  /** `WEBHOOK_ALLOW_PRIVATE_URLS=on`: webhook URLs may resolve to loopback, private or link-local addresses. */
  allowPrivateUrls: boolean;
}

export const DEFAULT_WEBHOOK_RETRY_SECONDS = [5, 30, 120, 600, 1800, 3600, 10800, 21600];

function parseWebhooks(env: NodeJS.ProcessEnv): WebhooksConfig {
  const allow = (env.WEBHOOK_ALLOW_PRIVATE_URLS ?? 'off').toLowerCase();
  if (allow !== 'on' && allow !== 'off') {
    throw new ConfigError(`WEBHOOK_ALLOW_PRIVATE_URLS must be on or off, got "${env.WEBHOOK_ALLOW_PRIVATE_URLS}"`);
  }
  const raw = (env.WEBHOOK_RETRY_SECONDS ?? '').trim();
  let retrySeconds = DEFAULT_WEBHOOK_RETRY_SECONDS;
  if (raw !== '') {
    const entries = raw.split(',').map((entry) => entry.trim());
    // A week per pause at most, and 20 retries: a schedule nobody means past that is a typo.
    if (entries.length > 20 || entries.some((entry) => !/^\d{1,6}$/.test(entry) || Number(entry) > 604_800)) {
      throw new ConfigError(
        `WEBHOOK_RETRY_SECONDS must be up to 20 comma-separated whole numbers of seconds (each at most 604800), got "${raw}"`,
      );
    }
    retrySeconds = entries.map(Number);
  }
  return { retrySeconds, allowPrivateUrls: allow === 'on' };
}
