/**
 * The command lines of the bench scripts, declared with commander (as src/cli is): each option
 * once, with its default and its help text, and the options several scripts share declared here.
 */
import { Command, CommanderError, InvalidArgumentError, Option, OptionValues } from 'commander';
import { parseSetting } from './pg-settings';
import { ENDPOINT_IDS, EndpointId } from './report';

/** A whole number of at least `min`, as an option's argParser; commander names the option in its message. */
export function wholeNumber(min: number): (text: string) => number {
  return (text) => {
    if (!/^\d+$/.test(text) || Number(text) < min) {
      throw new InvalidArgumentError(`it must be a whole number of at least ${min}.`);
    }
    return Number(text);
  };
}

/** The options of the load that drives the service's endpoints (autocannon), in seconds and connections. */
export interface LoadSettings {
  duration: number;
  warmup: number;
  connections: number;
}

/** `--duration`, `--warmup` and `--connections`, as bench/run.ts and bench/follow.ts take them. */
export function addLoadOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--duration <seconds>', 'length of each measured window').default(10).argParser(wholeNumber(1)),
    )
    .addOption(
      new Option('--warmup <seconds>', 'warm-up before each measured window').default(3).argParser(wholeNumber(1)),
    )
    .addOption(
      new Option('--connections <n>', 'concurrent connections of the load').default(10).argParser(wholeNumber(1)),
    );
}

/** `--cpu-prof`: the service writes a V8 CPU profile, under $TMPDIR/chaintags-bench/profiles/. */
export function cpuProfileOption(): Option {
  return new Option('--cpu-prof', 'write a V8 CPU profile of the service under $TMPDIR/chaintags-bench/profiles/');
}

/** `--pg-setting name=value`, repeatable: PostgreSQL settings beyond the test cluster's, as [name, value] pairs. */
export function pgSettingOption(): Option {
  return new Option(
    '--pg-setting <name=value>',
    "a PostgreSQL setting beyond the test cluster's (ALTER SYSTEM and a restart); repeatable",
  )
    .default([], 'none')
    .argParser((text: string, previous: [string, string][]) => {
      try {
        return [...previous, parseSetting(text)];
      } catch (error) {
        throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
      }
    });
}

/**
 * Parses a bench script's command line (without node and the script). `check` may refuse a
 * combination of options by returning why. On `--help`, or an option refused, commander has printed
 * the help or the message by the time this returns undefined, and the exit code is set (0 after
 * the help, 1 after an error); the script then ends without starting anything.
 */
export function parseCommandLine<T extends OptionValues>(
  command: Command,
  argv: readonly string[],
  check?: (options: T) => string | undefined,
): T | undefined {
  command.exitOverride();
  try {
    command.parse([...argv], { from: 'user' });
    const options = command.opts<T>();
    const refused = check?.(options);
    if (refused !== undefined) command.error(`error: ${refused}`);
    return options;
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    process.exitCode = error.exitCode;
    return undefined;
  }
}

/** `--endpoints <list>`: endpoint ids, comma-separated, as an option's argParser. */
export function endpointList(text: string): EndpointId[] {
  const chosen = text.split(',');
  const unknown = chosen.filter((id) => !(ENDPOINT_IDS as readonly string[]).includes(id));
  if (unknown.length > 0)
    throw new InvalidArgumentError(`unknown: ${unknown.join(', ')}; the endpoints are ${ENDPOINT_IDS.join(', ')}.`);
  return chosen as EndpointId[];
}
