import { createApp } from './app.factory';
import { ConfigError, parseConfig } from './config/config';

async function main(): Promise<void> {
  const config = parseConfig(process.env);
  const app = await createApp(config);
  try {
    await app.listen(config.port);
  } catch (error) {
    // A port in use, say: close the database too, so that nothing keeps the process alive. The
    // start-up error is the one worth reporting, not a second one from closing.
    await app.close().catch(() => undefined);
    throw error;
  }
  process.stdout.write(`chaintags listening on http://localhost:${config.port} (API docs at /docs)\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`chaintags could not start: ${error instanceof ConfigError ? error.message : String(error)}\n`);
  // Not process.exit(): the message may still be on its way through a pipe.
  process.exitCode = 1;
});
