import { randomBytes, randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { Agent, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Client } from 'pg';
import type { DestinationStream } from 'pino';
import request, { type Response } from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { createApp } from '../../src/app.factory';
import { parseConfig, PriceSourceConfig } from '../../src/config/config';
import { PG_TEMPLATE, SQLITE_TEMPLATE_ENV } from './database-templates';
import type { PgCluster } from './pg-cluster';

export type DatabaseKind = 'sqlite' | 'postgres';

/** Every e2e suite runs once per database: `describe.each(DATABASES)`. */
export const DATABASES: DatabaseKind[] = ['sqlite', 'postgres'];

/**
 * A fresh database of the given kind, migrated and holding the reference data, of its own: a copy
 * of the template the e2e global setup migrated once for the run. Its URL can be reopened to test
 * persistence.
 */
export async function freshDatabase(kind: DatabaseKind): Promise<{ url: string; drop: () => Promise<void> }> {
  if (kind === 'sqlite') {
    const template = process.env[SQLITE_TEMPLATE_ENV];
    if (!template) throw new Error('the e2e global setup did not prepare the SQLite template');
    const database = newSqliteDatabase();
    copyFileSync(template, database.path);
    return database;
  }
  return newPostgresDatabase(`TEMPLATE ${PG_TEMPLATE}`);
}

/**
 * A fresh database with nothing in it, not even the migrations: for the tests of what migrates an
 * empty database (a server's or a command's first start).
 */
export async function emptyDatabase(kind: DatabaseKind): Promise<{ url: string; drop: () => Promise<void> }> {
  return kind === 'sqlite' ? newSqliteDatabase() : newPostgresDatabase('');
}

function newSqliteDatabase(): { path: string; url: string; drop: () => Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), 'chaintags-sqlite-'));
  const path = join(dir, 'test.sqlite');
  return { path, url: `sqlite:${path}`, drop: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })) };
}

async function newPostgresDatabase(options: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const raw = process.env.CHAINTAGS_TEST_PG;
  if (!raw) throw new Error('the e2e global setup did not start PostgreSQL');
  const cluster = JSON.parse(raw) as PgCluster;
  const name = `ct_${randomUUID().replace(/-/g, '')}`;
  await withAdmin(cluster.url, (client) => client.query(`CREATE DATABASE ${name} ${options}`));
  return {
    url: cluster.url.replace(/\/postgres$/, `/${name}`),
    drop: () => withAdmin(cluster.url, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
  };
}

async function withAdmin(url: string, work: (client: Client) => Promise<unknown>): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

export function newKey(): string {
  return `ctk_${randomBytes(24).toString('base64url')}`;
}

export interface TestApp {
  app: NestExpressApplication;
  http: () => TestAgent;
  /** Keys created through API_KEYS at start: `alice` and `bob` are two separate accounts. */
  keys: { alice: string; bob: string };
  databaseUrl: string;
  close: () => Promise<void>;
}

export interface TestAppOptions {
  databaseUrl: string;
  keys?: { alice: string; bob: string };
  rateLimitPerMinute?: number;
  /** Receives the service's log lines, at LOG_LEVEL=info; without it the test app logs nothing. */
  logDestination?: DestinationStream;
  /** The price poller's settings; without them it is off, so no test reaches a real price source. */
  prices?: Partial<PriceSourceConfig>;
  /** More settings, read like the environment (RPC_URL_ETHEREUM, FOLLOW_INTERVAL_MS, …). */
  env?: Record<string, string>;
  /**
   * The Node.js process's metrics on GET /metrics (createApp's `processMetrics`); off unless true.
   * Their collectors outlive the app and would keep each suite's loaded modules in the jest worker
   * until it ends (about 30 MB a suite).
   */
  processMetrics?: boolean;
}

export async function startTestApp(options: TestAppOptions): Promise<TestApp> {
  const keys = options.keys ?? { alice: newKey(), bob: newKey() };
  const config = parseConfig({
    DATABASE_URL: options.databaseUrl,
    API_KEYS: `alice:${keys.alice},bob:${keys.bob}`,
    LOG_LEVEL: options.logDestination === undefined ? 'silent' : 'info',
    RATE_LIMIT_PER_MINUTE: String(options.rateLimitPerMinute ?? 0),
    PRICE_REFRESH_SECONDS: '0',
    ...options.env,
  });
  config.prices = { ...config.prices, ...options.prices };
  const app = await createApp(config, {
    logDestination: options.logDestination,
    processMetrics: options.processMetrics ?? false,
  });
  // Listening once, on a loopback port of its own: supertest would otherwise listen anew for each
  // request, and a search of thousands of requests leaves the machine's ephemeral ports in TIME_WAIT.
  await app.listen(0, '127.0.0.1');
  const server: Server = app.getHttpServer();
  const agent = new Agent({ keepAlive: true });
  return {
    app,
    http: () => keptAlive(server, agent),
    keys,
    databaseUrl: options.databaseUrl,
    close: async () => {
      agent.destroy();
      await app.close();
    },
  };
}

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'del', 'head', 'options'] as const;

/**
 * supertest's client, its requests sent over connections `agent` keeps open, as an HTTP client
 * would: supertest opens and closes a TCP connection for every request otherwise, about 0.1-0.2
 * ms of the test process's CPU each (a scratch script: 2,000 requests each way).
 */
function keptAlive(server: Server, agent: Agent): TestAgent {
  const client = request(server);
  for (const method of HTTP_METHODS) {
    const open = client[method].bind(client);
    client[method] = (url: string) => open(url).agent(agent);
  }
  return client;
}

/** A TestApp on a database of its own; closing it also removes the database. */
export async function startOnFreshDatabase(
  kind: DatabaseKind,
  options: Omit<TestAppOptions, 'databaseUrl'> = {},
): Promise<TestApp> {
  const db = await freshDatabase(kind);
  const app = await startTestApp({ ...options, databaseUrl: db.url });
  return {
    ...app,
    close: async () => {
      await app.close();
      await db.drop();
    },
  };
}

/**
 * A response's body as one text, for `.buffer(true).parse(asText)`: supertest parses only the
 * types it knows, and NDJSON is not one of them.
 */
export function asText(response: Response, callback: (error: Error | null, body: string) => void): void {
  let text = '';
  response.setEncoding('utf8');
  response.on('data', (chunk: string) => (text += chunk));
  response.on('end', () => callback(null, text));
}
