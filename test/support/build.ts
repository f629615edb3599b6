import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { transformFile, type Options } from '@swc/core';

const ROOT = join(__dirname, '..', '..');

/** Set by the e2e global setup: the folder compileProject wrote, which the spawned processes run. */
export const BUILD_ENV = 'CHAINTAGS_TEST_BUILD';

/**
 * Compiles src/ once per run with swc and this repository's .swcrc (the same compilation jest
 * applies in-process), into a temporary folder: `<build>/src/**\/*.js`, package.json beside it
 * (src/openapi.ts reads the version from it) and node_modules linked to the project's. A spawned
 * server, CLI or follower then starts as plain `node <build>/src/….js`, instead of compiling the
 * sources again in every process.
 */
export async function compileProject(): Promise<string> {
  const build = mkdtempSync(join(tmpdir(), 'chaintags-test-build-'));
  const options = JSON.parse(readFileSync(join(ROOT, '.swcrc'), 'utf8')) as Options & { $schema?: string };
  delete options.$schema;
  const sources = listSources(join(ROOT, 'src'));
  await Promise.all(
    sources.map(async (source) => {
      const { code } = await transformFile(source, { ...options, swcrc: false, sourceMaps: false, filename: source });
      const target = join(build, relative(ROOT, source)).replace(/\.ts$/, '.js');
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, code);
    }),
  );
  copyFileSync(join(ROOT, 'package.json'), join(build, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(build, 'node_modules'), 'dir');
  return build;
}

function listSources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return listSources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/**
 * The node arguments that start `entry` (a path under src/ without extension, such as
 * `src/cli/main`): the compiled file when the global setup built the project, otherwise the source
 * through @swc-node/register, as `npm run cli` and `npm start` run it.
 */
export function nodeArgs(entry: string): string[] {
  const build = process.env[BUILD_ENV];
  return build ? [join(build, `${entry}.js`)] : ['-r', '@swc-node/register', join(ROOT, `${entry}.ts`)];
}
