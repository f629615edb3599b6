/**
 * `npm run bench`: chaintags' speed and scale, measured on this machine.
 *
 * 1. Generates (or reuses) the dataset (phases/dataset.ts; the generator is bench/dataset/).
 * 2. PostgreSQL: starts a throwaway cluster with the test suite's own setup
 *    (test/support/pg-cluster.ts; phases/postgres.ts), imports the NDJSON with `chaintags import`,
 *    and loads the same rows into a second database with COPY, the import's yardstick
 *    (phases/import.ts). Tags, which NDJSON cannot carry, are loaded through the service's own API
 *    (POST /v2/tags/:tag, 1000 addresses a request) with three accounts' keys from API_KEYS
 *    (phases/tags.ts).
 * 3. Starts the service (compiled by `nest build` and run as its Docker image runs it) and the
 *    floor (bench/floor.ts) on that database, checks that they give the same answers, then drives
 *    each hot endpoint with autocannon: both warmed up, then the service and the floor measured
 *    back to back with the same connections, duration and keys drawn from the dataset
 *    (phases/endpoints.ts).
 *    Then "reads while writing": the stats and holdings endpoints idle, and again while a writer
 *    process (bench/lib/writer.ts) commits 50 transfers between tagged addresses every 100 ms
 *    (phases/writing.ts).
 * 4. SQLite: the same import, tag load, endpoints and reads while writing (no floor there;
 *    phases/sqlite.ts).
 * 5. Prints a table and writes bench/results/latest.json and bench/results/tx-<transactions>.json;
 *    when a run at another transaction count is on file, compares p99 with it (phases/results.ts).
 *
 *   npm run bench [-- --transactions 10000000] [--duration 10] [--warmup 3] [--connections 10]
 *                 [--endpoints address,tag] [--skip-sqlite] [--skip-copy] [--skip-writing] [--cpu-prof] [--addresses N]
 *                 [--holdings N] [--tags N] [--seed S] [--data-dir <folder>]
 *                 [--pg-setting name=value …] (PostgreSQL settings beyond the test cluster's)
 *
 * Nothing here runs in `npm test`: this is an on-demand measurement, and it takes minutes.
 */
import { mkdirSync } from 'node:fs';
import { Command, Option } from 'commander';
import { addDatasetOptions, datasetOptionsOf, DatasetOptions } from './dataset/options';
import { benchLog, Cleanups, runBench } from './lib/lifecycle';
import {
  addLoadOptions,
  cpuProfileOption,
  endpointList,
  LoadSettings,
  parseCommandLine,
  pgSettingOption,
} from './lib/options';
import { ENDPOINT_IDS, EndpointId } from './lib/report';
import { prepareRun, RESULTS_DIR, Settings } from './phases/context';
import { datasetPhase } from './phases/dataset';
import { postgresPhase, startPostgres } from './phases/postgres';
import { startClock, writeResults } from './phases/results';
import { sqlitePhase } from './phases/sqlite';

/** Everything the run started, so that an error or Ctrl-C still stops it. */
const cleanups = new Cleanups();
const log = benchLog('bench');

/** The phases in order, each in its own file of bench/phases/. */
async function main(): Promise<void> {
  const settings = readSettings(process.argv.slice(2));
  if (settings === undefined) return;
  const clock = startClock();
  mkdirSync(RESULTS_DIR, { recursive: true });
  const meta = datasetPhase(settings, log);
  const run = await prepareRun(settings, meta, cleanups, log);
  const { cluster, machine, postgresSettings } = await startPostgres(run);
  const postgres = await postgresPhase(run, cluster);
  const sqlite = settings.sqlite ? await sqlitePhase(run) : undefined;
  await cleanups.run(log);
  writeResults(run, clock, { machine, postgresSettings, postgres, sqlite });
}

/** The run's settings from its command line; undefined after `--help` or a refused option. */
function readSettings(argv: readonly string[]): Settings | undefined {
  const command = new Command('npm run bench --').description(
    "chaintags' speed and scale on this machine: import, endpoints against the floor, reads while writing, " +
      'on PostgreSQL and SQLite (bench/README.md).',
  );
  addDatasetOptions(command)
    .option('--data-dir <folder>', "the dataset's folder (default: $TMPDIR/chaintags-bench/<a name from the options>)")
    .addOption(
      new Option('--endpoints <list>', `the endpoints to measure, comma-separated (${ENDPOINT_IDS.join(', ')})`)
        .default([...ENDPOINT_IDS], ENDPOINT_IDS.join(','))
        .argParser(endpointList),
    );
  addLoadOptions(command)
    .option('--skip-sqlite', 'PostgreSQL only')
    .option('--skip-copy', 'leave out the COPY yardstick of the import')
    .option('--skip-writing', 'leave out reads while writing')
    .option('--tags-again', 'load every tag a second time, as <tag>_again: the tag load over addresses already tracked')
    .addOption(cpuProfileOption())
    .addOption(pgSettingOption());
  const options = parseCommandLine<
    DatasetOptions &
      LoadSettings & {
        dataDir?: string;
        endpoints: EndpointId[];
        skipSqlite?: boolean;
        skipCopy?: boolean;
        skipWriting?: boolean;
        tagsAgain?: boolean;
        cpuProf?: boolean;
        pgSetting: [string, string][];
      }
  >(command, argv);
  if (options === undefined) return undefined;
  return {
    dataset: datasetOptionsOf(options),
    dataDir: options.dataDir,
    seconds: options.duration,
    warmup: options.warmup,
    connections: options.connections,
    endpoints: options.endpoints,
    sqlite: options.skipSqlite !== true,
    copy: options.skipCopy !== true,
    cpuProfile: options.cpuProf === true,
    writing: options.skipWriting !== true,
    tagsAgain: options.tagsAgain === true,
    pgSettings: options.pgSetting,
  };
}

runBench(main, cleanups, log);
