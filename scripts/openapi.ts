import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { createApp } from '../src/app.factory';
import { parseConfig } from '../src/config/config';
import { buildOpenApiDocument } from '../src/openapi';

const ROOT = join(__dirname, '..');
export const OPENAPI_PATH = join(ROOT, 'openapi.json');

/** Enough configuration to start the app and describe it: an empty in-memory database, no logs. */
const DOCS_ENV = { DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent', API_KEYS: `docs:ctk_${'0'.repeat(32)}` };

/** The OpenAPI document as the code describes it, serialised the way openapi.json is committed. */
export async function renderOpenApi(): Promise<string> {
  // Only the document is read: the process's metrics would outlive the app (createApp's option).
  const app = await createApp(parseConfig(DOCS_ENV), { processMetrics: false });
  try {
    return serialise(buildOpenApiDocument(app));
  } finally {
    await app.close();
  }
}

/**
 * The document the production build serves: `nest build` with this repository's nest-cli.json,
 * into a temporary folder, then the compiled app, started by plain node, answers /docs-json. The
 * tests and `npm run openapi` run the sources through swc instead, so this is what catches a
 * difference between the two compilations (a compiler plugin, emitted decorator metadata).
 */
export async function renderBuiltOpenApi(): Promise<string> {
  const folder = mkdtempSync(join(tmpdir(), 'chaintags-build-'));
  try {
    const tsconfig = join(folder, 'tsconfig.json');
    writeFileSync(
      tsconfig,
      JSON.stringify({
        extends: join(ROOT, 'tsconfig.build.json'),
        compilerOptions: { outDir: join(folder, 'dist'), typeRoots: [join(ROOT, 'node_modules', '@types')] },
      }),
    );
    const nest = require.resolve('@nestjs/cli/bin/nest.js', { paths: [ROOT] });
    // The Nest CLI resolves -p against the working directory.
    await run('nest build', [nest, 'build', '-p', relative(ROOT, tsconfig)]);
    return await run('serving the built document', [
      '-e',
      SERVE_DOCUMENT,
      join(folder, 'dist'),
      JSON.stringify(DOCS_ENV),
    ]);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Runs in a plain node process on the compiled code: argv[1] is the build, argv[2] the environment. */
const SERVE_DOCUMENT = `
const [build, env] = process.argv.slice(1);
const { createApp } = require(build + '/src/app.factory');
const { parseConfig } = require(build + '/src/config/config');
(async () => {
  const app = await createApp(parseConfig(JSON.parse(env)));
  await app.listen(0, '127.0.0.1');
  try {
    const response = await fetch((await app.getUrl()) + '/docs-json');
    process.stdout.write(JSON.stringify(await response.json(), null, 2) + '\\n');
  } finally {
    await app.close();
  }
})().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
`;

async function run(what: string, args: string[]): Promise<string> {
  const nodeModules = join(ROOT, 'node_modules');
  const env = { ...process.env, NODE_PATH: [nodeModules, process.env.NODE_PATH].filter(Boolean).join(delimiter) };
  try {
    const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: ROOT, env, maxBuffer: 64 << 20 });
    return stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${what} failed:\n${stdout ?? ''}${stderr ?? ''}`, { cause: error });
  }
}

function serialise(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

if (require.main === module) {
  void renderOpenApi().then((text) => {
    writeFileSync(OPENAPI_PATH, text);
    process.stderr.write(`wrote ${OPENAPI_PATH}\n`);
  });
}
