import { DynamicModule, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Command, CommanderError } from 'commander';
import { parseConfig } from '../config/config';
import { CliModule } from './cli.module';
import { InContext, ModuleCommands } from './command';
import { COMMANDS } from './commands';

/**
 * The chaintags command line: the commands the modules declare (./commands.ts), each run in a Nest
 * application context that holds only the modules it needs. Machine-readable results go to stdout,
 * messages to stderr. Opening the context applies pending migrations and reference data first, so
 * every command works on a fresh database.
 */
export function buildProgram(commands: readonly ModuleCommands[] = COMMANDS): Command {
  const program = new Command('chaintags')
    .description('Manage chaintags API keys and import data. Uses DATABASE_URL like the server.')
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });
  for (const declared of commands) declared.register(program, inContextOf(declared.modules));
  return program;
}

function inContextOf(modules: readonly (Type | DynamicModule)[]): InContext {
  return async (work) => {
    const config = parseConfig(process.env);
    const context = await NestFactory.createApplicationContext(CliModule.forRoot(config, modules), {
      logger: ['error', 'fatal'],
    });
    try {
      return await work(context);
    } finally {
      await context.close();
    }
  };
}

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

if (require.main === module) {
  void run(process.argv).then((code) => process.exit(code));
}
