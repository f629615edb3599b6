import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApp } from '../src/app.factory';
import { parseConfig } from '../src/config/config';
import { buildOpenApiDocument } from '../src/openapi';

/** The OpenAPI document as the code describes it, serialised the way openapi.json is committed. */
export async function renderOpenApi(): Promise<string> {
  const app = await createApp(
    parseConfig({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent', API_KEYS: `docs:ctk_${'0'.repeat(32)}` }),
  );
  try {
    return `${JSON.stringify(buildOpenApiDocument(app), null, 2)}\n`;
  } finally {
    await app.close();
  }
}

export const OPENAPI_PATH = join(__dirname, '..', 'openapi.json');

if (require.main === module) {
  void renderOpenApi().then((text) => {
    writeFileSync(OPENAPI_PATH, text);
    process.stderr.write(`wrote ${OPENAPI_PATH}\n`);
  });
}
