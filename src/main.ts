import { createApp } from './app.factory';
import { ConfigError, parseConfig } from './config/config';

async function main(): Promise<void> {
  const config = parseConfig(process.env);
  const app = await createApp(config);
  await app.listen(config.port);
  process.stdout.write(`chaintags listening on http://localhost:${config.port} (API docs at /docs)\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`chaintags could not start: ${error instanceof ConfigError ? error.message : String(error)}\n`);
  process.exit(1);
});
