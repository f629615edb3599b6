/**
 * The floor: a yardstick for chaintags' four hot endpoints, the least a request can cost on this
 * stack (Node.js, pg, PostgreSQL) and this data.
 *
 * It answers GET /v2/addresses/:address, GET /v2/transactions, GET /v2/token-holdings and
 * GET /v2/tags/:tag from node:http and a bare pg Pool, by calling chaintags' own repositories and
 * services: the same SQL, run with the same parallelism, the same exact valuation and the same
 * response bodies and Link headers. The API key is checked with the service's own query too, since
 * no real answer can skip it. What the floor leaves out is everything the framework adds per
 * request: Express and its middleware (helmet, the body parser, ETags), Nest's routing, guards,
 * pipes, interceptor and exception filter, class-validator on the query string, rate limiting,
 * request logging, and TypeORM's query runners.
 *
 * The benchmark (bench/run.ts) compares both servers' answers before it measures anything, so a
 * floor that drifted from the service is caught rather than measured. It only understands the
 * requests the benchmark sends; anything else is a bare 400 or 404.
 *
 *   DATABASE_URL=postgres://… FLOOR_PORT=3100 node -r @swc-node/register bench/floor.ts
 */
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { Pool, type PoolClient } from 'pg';
import { AccountsRepository } from '../src/modules/accounts/accounts.repository';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { parseAddress } from '../src/core/addresses';
import { AddressesService } from '../src/modules/addresses/addresses.service';
import { isChainId } from '../src/core/chains/chain-ids';
import { ApiError } from '../src/core/errors';
import { CursorPage, formatLinks, OffsetPage, pageLinks } from '../src/http/paging/paging';
import { countOf, type Db, type Row, type Sql } from '../src/database/db.service';
import { render, type SqlFragment } from '../src/database/sql';
import { HoldingsRepository } from '../src/modules/holdings/holdings.repository';
import { HoldingsService } from '../src/modules/holdings/holdings.service';
import { StatsRepository } from '../src/modules/stats/stats.repository';
import { StatsService } from '../src/modules/stats/stats.service';
import { isValidTag } from '../src/core/tags/tag-rules';
import { TagScopeService } from '../src/modules/tags/tag-scope.service';
import { TagsRepository } from '../src/modules/tags/tags.repository';
import { TagsService } from '../src/modules/tags/tags.service';
import { TransactionsRepository } from '../src/modules/transactions/transactions.repository';
import { TransactionsService } from '../src/modules/transactions/transactions.service';

/** The service's pool size (src/database/data-source.ts), so neither side has more connections. */
const POOL_SIZE = 20;

interface Handlers {
  accounts: AccountsService;
  addresses: AddressesService;
  tags: TagsService;
  holdings: HoldingsService;
  transactions: TransactionsService;
}

export interface Floor {
  port: number;
  close(): Promise<void>;
}

/**
 * Reads through the pool directly. The repositories only need `query`, `execute`, `count` and the
 * dialect on these read paths, and `snapshot` for the reserved tag's counts; they never write here.
 */
function poolDb(pool: Pool): Db {
  const db = {
    ...statementsOn(pool),
    count: async (statement: SqlFragment): Promise<number> => countOf(await db.query(statement)),
    transaction: () => Promise.reject(new Error('the floor serves reads only')),
    // Reads in one snapshot, as Db.snapshot runs them on PostgreSQL.
    snapshot: async <T>(work: (q: Sql) => Promise<T>): Promise<T> => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        const result = await work(statementsOn(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      } finally {
        client.release();
      }
    },
  };
  return db as unknown as Db;
}

/** Statements on the pool, or on one of its clients. */
function statementsOn(target: Pool | PoolClient): Sql {
  const run = (statement: SqlFragment) => {
    const { text, params } = render(statement, 'postgres');
    return target.query(text, params);
  };
  return {
    dialect: 'postgres',
    query: async <T = Row>(statement: SqlFragment): Promise<T[]> => (await run(statement)).rows as T[],
    execute: async (statement: SqlFragment): Promise<number> => (await run(statement)).rowCount ?? 0,
  };
}

export async function startFloor(databaseUrl: string, port = 0): Promise<Floor> {
  const pool = new Pool({ connectionString: databaseUrl, max: POOL_SIZE });
  const db = poolDb(pool);
  const tagsRepository = new TagsRepository(db);
  const scopes = new TagScopeService(tagsRepository);
  const stats = new StatsService(new StatsRepository(db));
  const tags = new TagsService(tagsRepository, scopes, stats);
  const handlers: Handlers = {
    accounts: new AccountsService(new AccountsRepository(db)),
    addresses: new AddressesService(stats),
    tags,
    holdings: new HoldingsService(new HoldingsRepository(db), scopes),
    transactions: new TransactionsService(new TransactionsRepository(db), scopes),
  };
  const server = createServer((request, response) => void handle(handlers, request, response));
  server.keepAliveTimeout = 65_000;
  await listen(server, port);
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the floor has no TCP port');
  return {
    port: address.port,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.end();
    },
  };
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
}

async function handle(handlers: Handlers, request: IncomingMessage, response: ServerResponse): Promise<void> {
  try {
    const url = new URL(request.url ?? '/', `http://${request.headers.host ?? '127.0.0.1'}`);
    if (request.method !== 'GET') throw new ApiError('NOT_FOUND', 'The floor answers GET requests only.');
    if (url.pathname === '/health') return send(response, 200, { status: 'ok' });
    const key = url.searchParams.get('api_key') ?? request.headers['x-api-key'];
    const owner = typeof key === 'string' && key !== '' ? await handlers.accounts.authenticate(key) : undefined;
    if (owner === undefined) throw new ApiError('UNAUTHORIZED', 'The API key is missing, unknown or revoked.');
    await route(handlers, owner.accountId, url, response);
  } catch (error) {
    if (error instanceof ApiError) {
      send(response, error.status, { statusCode: error.status, code: error.code, message: error.message });
      return;
    }
    process.stderr.write(`floor: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    send(response, 500, { statusCode: 500, code: 'INTERNAL', message: 'Internal server error' });
  }
}

async function route(handlers: Handlers, accountId: number, url: URL, response: ServerResponse): Promise<void> {
  const [, version, resource, parameter, extra] = url.pathname.split('/');
  const query = url.searchParams;
  if (version === 'v2' && resource === 'tags' && parameter !== undefined && extra === 'addresses') {
    const page = whole(query, 'page', 1, 1e9);
    const result = await handlers.tags.members(
      accountId,
      decodeURIComponent(parameter),
      page,
      whole(query, 'per_page', 30, 100),
    );
    return send(response, 200, result.items, links(result, url));
  }
  if (version !== 'v2' || extra !== undefined) throw new ApiError('NOT_FOUND', 'Unknown route.');
  if (resource === 'addresses' && parameter !== undefined) {
    const parsed = parseAddress(decodeURIComponent(parameter));
    if (!parsed.ok) throw new ApiError('INVALID_ADDRESS', parsed.reason);
    return send(response, 200, await handlers.addresses.details(accountId, parsed.address));
  }
  if (resource === 'tags' && parameter !== undefined) {
    const tag = decodeURIComponent(parameter);
    if (!isValidTag(tag)) throw new ApiError('INVALID_TAG', 'Not a valid tag.');
    return send(response, 200, await handlers.tags.details(accountId, tag));
  }
  if (resource === 'transactions' && parameter === undefined) {
    const result = await handlers.transactions.page(accountId, {
      address: optional(query, 'address'),
      chain: chain(query),
      token_address: optional(query, 'token_address'),
      tag: optional(query, 'tag'),
      since: optional(query, 'since'),
      after: optional(query, 'after'),
      per_page: whole(query, 'per_page', 30, 100),
    });
    return send(response, 200, result.items, links(result, url));
  }
  if (resource === 'token-holdings' && parameter === undefined) {
    const result = await handlers.holdings.page(accountId, {
      tag: optional(query, 'tag'),
      address: optional(query, 'address'),
      chain: chain(query),
      token_address: optional(query, 'token_address'),
      page: whole(query, 'page', 1, 1e9),
      per_page: whole(query, 'per_page', 30, 100),
    });
    return send(response, 200, result.items, links(result, url));
  }
  throw new ApiError('NOT_FOUND', 'Unknown route.');
}

function optional(query: URLSearchParams, name: string): string | undefined {
  return query.get(name) ?? undefined;
}

function chain(query: URLSearchParams) {
  const value = query.get('chain');
  if (value === null) return undefined;
  if (!isChainId(value)) throw new ApiError('INVALID_QUERY', 'Unknown chain.');
  return value;
}

function whole(query: URLSearchParams, name: string, fallback: number, max: number): number {
  const value = query.get(name);
  if (value === null) return fallback;
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1 || Number(value) > max) {
    throw new ApiError('INVALID_QUERY', `${name} is out of range.`);
  }
  return Number(value);
}

/** The Link header the service's page answer (src/http/paging/paged.ts) sets for the same page. */
function links(result: OffsetPage<unknown> | CursorPage<unknown>, url: URL): string | undefined {
  const entries = pageLinks(result, url);
  return entries.length > 0 ? formatLinks(entries) : undefined;
}

function send(response: ServerResponse, status: number, body: unknown, link?: string): void {
  const text = JSON.stringify(body);
  const headers: Record<string, string | number> = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  };
  if (link !== undefined) headers.Link = link;
  response.writeHead(status, headers);
  response.end(text);
}

if (require.main === module) {
  const databaseUrl = process.env.DATABASE_URL;
  if (databaseUrl === undefined || !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    process.stderr.write('floor: set DATABASE_URL to a postgres:// URL of a chaintags database\n');
    process.exit(1);
  }
  startFloor(databaseUrl, Number(process.env.FLOOR_PORT ?? 3100)).then(
    (floor) => process.stdout.write(`floor listening on http://127.0.0.1:${floor.port}\n`),
    (error: unknown) => {
      process.stderr.write(`floor could not start: ${String(error)}\n`);
      process.exit(1);
    },
  );
}
