import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArgumentsHost } from '@nestjs/common';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { QueryFailedError } from 'typeorm';
import { freePort } from '../../../test/support/pg-cluster';
import { ApiExceptionFilter } from './api-exception.filter';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from './database-unavailable';
import { PathParameterRoutes } from '../validation/path-params';

/** Whatever `work` throws, as the driver threw it. */
function thrownBy(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

describe('isDatabaseUnavailable, on errors the real drivers throw', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'chaintags-unavailable-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('knows a PostgreSQL server that refuses the connection', async () => {
    const client = new Client({ host: '127.0.0.1', port: await freePort(), user: 'nobody', database: 'none' });
    const error = await client.connect().then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it('knows a SQLite file that cannot be opened, and the same error wrapped by TypeORM', () => {
    // A folder where the database file should be: SQLite cannot open it.
    const error = thrownBy(() => new Database(dir));
    expect((error as { code?: string }).code).toBe('SQLITE_CANTOPEN');
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(isDatabaseUnavailable(new QueryFailedError('SELECT 1', [], error as Error))).toBe(true);
  });

  it('knows a SQLite write lock held by another connection past the busy timeout', () => {
    const file = join(dir, 'locked.sqlite');
    const holder = new Database(file);
    const waiter = new Database(file, { timeout: 0 });
    try {
      holder.exec('BEGIN IMMEDIATE');
      const error = thrownBy(() => waiter.exec('BEGIN IMMEDIATE'));
      expect((error as { code?: string }).code).toBe('SQLITE_BUSY');
      expect(isDatabaseUnavailable(error)).toBe(true);
    } finally {
      holder.close();
      waiter.close();
    }
  });

  it('leaves failing statements and other errors alone', () => {
    const db = new Database(':memory:');
    try {
      db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY)');
      db.exec('INSERT INTO t VALUES (1)');
      const duplicate = thrownBy(() => db.exec('INSERT INTO t VALUES (1)'));
      const syntax = thrownBy(() => db.exec('SELEC 1'));
      for (const error of [duplicate, syntax, new QueryFailedError('x', [], syntax as Error)]) {
        expect(isDatabaseUnavailable(error)).toBe(false);
      }
    } finally {
      db.close();
    }
    expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
    expect(isDatabaseUnavailable('Connection terminated')).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });
});

describe('ApiExceptionFilter on an unreachable database', () => {
  it('answers 503 DATABASE_UNAVAILABLE with Retry-After and no driver text', async () => {
    const client = new Client({ host: '127.0.0.1', port: await freePort(), user: 'nobody', database: 'none' });
    const error = await client.connect().then(
      () => undefined,
      (failure: unknown) => failure,
    );
    const sent = { status: 0, headers: {} as Record<string, string>, body: {} as Record<string, unknown> };
    const response = {
      headersSent: false,
      setHeader: (name: string, value: string) => void (sent.headers[name] = value),
      status(code: number) {
        sent.status = code;
        return this;
      },
      json: (body: Record<string, unknown>) => void (sent.body = body),
    };
    const host = {
      switchToHttp: () => ({
        getRequest: () => ({ method: 'GET', path: '/v2/tags', id: 'req-1' }),
        getResponse: () => response,
      }),
    } as unknown as ArgumentsHost;
    new ApiExceptionFilter(new PathParameterRoutes([])).catch(error, host);
    expect(sent.status).toBe(503);
    expect(sent.headers).toEqual({ 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) });
    expect(sent.body).toMatchObject({ statusCode: 503, error: 'Service Unavailable', code: 'DATABASE_UNAVAILABLE' });
    expect(JSON.stringify(sent.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
  });
});
