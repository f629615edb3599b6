import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** A Debian package the e2e suites start a program from, and where that program is found. */
export interface SystemPackage {
  /** The Debian package name, as `apt-get install` takes it. */
  name: string;
  /** The program the suites run, where the package installs it. */
  binary: string;
  /** An environment variable that points the suites at another binary; when set, the package is not needed. */
  override?: string;
}

/**
 * The packages the e2e suites need beside what the machine ships (PostgreSQL 15) and what npm
 * installs (anvil): redis-server for the rate-limit suite, litecoind (regtest) for the Bitcoin family.
 */
export const SYSTEM_PACKAGES: readonly SystemPackage[] = [
  { name: 'redis-server', binary: '/usr/bin/redis-server', override: 'REDIS_SERVER' },
  { name: 'litecoind', binary: '/usr/bin/litecoind', override: 'LITECOIND' },
];

export interface InstallOptions {
  env?: NodeJS.ProcessEnv;
  /** Whether this process may install packages; by default, whether it runs as root. */
  root?: boolean;
  /** Where installing writes what it does; by default stderr, as jest shows it before the suites. */
  log?: (text: string) => void;
}

/** The packages whose program is missing, leaving out those whose override is set. */
export function missingPackages(
  packages: readonly SystemPackage[],
  env: NodeJS.ProcessEnv = process.env,
): SystemPackage[] {
  return packages.filter((pkg) => !(pkg.override !== undefined && env[pkg.override]) && !existsSync(pkg.binary));
}

/**
 * Installs the missing packages with apt-get (one `update`, one `install`) when this process runs
 * as root and apt-get is on the PATH; otherwise fails with one message that says what to install.
 */
export function ensureSystemPackages(packages: readonly SystemPackage[], options: InstallOptions = {}): void {
  const env = options.env ?? process.env;
  const log = options.log ?? ((text: string) => void process.stderr.write(text));
  const missing = missingPackages(packages, env);
  if (missing.length === 0) return;
  const names = missing.map((pkg) => pkg.name);
  const aptGet = findOnPath('apt-get', env.PATH ?? '');
  const root = options.root ?? process.getuid?.() === 0;
  if (!root || aptGet === undefined) {
    throw new Error(cannotInstall(missing, root ? 'apt-get is not on the PATH' : 'the tests do not run as root'));
  }
  log(
    `\nchaintags tests: installing ${names.join(', ')} with apt-get (missing: ${missing.map((p) => p.binary).join(', ')})\n`,
  );
  const aptEnv = { ...env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    run(aptGet, ['update'], aptEnv);
    run(aptGet, ['install', '-y', '--no-install-recommends', ...names], aptEnv);
  } catch (error) {
    throw new Error(cannotInstall(missing, `apt-get failed:\n${(error as Error).message.trim()}`), { cause: error });
  }
  const still = missingPackages(missing, env);
  if (still.length > 0) {
    throw new Error(cannotInstall(still, 'apt-get installed the packages, but these programs are still missing'));
  }
  log(`chaintags tests: installed ${names.join(', ')}\n`);
}

function cannotInstall(missing: readonly SystemPackage[], why: string): string {
  const names = missing.map((pkg) => pkg.name).join(' ');
  const lines = missing.map(
    (pkg) =>
      `  ${pkg.binary} (Debian package ${pkg.name}${pkg.override === undefined ? '' : `, or set ${pkg.override} to the binary`})`,
  );
  return [
    `The e2e tests need programs that are not installed, and cannot install them (${why}):`,
    ...lines,
    `Install them, then run the tests again:`,
    `  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${names}`,
  ].join('\n');
}

function run(file: string, args: string[], env: NodeJS.ProcessEnv): void {
  // apt's progress goes to stderr, where jest shows it while the setup runs; stdin stays closed.
  execFileSync(file, args, { env, stdio: ['ignore', process.stderr, 'pipe'] });
}

function findOnPath(command: string, path: string): string | undefined {
  for (const folder of path.split(delimiter).filter(Boolean)) {
    const candidate = join(folder, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}
