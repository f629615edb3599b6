/** What the phases of `npm run bench` share: the run's settings, its dataset, its compiled service and keys. */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatasetMeta } from '../dataset/meta';
import { BENCH_ACCOUNTS, DatasetOptions } from '../dataset/options';
import type { Cleanups } from '../lib/lifecycle';
import { buildService, ROOT, runProcess, Server, startService } from '../lib/processes';
import type { EndpointId } from '../lib/report';

export const RESULTS_DIR = join(ROOT, 'bench', 'results');

/** The run's command line (bench/run.ts declares it). */
export interface Settings {
  dataset: DatasetOptions;
  dataDir: string | undefined;
  seconds: number;
  warmup: number;
  connections: number;
  endpoints: EndpointId[];
  sqlite: boolean;
  /** Whether to load the rows with COPY too, the import's yardstick (`--skip-copy` leaves it out). */
  copy: boolean;
  cpuProfile: boolean;
  /** Whether to measure reads while a writer commits (`--skip-writing` leaves it out). */
  writing: boolean;
  /** `--tags-again`: after the tag load, every tag loaded again under another name (PostgreSQL). */
  tagsAgain: boolean;
  /** PostgreSQL settings beyond the test cluster's (`--pg-setting name=value`). */
  pgSettings: [string, string][];
}

export interface Run {
  settings: Settings;
  meta: DatasetMeta;
  /** The compiled service and CLI (see buildService). */
  build: { main: string; cli: string };
  /** Each account's API key. */
  keys: Record<string, string>;
  /** API_KEYS for the service: every account with its key. */
  apiKeys: string;
  /** What the measured requests carry: the first account's key. */
  headers: Record<string, string>;
  /** Where the service writes its CPU profile (`--cpu-prof`). */
  profileDir: string | undefined;
  /** Everything the run started, so that an error or Ctrl-C still stops it. */
  cleanups: Cleanups;
  log: (line: string) => void;
}

/** Compiles the service and makes up the accounts' keys, for the phases to come. */
export async function prepareRun(
  settings: Settings,
  meta: DatasetMeta,
  cleanups: Cleanups,
  log: (line: string) => void,
): Promise<Run> {
  log('compiling chaintags as its Docker image does (nest build)');
  const build = await buildService();
  const keys = Object.fromEntries(
    BENCH_ACCOUNTS.map((account) => [account, `ctk_${randomBytes(24).toString('base64url')}`]),
  ) as Record<(typeof BENCH_ACCOUNTS)[number], string>;
  const apiKeys = BENCH_ACCOUNTS.map((account) => `${account}:${keys[account]}`).join(',');
  const profileDir = settings.cpuProfile ? join(tmpdir(), 'chaintags-bench', 'profiles', `${Date.now()}`) : undefined;
  if (profileDir !== undefined) mkdirSync(profileDir, { recursive: true });
  const headers = { 'x-api-key': keys[BENCH_ACCOUNTS[0]] };
  return { settings, meta, build, keys, apiKeys, headers, profileDir, cleanups, log };
}

/** The compiled CLI (`npm run cli:prod`), on the given database. */
export function runCli(
  run: Run,
  databaseUrl: string,
  args: string[],
  timeoutMs: number,
): Promise<{ stdout: string; stderr: string }> {
  return runProcess(process.execPath, [run.build.cli, ...args], { DATABASE_URL: databaseUrl }, timeoutMs, run.cleanups);
}

/** The compiled service on a database, its log in bench/results/service-<database>.log. */
export async function startServiceOn(
  run: Run,
  databaseUrl: string,
  database: 'postgres' | 'sqlite',
  cpuProfileDir?: string,
): Promise<Server> {
  const server = await startService(run.build.main, {
    databaseUrl,
    apiKeys: run.apiKeys,
    logFile: join(RESULTS_DIR, `service-${database}.log`),
    cpuProfileDir,
  });
  return run.cleanups.track(server);
}
