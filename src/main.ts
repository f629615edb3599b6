import { Logger } from '@nestjs/common';
import { version } from '../package.json';
import { createApp } from './app.factory';
import { tuneServerHeap } from './app.heap';
import { stopOnSignals } from './app.shutdown';
import { ConfigError, parseConfig } from './config/config';
import { HttpDrain } from './http/shutdown/http-drain';

/** How long requests already received get to be answered after SIGTERM (docs/operations.md, "Running in production"). */
const DRAIN_TIMEOUT_MS = 10_000;

async function main(): Promise<void> {
  tuneServerHeap();
  const config = parseConfig(process.env);
  const app = await createApp(config);
  const drain = new HttpDrain(app.getHttpServer());
  try {
    await app.listen(config.port);
  } catch (error) {
    // A port in use, say: close the database too, so that nothing keeps the process alive.
    await app.close().catch(() => undefined);
    throw error;
  }
  process.stdout.write(
    `chaintags listening on http://localhost:${config.port} (API docs at /docs; version ${version})\n`,
  );
  // HTTP first: the requests in flight still need the database. Then the application: followers and
  // pollers finish the commit in progress (beforeApplicationShutdown), then the pools close.
  stopOnSignals(async () => {
    const { cut } = await drain.drain(DRAIN_TIMEOUT_MS);
    if (cut > 0) new Logger('Shutdown').warn(`${cut} connections were still busy after ${DRAIN_TIMEOUT_MS} ms: closed`);
    await app.close();
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`chaintags could not start: ${error instanceof ConfigError ? error.message : String(error)}\n`);
  // Not process.exit(): the message may still be on its way through a pipe.
  process.exitCode = 1;
});
