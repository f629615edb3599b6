import type { DynamicModule, INestApplicationContext, Type } from '@nestjs/common';
import type { Command } from 'commander';

/**
 * The contract between the command line and the modules that declare commands. It is the one file
 * of cli/ that modules may import (see .dependency-cruiser.cjs), so it imports nothing of ours.
 *
 * A module's `commands/<name>.command.ts` exports one `ModuleCommands`; src/cli/commands.ts lists
 * them. Commands write results to stdout and messages to stderr themselves, and fail by throwing:
 * the command line prints `error: <message>` and sets the exit code to 1.
 */
export interface ModuleCommands {
  /** The Nest modules the commands use; the command line adds the configuration and the database. */
  readonly modules: readonly (Type | DynamicModule)[];
  /** Adds the commands to the program; an action runs its work through `inContext`. */
  register(program: Command, inContext: InContext): void;
}

/**
 * Runs `work` in a Nest application context that holds the declared modules, after pending
 * migrations and reference data were applied, and closes the context (and the database) after.
 */
export type InContext = <T>(work: (context: INestApplicationContext) => Promise<T>) => Promise<T>;

/** A failure the user can act on; its message is all they need, like any other error's. */
export class CliFailure extends Error {}
