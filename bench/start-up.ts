/**
 * How long chaintags takes to start: each command of the command line from spawn to exit, and the
 * server from spawn to its first answer of `GET /health`, on a SQLite database that already has
 * its migrations (what an operator's second command meets). What it measures is mostly loading
 * code: which modules a process requires before it does its work.
 *
 *   npm run bench:start-up -- [--runs 9] [--build <dir>]...   (--help lists them)
 *
 * Without `--build` it compiles this tree as the Docker image does (bench/lib/processes.ts). Each
 * `--build` is a compiled tree's folder (the one holding `src/main.js`, such as another worktree's
 * `dist`); with several, the runs alternate between them, so a before and an after meet the same
 * host. Prints one table per build (median, fastest and slowest of the runs, in ms) and writes
 * `bench/results/start-up-latest.json`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Command, Option } from 'commander';
import { freePort } from '../test/support/pg-cluster';
import { benchLog, Cleanups, runBench } from './lib/lifecycle';
import { parseCommandLine, wholeNumber } from './lib/options';
import { buildService, hostFacts, ROOT, runProcess, sleep } from './lib/processes';

const log = benchLog('start-up');
const cleanups = new Cleanups();

/** What is timed: command lines of the CLI, and the server (`serve`). */
const CASES = [
  ['--help'],
  ['keys', 'list'],
  ['stats', 'verify'],
  ['import', '<empty file>'],
  ['tags', 'export', '--account', 'bench'],
  ['serve'],
] as const;

const STEP_TIMEOUT_MS = 60_000;

interface Options {
  runs: number;
  build?: string[];
}

interface Build {
  name: string;
  main: string;
  cli: string;
}

function readOptions(argv: readonly string[]): Options | undefined {
  const command = new Command('npm run bench:start-up --')
    .description('Times the start of each CLI command and of the server; prints the median of the runs.')
    .addOption(new Option('--runs <n>', 'runs of each case per build').argParser(wholeNumber(1)).default(9))
    .addOption(
      new Option(
        '--build <dir>',
        'a compiled tree (the folder holding src/main.js, such as dist); repeat to compare builds',
      ).argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]),
    );
  return parseCommandLine<Options>(command, argv);
}

/** Resolves with the milliseconds from spawn to a successful exit. */
async function timeCommand(cli: string, args: string[], env: Record<string, string>): Promise<number> {
  const started = performance.now();
  await runProcess(process.execPath, [cli, ...args], env, STEP_TIMEOUT_MS, cleanups);
  return performance.now() - started;
}

/** Resolves with the milliseconds from spawn to the server's first answer of GET /health. */
async function timeServer(main: string, env: Record<string, string>): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [main], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const stop = (): void => {
    child.kill('SIGKILL');
  };
  cleanups.push(stop);
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode} before answering`);
      if (performance.now() - started > STEP_TIMEOUT_MS) throw new Error('the server did not answer within 60 s');
      const answered = await fetch(`http://127.0.0.1:${port}/health`).then(
        (response) => response.ok,
        () => false,
      );
      if (answered) return performance.now() - started;
      await sleep(5);
    }
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
    cleanups.remove(stop);
  }
}

function summary(samples: readonly number[]): { median: number; min: number; max: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    median: Math.round(sorted[Math.floor(sorted.length / 2)]!),
    min: Math.round(sorted[0]!),
    max: Math.round(sorted[sorted.length - 1]!),
  };
}

async function main(): Promise<void> {
  const options = readOptions(process.argv.slice(2));
  if (options === undefined) return;
  const builds: Build[] =
    options.build === undefined
      ? [{ name: 'this tree', ...(await buildService()) }]
      : options.build.map((dir) => ({
          name: dir,
          main: resolve(dir, 'src', 'main.js'),
          cli: resolve(dir, 'src', 'cli', 'main.js'),
        }));

  const folder = mkdtempSync(join(tmpdir(), 'chaintags-start-up-'));
  cleanups.push(() => rmSync(folder, { recursive: true, force: true }));
  const empty = join(folder, 'empty.ndjson');
  writeFileSync(empty, '');
  const env = {
    DATABASE_URL: `sqlite:${join(folder, 'chaintags.sqlite')}`,
    API_KEYS: '',
    LOG_LEVEL: 'error',
    NODE_ENV: 'production',
  };
  // Migrations and reference data once, and the account `tags export` names.
  await timeCommand(builds[0]!.cli, ['keys', 'create', 'bench'], env);

  const samples = builds.map(() => CASES.map((): number[] => []));
  for (let run = 0; run < options.runs; run++) {
    for (const [b, build] of builds.entries()) {
      for (const [c, args] of CASES.entries()) {
        const ms =
          args[0] === 'serve'
            ? await timeServer(build.main, env)
            : await timeCommand(
                build.cli,
                args.map((arg) => (arg === '<empty file>' ? empty : arg)),
                env,
              );
        samples[b]![c]!.push(ms);
      }
    }
    log(`run ${run + 1} of ${options.runs}`);
  }

  const results = builds.map((build, b) => ({
    build: build.name,
    cases: CASES.map((args, c) => ({ case: args.join(' '), ms: summary(samples[b]![c]!) })),
  }));
  for (const result of results) {
    process.stdout.write(`\n${result.build} (${options.runs} runs; ms from spawn)\n`);
    process.stdout.write(`${'case'.padEnd(34)}${'median'.padStart(8)}${'min'.padStart(8)}${'max'.padStart(8)}\n`);
    for (const { case: name, ms } of result.cases) {
      const label = name === 'serve' ? 'server, to GET /health' : `cli ${name}`;
      process.stdout.write(
        `${label.padEnd(34)}${String(ms.median).padStart(8)}${String(ms.min).padStart(8)}${String(ms.max).padStart(8)}\n`,
      );
    }
  }
  const file = join(ROOT, 'bench', 'results', 'start-up-latest.json');
  writeFileSync(file, `${JSON.stringify({ at: new Date().toISOString(), host: hostFacts(), results }, null, 2)}\n`);
  log(`wrote ${file}`);
  await cleanups.run(log);
}

runBench(main, cleanups, log);
