import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { MAX_LISTED_INVALID } from '../src/modules/ingest/ingest.service';
import { nodeArgs } from './support/build';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { runCli } from './support/cli';
import { ndjson } from './support/factories';
import { DATABASES, newKey, startOnFreshDatabase, TestApp } from './support/test-app';

/**
 * The command line's output reaches a reader that is slow to read it: the command may not end
 * while its output still waits in a pipe. Each test writes more than a pipe (64 KiB) and the
 * reader's own buffer hold together, so output the command abandoned by exiting would be missing.
 */
const PIPE_AND_READER_BUFFER = 64 * 1024 + 64 * 1024;
const SLOW = { readAfterMs: 1500 };

describe.each(DATABASES)('CLI output to a slow reader on %s', (kind) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startOnFreshDatabase(kind);
  }, 60_000);

  afterAll(async () => {
    await t.close();
  });

  /** Invalid lines whose reasons are long: the value shown in each reason is cut at 80 characters. */
  const badLines = (count: number) =>
    ndjson(Array.from({ length: count }, (_v, index) => ({ type: `no-such-type-${index}-${'x'.repeat(100)}` })));
  const firstListed = Array.from({ length: MAX_LISTED_INVALID }, (_v, index) => `line ${index + 1}`);

  it('import: every invalid line, the count of the rest and the error reach stderr, and the summary stdout', async () => {
    const result = await runCli(t.databaseUrl, ['import', '-'], badLines(MAX_LISTED_INVALID + 5), SLOW);
    expect(result.code).toBe(1);
    expect(
      result.stderr
        .split('\n')
        .filter((line) => line.startsWith('line '))
        .map((line) => line.split(':')[0]),
    ).toEqual(firstListed);
    expect(result.stderr).toMatch(
      new RegExp(
        `\\n\\.\\.\\. and 5 more invalid lines \\(only the first ${MAX_LISTED_INVALID} are listed\\)\\n` +
          `error: nothing was imported: ${MAX_LISTED_INVALID + 5} invalid lines .*\\n$`,
      ),
    );
    expect(JSON.parse(result.stdout)).toMatchObject({ committed: false, invalid: MAX_LISTED_INVALID + 5 });
    expect(Buffer.byteLength(result.stderr)).toBeGreaterThan(PIPE_AND_READER_BUFFER);
  }, 60_000);

  describe('keys list with more keys than a pipe holds', () => {
    let expected = '';

    beforeAll(async () => {
      const accounts = t.app.get(AccountsService);
      // Account names of the longest allowed length, so that the listing outgrows the pipe.
      const account = (index: number) => `slow-reader-${String(index).padStart(4, '0')}-${'a'.repeat(47)}`;
      for (let start = 0; start < 1500; start += 100) {
        await Promise.all(
          Array.from({ length: 100 }, (_v, offset) => accounts.addKey(account(start + offset), newKey())),
        );
      }
      expected = (await accounts.listKeys())
        .map(
          (key) =>
            `${key.prefix}\t${key.account}\t${key.created_at}\t${key.revoked_at ?? '-'}\t${key.access}\t` +
            `${key.expires_at ?? '-'}\t${key.last_used_at ?? '-'}\n`,
        )
        .join('');
    }, 60_000);

    it('every key reaches stdout when it is read late', async () => {
      expect(Buffer.byteLength(expected)).toBeGreaterThan(PIPE_AND_READER_BUFFER);
      const result = await runCli(t.databaseUrl, ['keys', 'list'], undefined, SLOW);
      expect(result).toEqual({ code: 0, stdout: expected, stderr: '' });
    }, 60_000);

    it('a reader that stops early (| head -1) ends the output quietly', async () => {
      const result = await runCli(t.databaseUrl, ['keys', 'list'], undefined, { closeStdoutEarly: true });
      expect(result.stdout.length).toBeGreaterThan(0);
      expect(result.stdout.length).toBeLessThan(expected.length);
      expect(expected.startsWith(result.stdout)).toBe(true);
      expect(result).toMatchObject({ code: 0, stderr: '' });
    }, 60_000);
  });
});

describe('a finished command whose process something it could not cancel holds', () => {
  it('ends once its output is read, with its exit code', async () => {
    // A listening socket stands for a request to a node that never answers (`follow --check`).
    const entry = nodeArgs('src/cli/main');
    const main = JSON.stringify(entry[entry.length - 1]!);
    const size = 2 * PIPE_AND_READER_BUFFER;
    const script =
      `const { finish } = require(${main}); require('node:net').createServer().listen(0, '127.0.0.1'); ` +
      `process.stdout.write('x'.repeat(${size})); void finish(3);`;
    const child = spawn(process.execPath, [...entry.slice(0, -1), '-e', script], { cwd: join(__dirname, '..') });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    // Read late, as a busy reader would: the process must wait for its output to leave, then end.
    setTimeout(() => child.stdout.on('data', (chunk: string) => (stdout += chunk)), SLOW.readAfterMs);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, length: stdout.length }).toEqual({ code: 3, length: size });
  }, 30_000);
});
