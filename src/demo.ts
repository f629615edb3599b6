import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { generateApiKey } from './modules/accounts/api-key';
import { createApp } from './app.factory';
import { stopOnSignals } from './app.shutdown';
import { ConfigError, parseConfig } from './config/config';
import { Db } from './database/db.service';
import { IngestService } from './modules/ingest/ingest.service';
import { sql } from './database/sql';

/**
 * `npm run demo`: the service on its own SQLite file, recreated on every run and filled from
 * examples/demo.ndjson through the same import as the CLI, with a fresh key for account `demo`.
 * It never touches DATABASE_URL's database. PORT and LOG_LEVEL apply as for the server.
 */
const DEMO_DATABASE = join(__dirname, '..', 'data', 'demo.sqlite');
const DEMO_FILE = join(__dirname, '..', 'examples', 'demo.ndjson');

async function main(): Promise<void> {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${DEMO_DATABASE}${suffix}`, { force: true });
  const key = generateApiKey();
  const config = parseConfig({
    ...process.env,
    DATABASE_URL: `sqlite:${DEMO_DATABASE}`,
    // A key named here exists before start-up, so the server does not mint a `default` one.
    API_KEYS: `demo:${key}`,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  });
  const app = await createApp(config);
  try {
    await app.init();
    await serveDemo(app, key, config.port);
  } catch (error) {
    // Close the database and the price poller too, so that nothing keeps the process alive.
    await app.close().catch(() => undefined);
    throw error;
  }
  stopOnSignals(() => app.close());
}

async function serveDemo(app: Awaited<ReturnType<typeof createApp>>, key: string, port: number): Promise<void> {
  const report = await app.get(IngestService).importFile(DEMO_FILE);
  if (!report.committed) {
    const first = report.invalidLines[0];
    throw new Error(`${DEMO_FILE} has ${report.invalid} invalid lines (line ${first?.line}: ${first?.reason})`);
  }
  const [busiest] = await app
    .get(Db)
    .query<{ address: string }>(
      sql`SELECT address FROM holdings WHERE balance <> '0' GROUP BY address ORDER BY COUNT(*) DESC, address LIMIT 1`,
    );

  await app.listen(port);
  const base = `http://localhost:${port}`;
  const address = busiest?.address ?? '0x0000000000000000000000000000000000000000';
  const rows = Object.entries(report.valid)
    .filter(([, count]) => count > 0)
    .map(([type, count]) => `${count} ${type}${count === 1 ? '' : 's'}`)
    .join(', ');
  process.stdout.write(
    [
      '',
      `chaintags demo: imported ${rows} from examples/demo.ndjson into ${DEMO_DATABASE}`,
      '',
      `API key of account "demo" (new on every run):`,
      '',
      `    ${key}`,
      '',
      'Try:',
      '',
      `    curl -s '${base}/v2/token-holdings?api_key=${key}&address=${address}'`,
      `    curl -s -D - '${base}/v2/transactions?api_key=${key}&chain=ethereum&per_page=5'`,
      `    curl -s -X POST -H 'Content-Type: application/json' -d '["${address}"]' '${base}/v2/tags/demo_whales?api_key=${key}'`,
      '',
      `(then add &tag=demo_whales to either list). API docs: ${base}/docs. Serving until Ctrl-C.`,
      '',
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(
    `chaintags demo could not start: ${error instanceof ConfigError || error instanceof Error ? error.message : String(error)}\n`,
  );
  // Not process.exit(): the message may still be on its way through a pipe.
  process.exitCode = 1;
});
