import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BeforeApplicationShutdown, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Client } from 'pg';
import { parseConfig } from '../src/config/config';
import { ConfigModule } from '../src/config/config.module';
import { DatabaseModule } from '../src/database/database.module';
import { Db } from '../src/database/db.service';
import { evmAddress } from './support/factories';
import { startServerProcess, ServerProcess } from './support/server-process';
import { freshDatabase, newKey } from './support/test-app';
import { sql } from '../src/database/sql';

interface Answer {
  status?: number;
  error?: string;
}

const TAG = 'shutdown_watch';

/** One GET of a tag on a connection of its own; `onSent` once the request is written to the socket. */
function get(url: string, key: string, onSent?: () => void): Promise<Answer> {
  return new Promise((resolve) => {
    const req = httpRequest(`${url}/v2/tags/${TAG}`, { agent: false, headers: { 'X-API-Key': key } }, (res) => {
      res.resume();
      res.once('end', () => resolve({ status: res.statusCode }));
    });
    req.once('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    req.end(onSent);
  });
}

/** Whether a new TCP connection to the port is refused (the server no longer listens). */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('a server process on PostgreSQL, stopped with SIGTERM', () => {
  let database: { url: string; drop: () => Promise<void> };
  let server: ServerProcess;
  let key: string;

  beforeAll(async () => {
    database = await freshDatabase('postgres');
    server = await startServerProcess({ DATABASE_URL: database.url, LOG_LEVEL: 'info', NODE_ENV: 'production' });
    key = /^\s+(ctk_\S+)$/m.exec(server.stdout())?.[1] ?? '';
    const created = await fetch(`${server.url}/v2/tags/${TAG}`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify([evmAddress('shutdown').input]),
    });
    expect(created.status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await server?.kill();
    await database?.drop();
  });

  it('prints the first key once, outside the JSON log lines', () => {
    expect(key).toMatch(/^ctk_/);
    const lines = server.stdout().split('\n');
    const json = lines.filter((line) => line.startsWith('{'));
    expect(json.length).toBeGreaterThan(0);
    for (const line of json) expect(() => JSON.parse(line) as unknown).not.toThrow();
    expect(json.join('\n')).not.toContain(key);
    expect(lines.filter((line) => line.includes(key))).toEqual([`    ${key}`]);
  });

  it('answers every request it was sent, stops listening, and exits with code 0', async () => {
    // Requests held by the database: a lock on tags keeps them in flight for as long as the test
    // wants. Each waits on the lock with its first statement (the tag's lookup).
    const locker = new Client({ connectionString: database.url });
    const watcher = new Client({ connectionString: database.url });
    await Promise.all([locker.connect(), watcher.connect()]);
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE tags IN ACCESS EXCLUSIVE MODE');
      const held = Array.from({ length: 10 }, () => get(server.url, key));
      await until(async () => {
        const { rows } = await watcher.query<{ waiting: number }>(
          "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
        );
        return rows[0]!.waiting === held.length;
      }, 'the requests to wait for the lock');

      // Requests written on new connections the moment before the signal: the server has not read
      // them yet, and the kernel may not even have handed it their connections.
      let written = 0;
      let allWritten: () => void = () => undefined;
      const sent = new Promise<void>((resolve) => (allWritten = resolve));
      const late = Array.from({ length: 5 }, () =>
        get(server.url, key, () => {
          written += 1;
          if (written === 5) allWritten();
        }),
      );
      await sent;
      server.signal('SIGTERM');

      await until(() => refused(server.port), 'the server to stop listening');
      expect(server.exitCode()).toBeNull();
      await locker.query('COMMIT');

      const answers = await Promise.all([...held, ...late]);
      expect(answers).toEqual(Array.from({ length: 15 }, () => ({ status: 200 })));
      expect(await server.exited).toEqual({ code: 0, signal: null });
      const messages = server
        .stdout()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => (JSON.parse(line) as { msg: string }).msg);
      expect(messages).toEqual(expect.arrayContaining(['SIGTERM: stopping', 'stopped']));
    } finally {
      await locker.end();
      await watcher.end();
    }
  }, 60_000);
});

@Injectable()
class CommittingWorker implements BeforeApplicationShutdown {
  constructor(private readonly db: Db) {}

  /** The seam a follower or poller uses: finish the commit in progress before the pools close. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.db.transaction((tx) =>
      tx.execute(sql`INSERT INTO settings (key, value) VALUES ('last_commit', 'done')`),
    );
  }
}

@Module({ providers: [CommittingWorker] })
class WorkerModule {}

describe('stopping the application', () => {
  it('lets a worker commit in beforeApplicationShutdown, before the database closes', async () => {
    const database = await freshDatabase('postgres');
    try {
      const config = parseConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent' });
      const context = await NestFactory.createApplicationContext(
        { module: WorkerModule, imports: [ConfigModule.forRoot(config), DatabaseModule] },
        { logger: false },
      );
      await context.close();
      const reader = new Client({ connectionString: database.url });
      await reader.connect();
      try {
        const { rows } = await reader.query("SELECT value FROM settings WHERE key = 'last_commit'");
        expect(rows).toEqual([{ value: 'done' }]);
      } finally {
        await reader.end();
      }
    } finally {
      await database.drop();
    }
  }, 60_000);
});

describe('npm start, the quick start of the README', () => {
  it('serves the API on the SQLite file it is given and stops on Ctrl-C', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'chaintags-start-'));
    const key = newKey();
    const server = await startServerProcess(
      { DATABASE_URL: `sqlite:${join(folder, 'db.sqlite')}`, API_KEYS: `quick:${key}`, PRICE_REFRESH_SECONDS: '0' },
      true,
    );
    try {
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
      const tagged = await fetch(`${server.url}/v2/tags/quick_start`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body: JSON.stringify([evmAddress('quick start').input]),
      });
      expect(tagged.status).toBe(200);
      server.signal('SIGINT');
      await until(() => refused(server.port), 'the server to stop listening');
      await server.exited;
    } finally {
      await server.kill();
      rmSync(folder, { recursive: true, force: true });
    }
  }, 60_000);
});
