import { version as packageVersion } from '../package.json';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { nodeArgs } from './support/build';
import { runCli, runNpmCli } from './support/cli';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { MIGRATIONS } from '../src/database/migrations';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { Db } from '../src/database/db.service';
import { sql } from '../src/database/sql';
import { DATABASES, emptyDatabase, startTestApp, TestApp } from './support/test-app';

describe.each(DATABASES)('keys CLI on %s', (kind) => {
  let t: TestApp;
  let url: string;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const db = await emptyDatabase(kind);
    url = db.url;
    drop = db.drop;
    // The CLI runs first, on a database nothing has migrated yet; once through `npm run cli` itself,
    // as a user starts it.
    const created = await (kind === 'sqlite' ? runNpmCli : runCli)(url, ['keys', 'create', 'dave']);
    expect(created).toMatchObject({ code: 0 });
    firstKey = created.stdout;
    t = await startTestApp({ databaseUrl: url });
  }, 60_000);

  let firstKey = '';

  afterAll(async () => {
    await t.close();
    await drop();
  });

  /** The key's `last_used_at` once at or after `since` (ms), waited for: it is stamped later. */
  async function usedSince(key: string, since: number): Promise<number> {
    const accounts = t.app.get(AccountsService);
    for (let wait = 0; wait < 100; wait += 1) {
      const stamped = (await accounts.listKeys()).find((row) => key.startsWith(row.prefix))!.last_used_at;
      if (stamped !== null && Date.parse(stamped) >= since) return Date.parse(stamped);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`the key was not stamped as used since ${new Date(since).toISOString()}`);
  }

  it('shows when a key was last used, stamped at most once an hour', async () => {
    const accounts = t.app.get(AccountsService);
    const db = t.app.get(Db);
    const key = await accounts.createKey('gina');
    const prefix = key.slice(0, 12);
    const lastUsed = async () => (await accounts.listKeys()).find((row) => row.prefix === prefix)!.last_used_at;
    expect(await lastUsed()).toBeNull();

    const before = Date.now();
    await Promise.all(Array.from({ length: 5 }, () => t.http().get('/v2/chains').set('X-API-Key', key).expect(200)));
    const first = await usedSince(key, before - 1_000);
    expect(first).toBeLessThanOrEqual(Date.now());

    // Stamped 30 minutes ago: a request now leaves it.
    const halfHour = new Date(Date.now() - 1_800_000).toISOString();
    await db.execute(sql`UPDATE api_keys SET last_used_at = ${halfHour} WHERE prefix = ${prefix}`);
    await t.http().get('/v2/tags').set('X-API-Key', key).expect(200);
    await t.app.get(AccountsService).beforeApplicationShutdown();
    expect(await lastUsed()).toBe(halfHour);

    // Two hours ago: stamped again.
    await db.execute(
      sql`UPDATE api_keys SET last_used_at = ${new Date(Date.now() - 7_200_000).toISOString()} WHERE prefix = ${prefix}`,
    );
    const again = Date.now();
    await t.http().get('/v2/tags').set('X-API-Key', key).expect(200);
    expect(await usedSince(key, again - 1_000)).toBeGreaterThanOrEqual(again - 1_000);
    // A refused request stamps nothing.
    await accounts.revokeKey(prefix);
    const stamped = await lastUsed();
    await t.http().get('/v2/tags').set('X-API-Key', key).expect(401);
    expect(await lastUsed()).toBe(stamped);
  });

  it('prints only the new key, which the server accepts', async () => {
    expect(firstKey).toMatch(/^ctk_[A-Za-z0-9_-]{43}\n$/);
    await t.http().get('/v2/chains').set('X-API-Key', firstKey.trim()).expect(200);
  });

  it('lists keys by prefix, never whole, and revokes one with immediate effect on a running server', async () => {
    const created = await runCli(url, ['keys', 'create', 'erin']);
    const key = created.stdout.trim();
    await t.http().get('/v2/chains').set('X-API-Key', key).expect(200);
    await usedSince(key, 0);

    const listed = await runCli(url, ['keys', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(key);
    const line = listed.stdout.split('\n').find((row) => row.startsWith(key.slice(0, 12)));
    expect(line?.split('\t')).toEqual([
      key.slice(0, 12),
      'erin',
      expect.stringMatching(/Z$/),
      '-',
      'full',
      '-',
      expect.stringMatching(/Z$/),
    ]);

    const revoked = await runCli(url, ['keys', 'revoke', key.slice(0, 12)]);
    expect(revoked).toMatchObject({ code: 0, stdout: '' });
    await t.http().get('/v2/chains').set('X-API-Key', key).expect(401);
    const after = await runCli(url, ['keys', 'list']);
    expect(
      after.stdout
        .split('\n')
        .find((row) => row.startsWith(key.slice(0, 12)))
        ?.split('\t')[3],
    ).toMatch(/Z$/);
  }, 60_000);

  it('creates a read-only key, listed as read, which reads and changes nothing', async () => {
    const created = await runCli(url, ['keys', 'create', 'erin', '--read-only']);
    expect(created.code).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^ctk_[A-Za-z0-9_-]{43}$/);
    const listed = await runCli(url, ['keys', 'list']);
    expect(
      listed.stdout
        .split('\n')
        .find((row) => row.startsWith(key.slice(0, 12)))
        ?.split('\t')[4],
    ).toBe('read');
    await t.http().get('/v2/tags').set('X-API-Key', key).expect(200);
    const refused = await t
      .http()
      .post('/v2/tags/erins_tag')
      .set('X-API-Key', key)
      .set('Content-Type', 'application/json')
      .send('["0x52908400098527886e0f7030069857d2e4169ee7"]');
    expect([refused.status, refused.body.code]).toEqual([403, 'READ_ONLY_KEY']);
  }, 60_000);

  it('creates a key that expires, and moves the expiry of a running server’s key, which counts from the next request', async () => {
    const accounts = t.app.get(AccountsService);
    const listed = async (key: string) => (await accounts.listKeys()).find((row) => key.startsWith(row.prefix))!;
    const created = await runCli(url, ['keys', 'create', 'frank', '--expires', '30d']);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const key = created.stdout.trim();
    const prefix = key.slice(0, 12);
    const line = (await runCli(url, ['keys', 'list'])).stdout.split('\n').find((row) => row.startsWith(prefix));
    const [, , createdAt, revokedAt, access, expiresAt] = line!.split('\t');
    expect([revokedAt, access]).toEqual(['-', 'full']);
    expect(Date.parse(expiresAt!) - Date.parse(createdAt!)).toBe(30 * 86_400_000);
    await t.http().get('/v2/chains').set('X-API-Key', key).expect(200);

    // Expired by a time gone by: refused at once, listed with when (not as revoked).
    const expired = await runCli(url, ['keys', 'expire', prefix, '2026-01-01T00:00:00Z']);
    expect(expired).toEqual({
      code: 0,
      stdout: '',
      stderr: `the key ${prefix}… expires at 2026-01-01T00:00:00.000Z\n`,
    });
    const refused = await t.http().get('/v2/chains').set('X-API-Key', key).expect(401);
    expect(refused.body.code).toBe('UNAUTHORIZED');
    expect(await listed(key)).toMatchObject({ revoked_at: null, expires_at: '2026-01-01T00:00:00.000Z' });

    // `never` takes the expiry away; an expiry a moment ahead is accepted until it passes.
    await accounts.expireKey(prefix, 'never');
    await t.http().get('/v2/chains').set('X-API-Key', key).expect(200);
    expect(await listed(key)).toMatchObject({ revoked_at: null, expires_at: null });
    const soon = new Date(Date.now() + 1_000).toISOString();
    await accounts.expireKey(prefix, soon);
    if (Date.now() < Date.parse(soon) - 200) await t.http().get('/v2/chains').set('X-API-Key', key).expect(200);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(soon) - Date.now() + 10)));
    await t.http().get('/v2/chains').set('X-API-Key', key).expect(401);
  }, 60_000);

  it('refuses an expiry that is gone by or not a time, and a revoked key’s expiry', async () => {
    const accounts = t.app.get(AccountsService);
    const before = (await accounts.listKeys()).length;
    const refusedCreate = await runCli(url, ['keys', 'create', 'frank', '--expires', '2026-01-01T00:00:00Z']);
    expect(refusedCreate).toMatchObject({ code: 1, stdout: '' });
    expect(refusedCreate.stderr).toContain('--expires must be a time to come');
    for (const when of ['now', '0m']) {
      await expect(accounts.createKey('frank', 'full', when)).rejects.toThrow('--expires must be a time to come');
    }
    for (const when of ['tomorrow', '1w', '', '2027-02-30T00:00:00Z', 'never']) {
      await expect(accounts.createKey('frank', 'full', when)).rejects.toThrow('the expiry must be');
    }
    expect((await accounts.listKeys()).length).toBe(before);

    const prefix = (await accounts.createKey('frank')).slice(0, 12);
    const refusedExpiry = await runCli(url, ['keys', 'expire', prefix, 'soon']);
    expect(refusedExpiry).toMatchObject({ code: 1, stdout: '' });
    expect(refusedExpiry.stderr).toContain('the expiry must be');
    await expect(accounts.expireKey('ctk_zzzzzzzz', '1d')).rejects.toThrow('no key starts with');
    await accounts.revokeKey(prefix);
    await expect(accounts.expireKey(prefix, '1d')).rejects.toThrow('already revoked');
    expect((await accounts.listKeys()).find((row) => row.prefix === prefix)).toMatchObject({ expires_at: null });
  }, 60_000);

  it('fails with a message and exit code 1 on bad input', async () => {
    const badAccount = await runCli(url, ['keys', 'create', 'Not An Account']);
    expect(badAccount.code).toBe(1);
    expect(badAccount.stderr).toContain('account');
    const unknown = await runCli(url, ['keys', 'revoke', 'ctk_zzzzzzzz']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no key');
  }, 60_000);
});

describe.each(DATABASES)('commands started together on an empty %s database', (kind) => {
  it('all start: one applies the migrations while the others wait, and each migration is applied once', async () => {
    const db = await emptyDatabase(kind);
    try {
      const results = await Promise.all(Array.from({ length: 4 }, () => runCli(db.url, ['keys', 'list'])));
      expect(results.map((result) => [result.code, result.stderr])).toEqual(Array(4).fill([0, '']));
      const applied = await runCli(db.url, ['keys', 'create', 'erin']);
      expect(applied.code).toBe(0);
      const names = await migrationNames(kind, db.url);
      expect(names).toEqual([...new Set(names)]);
      expect(names).toHaveLength(MIGRATIONS.length);
    } finally {
      await db.drop();
    }
  }, 60_000);
});

describe('a command beside a writer on an up-to-date SQLite database', () => {
  it('starts without waiting for the write lock: it migrates and seeds nothing, so it writes nothing', async () => {
    const db = await emptyDatabase('sqlite');
    try {
      expect((await runCli(db.url, ['keys', 'create', 'erin'])).code).toBe(0);
      // Another process (a server committing a long import, say) holds the write lock until the
      // command ends: a command that waited for it would fail after the busy timeout.
      const writer = new Database(db.url.slice('sqlite:'.length));
      writer.exec('BEGIN IMMEDIATE');
      try {
        const listed = await runCli(db.url, ['keys', 'list']);
        expect([listed.code, listed.stderr]).toEqual([0, '']);
        expect(listed.stdout).toContain('\terin\t');
        for (const args of [
          ['tags', 'export', '--account', 'erin'],
          ['stats', 'verify'],
        ]) {
          const result = await runCli(db.url, args);
          expect([args.join(' '), result.code]).toEqual([args.join(' '), 0]);
        }
      } finally {
        writer.exec('ROLLBACK');
        writer.close();
      }
    } finally {
      await db.drop();
    }
  }, 60_000);
});

/** The names in the migrations table, in the order applied. */
async function migrationNames(kind: 'sqlite' | 'postgres', url: string): Promise<string[]> {
  if (kind === 'sqlite') {
    const database = new Database(url.slice('sqlite:'.length), { readonly: true });
    try {
      return (database.prepare('SELECT name FROM migrations ORDER BY id').all() as { name: string }[]).map(
        (row) => row.name,
      );
    } finally {
      database.close();
    }
  }
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ name: string }>('SELECT name FROM migrations ORDER BY id')).rows.map(
      (row) => row.name,
    );
  } finally {
    await client.end();
  }
}

describe('the command line loads what a command uses when it runs', () => {
  /**
   * The files a process has required once it read the command line (`args` undefined) or ran the
   * command line `args` against the database `url` (src/cli/command.ts); and the command's exit code.
   */
  async function loadedBy(args?: string[], url = 'sqlite::memory:'): Promise<{ code: number; files: string[] }> {
    const entry = nodeArgs('src/cli/main');
    const main = JSON.stringify(entry[entry.length - 1]!);
    const report = "process.stderr.write('\\n' + JSON.stringify({ code, files: Object.keys(require.cache) }))";
    const script =
      args === undefined
        ? `require(${main}).buildProgram(); const code = 0; ${report};`
        : `require(${main}).run(['node', 'chaintags', ...${JSON.stringify(args)}]).then((code) => { ${report}; });`;
    const { stderr } = await promisify(execFile)(process.execPath, [...entry.slice(0, -1), '-e', script], {
      env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent' },
    });
    return JSON.parse(stderr.slice(stderr.lastIndexOf('\n') + 1)) as { code: number; files: string[] };
  }

  /** Our files among `files`, as paths under src/. */
  const ours = (files: string[]) =>
    files
      .filter((file) => !file.includes('/node_modules/') && !file.endsWith('/package.json'))
      .map((file) => file.replace(/^.*\/src\//, ''));

  it('reading the command line requires no module, no Nest application and no database driver', async () => {
    const { files } = await loadedBy();
    expect(ours(files).filter((file) => /^modules\/[^/]+\/commands\//.test(file))).toHaveLength(6);
    expect(ours(files).filter((file) => !/^(cli|config|core)\/|^modules\/[^/]+\/commands\/[^/]+$/.test(file))).toEqual(
      [],
    );
    const packages = files.filter((file) =>
      /\/node_modules\/(typeorm|viem|pg|better-sqlite3|@nestjs\/core)\//.test(file),
    );
    expect(packages).toEqual([]);
  }, 60_000);

  it('a command that is not a server loads no route, no request validation and no OpenAPI decorator', async () => {
    const db = await emptyDatabase('sqlite');
    const folder = mkdtempSync(join(tmpdir(), 'chaintags-cli-'));
    const tags = join(folder, 'tags.ndjson');
    writeFileSync(
      tags,
      `${JSON.stringify({ address: '0x52908400098527886e0f7030069857d2e4169ee7', tags: ['watched'] })}\n`,
    );
    try {
      // In turn: the first creates the account the tag commands use.
      for (const args of [
        ['keys', 'create', 'erin'],
        ['keys', 'list'],
        ['stats', 'verify'],
        ['import', '/dev/null'],
        ['tags', 'export', '--account', 'erin'],
        ['tags', 'import', tags, '--account', 'erin'],
      ]) {
        const { code, files } = await loadedBy(args, db.url);
        expect({ args, code }).toEqual({ args, code: 0 });
        const http = ours(files).filter((file) => /\.controller\.|\/dto\/|^http\/(docs|validation)\//.test(file));
        const packages = files.filter((file) => /\/node_modules\/(@nestjs\/swagger|class-validator)\//.test(file));
        expect({ args, http, packages }).toEqual({ args, http: [], packages: [] });
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
      await db.drop();
    }
  }, 60_000);

  it('--version prints the version of package.json', async () => {
    const printed = await runCli('sqlite::memory:', ['--version']);
    expect({ code: printed.code, stdout: printed.stdout }).toEqual({ code: 0, stdout: `${packageVersion}\n` });
  }, 60_000);

  it('--help lists every command', async () => {
    const help = await runCli('sqlite::memory:', ['--help']);
    expect(help.code).toBe(0);
    for (const command of ['keys', 'import', 'tags', 'stats', 'follow', 'prices'])
      expect(help.stdout).toMatch(new RegExp(`\\n  ${command} `));
  }, 60_000);
});
