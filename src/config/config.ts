import { resolve } from 'node:path';

export type DatabaseConfig = { kind: 'postgres'; url: string } | { kind: 'sqlite'; path: string };

export interface BootstrapKey {
  account: string;
  key: string;
}

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface AppConfig {
  port: number;
  database: DatabaseConfig;
  bootstrapKeys: BootstrapKey[];
  rateLimitPerMinute: number;
  logLevel: LogLevel;
  operations: OperationsConfig;
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
    operations: parseOperations(env),
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
      const colon = entry.indexOf(':');
      const account = colon < 0 ? '' : entry.slice(0, colon);
      const key = colon < 0 ? '' : entry.slice(colon + 1);
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
      return { account, key };
    });
}

function parseLogLevel(raw: string): LogLevel {
  const level = raw.toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(level)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  }
  return level;
}

/** Running in production (README): metrics, the shared rate-limit store, the log format. */
export interface OperationsConfig {
  /** `METRICS=off` removes GET /metrics and the request counting behind it. */
  metrics: boolean;
  /** With `REDIS_URL`, every process using that Redis shares one rate-limit budget per key. */
  redisUrl: string | undefined;
  /** `NODE_ENV=production`: JSON logs even on a terminal. */
  production: boolean;
}

function parseOperations(env: NodeJS.ProcessEnv): OperationsConfig {
  const metrics = (env.METRICS ?? 'on').toLowerCase();
  if (metrics !== 'on' && metrics !== 'off') throw new ConfigError(`METRICS must be on or off, got "${env.METRICS}"`);
  const redisUrl = env.REDIS_URL === '' ? undefined : env.REDIS_URL;
  if (redisUrl !== undefined && !isRedisUrl(redisUrl)) {
    // The URL is not echoed: it may hold a password.
    throw new ConfigError('REDIS_URL must be a redis:// or rediss:// URL');
  }
  return { metrics: metrics === 'on', redisUrl, production: env.NODE_ENV === 'production' };
}

function isRedisUrl(raw: string): boolean {
  try {
    return ['redis:', 'rediss:'].includes(new URL(raw).protocol);
  } catch {
    return false;
  }
}
