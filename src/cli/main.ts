import { Command, CommanderError } from 'commander';
import { version } from '../../package.json';
import { parseConfig } from '../config/config';
import type { InContext, ModuleCommands } from './command';
import { COMMANDS } from './commands';

/**
 * The chaintags command line: the commands the modules declare (./commands.ts), each run in a Nest
 * application context that holds only the modules it needs. Machine-readable results go to stdout,
 * messages to stderr. Opening the context applies pending migrations and reference data first, so
 * every command works on a fresh database. Nest, the database and a command's modules are required
 * when a command runs (src/cli/command.ts), so `--help` and a refused command line load none of them.
 */
export function buildProgram(commands: readonly ModuleCommands[] = COMMANDS): Command {
  const program = new Command('chaintags')
    .description(
      'Manage chaintags: API keys, data imports, tags, the kept stats and chain followers. ' +
        'Uses DATABASE_URL like the server.',
    )
    .version(version, '-V, --version', 'print the version of chaintags')
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });
  for (const declared of commands) declared.register(program, inContext);
  return program;
}

const inContext: InContext = async (load, work) => {
  const config = parseConfig(process.env);
  const runtime = load();
  /* eslint-disable @typescript-eslint/no-require-imports -- required when a command runs, see above */
  const { NestFactory } = require('@nestjs/core') as typeof import('@nestjs/core');
  const { CliModule } = require('./cli.module') as typeof import('./cli.module');
  /* eslint-enable @typescript-eslint/no-require-imports */
  // abortOnError: Nest would otherwise end the process itself when a module fails to start.
  const context = await NestFactory.createApplicationContext(CliModule.forRoot(config, runtime.modules), {
    logger: ['error', 'fatal'],
    abortOnError: false,
  });
  try {
    return await work(context, runtime);
  } finally {
    await context.close();
  }
};

/** Runs one command line and resolves to its exit code; messages for the user are on stderr by then. */
export async function run(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return 0;
  } catch (error) {
    // Commander has printed its own message (or the help) already.
    if (error instanceof CommanderError) return error.exitCode;
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

/**
 * A reader that goes away early (`keys list | head -1`) makes further writes fail with EPIPE; like
 * other command line tools, the command then finishes without printing a stack trace.
 */
function toleratePipeClosedByReader(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

/** How long a finished command's process may be held by what it could not cancel before it ends. */
const LINGER_MS = 1_000;

/**
 * Sets the exit code of a finished command, and lets the process end by itself: with the context
 * closed nothing of chaintags keeps it alive, so it ends as soon as stdout and stderr drain. What
 * a command could not cancel (a request to a node that never answers, which `follow --check` gives
 * up on after 30 s but its client only later) would hold it on; an unref'd timer, which never holds
 * the process itself, then ends it `LINGER_MS` later. `process.exit()` drops output still queued
 * for a slow pipe, so it is called only once everything written, a late line included, has been
 * handed to the system.
 */
export function finish(code: number): void {
  process.exitCode = code;
  setTimeout(() => void exitOnceDrained(code), LINGER_MS).unref();
}

async function exitOnceDrained(code: number): Promise<void> {
  await Promise.all([drained(process.stdout), drained(process.stderr)]);
  process.exit(code);
}

/** Resolves once everything written to `stream` has been handed to the system, or it failed. */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.writableLength === 0 || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done).off('close', done).off('error', done);
      resolve();
    };
    stream.on('drain', done).on('close', done).on('error', done);
  });
}

if (require.main === module) {
  toleratePipeClosedByReader(process.stdout);
  toleratePipeClosedByReader(process.stderr);
  void run(process.argv).then(finish);
}
