import { keysCommands } from '../modules/accounts/commands/keys.command';
import { followCommands } from '../modules/follow/commands/follow.command';
import { importCommands } from '../modules/ingest/commands/import.command';
import { pricesCommands } from '../modules/prices/commands/prices.command';
import { statsCommands } from '../modules/stats/commands/stats.command';
import { tagsCommands } from '../modules/tags/commands/tags.command';
import type { ModuleCommands } from './command';

/** Every module's commands, in the order `chaintags --help` lists them. */
export const COMMANDS: readonly ModuleCommands[] = [
  keysCommands,
  importCommands,
  tagsCommands,
  statsCommands,
  followCommands,
  pricesCommands,
];
