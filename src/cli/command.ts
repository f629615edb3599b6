import type { DynamicModule, INestApplicationContext, Type } from '@nestjs/common';
import type { Command } from 'commander';

/**
 * The contract between the command line and the modules that declare commands. It is the one file
 * of cli/ that modules may import (see .dependency-cruiser.cjs), so it imports nothing of ours.
 *
 * A module's `commands/<name>.command.ts` exports one `ModuleCommands`; src/cli/commands.ts lists
 * them. Commands write results to stdout and messages to stderr themselves, and fail by throwing:
 * the command line prints `error: <message>` and sets the exit code to 1.
 *
 * Reading the command line loads no module's code: a command file imports its Nest modules and
 * services only as types, and each action passes `inContext` a `load` function that requires them
 * when the command runs. `--help`, a refused command line and each command then load only what
 * they use (the other commands' code, TypeORM and viem among it, was half of a command's start).
 */
export interface ModuleCommands {
  /** Adds the commands to the program; an action runs its work through `inContext`. */
  register(program: Command, inContext: InContext): void;
}

/** What a command's `load` returns: at least the Nest modules its application context holds. */
export interface CommandRuntime {
  /** The Nest modules the command uses; the command line adds the configuration and the database. */
  readonly modules: readonly (Type | DynamicModule)[];
}

/**
 * Calls `load` (which requires the command's modules and whatever else `work` uses), runs `work`
 * in a Nest application context that holds those modules, after pending migrations and reference
 * data were applied, with what `load` returned, and closes the context (and the database) after.
 */
export type InContext = <Runtime extends CommandRuntime, T>(
  load: () => Runtime,
  work: (context: INestApplicationContext, runtime: Runtime) => Promise<T>,
) => Promise<T>;

/** A failure the user can act on; its message is all they need, like any other error's. */
export class CliFailure extends Error {}
