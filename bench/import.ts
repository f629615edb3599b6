/**
 * `npm run bench:import`: the import phase of `npm run bench` alone, on PostgreSQL. Generates (or
 * reuses) the dataset, compiles chaintags, starts a throwaway cluster, loads the rows with `COPY`
 * into a freshly migrated database (the yardstick), then `chaintags import` of the NDJSON into
 * another one, and checks the kept aggregates with `stats verify`. Prints one JSON object with both
 * throughputs, their ratio and the load average before and after each (the machine is shared).
 *
 *   npm run bench:import [-- --transactions 1000000] [--rounds 1] [--skip-copy] [--keep]
 *                        [--tag-load <runs>] [--main <file>…] [--endpoints <list>] [--cpu-prof]
 *                        [--pg-setting name=value …]
 *
 * `--tag-load` then runs `npm run bench`'s tag load alone on fresh copies of the imported database,
 * `runs` times, with each build in turn: this tree's, and every other compiled service given with
 * `--main` (a copy of node_modules/.cache/chaintags-bench/build made before the tree changed, say).
 * The alternation on one import is what separates a change from this machine's noise in the tag
 * load (bench/README.md, changes 49 and 50). Prints each run's figures and the service's and
 * PostgreSQL's CPU time over it. With `--cpu-prof` each run's service writes a V8 CPU profile
 * (under $TMPDIR/chaintags-bench/profiles/). With `--endpoints`, each run's service then measures
 * those endpoints alone on the database its tag load filled (after `VACUUM ANALYZE`, as `npm run
 * bench` does): every distinct path once (the first pass), a warm-up, then the load (`--duration`,
 * `--warmup`, `--connections`); rps, latencies, the service's CPU per answer and its RSS peak under
 * the load, build against build on the same data, where `npm run bench` compares the service with
 * the floor.
 *
 * `--keep` leaves the cluster running with the imported database (`bench`) and prints its URL, for
 * EXPLAIN work on a bench-sized database; stop it with `pg_ctl -D <dir>/data stop`. `--cluster
 * <dir>` runs `--tag-load` on such a kept cluster's `bench` again, without importing (a 10M import
 * takes about a quarter of an hour), and leaves the cluster running with the settings it had.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import { type PgCluster, startCluster, stopCluster } from '../test/support/pg-cluster';
import { addDatasetOptions, datasetOptionsOf, DatasetOptions } from './dataset/options';
import { benchLog, Cleanups, runBench } from './lib/lifecycle';
import {
  addLoadOptions,
  cpuProfileOption,
  endpointList,
  LoadSettings,
  parseCommandLine,
  pgSettingOption,
  wholeNumber,
} from './lib/options';
import { applySettings, resetSettings } from './lib/pg-settings';
import { adminQuery, createDatabase } from './lib/postgres';
import type { LoadResult } from './lib/load';
import { processTreeCpuSeconds, type Server, statsVerify } from './lib/processes';
import { ENDPOINT_IDS, ENDPOINT_LABELS, type EndpointId, type TagLoad, type Throughput } from './lib/report';
import { prepareRun, Run, startServiceOn } from './phases/context';
import { datasetPhase } from './phases/dataset';
import { copyPhase, importDataset, migrate, warmFiles } from './phases/import';
import { measureEndpoint } from './phases/endpoints';
import { loadTags } from './phases/tags';

const cleanups = new Cleanups();
const log = benchLog('bench:import');

function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').trim();
}

/** utime, stime, cutime, cstime of a process, in seconds (cutime/cstime: its children it has waited for). */
function cpuTimes(pid: number | 'self'): [number, number, number, number] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return [fields[11], fields[12], fields[13], fields[14]].map((ticks) => Number(ticks) / 100) as [
    number,
    number,
    number,
    number,
  ];
}

/**
 * CPU seconds PostgreSQL has spent so far: the postmaster, its live processes, and the backends
 * that have ended (the postmaster waits for them, so they are in its children's time).
 */
function postgresCpuSeconds(postmaster: number): number {
  const [user, system, childrenUser, childrenSystem] = cpuTimes(postmaster);
  let total = user + system + childrenUser + childrenSystem;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === postmaster) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === postmaster) total += (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      // Ended while listed.
    }
  }
  return total;
}

/** CPU seconds of this script's children that have ended (the CLI processes it ran). */
function endedChildrenCpuSeconds(): number {
  const [, , childrenUser, childrenSystem] = cpuTimes('self');
  return childrenUser + childrenSystem;
}

/** Runs `work`, answering with it the load average before and after and the CPU seconds PostgreSQL and the CLI spent. */
async function measured<T>(
  postmaster: number,
  work: () => Promise<T>,
): Promise<T & { load: [string, string]; cpu: { postgres: number; cli: number } }> {
  const load = loadAverage();
  const [postgres, cli] = [postgresCpuSeconds(postmaster), endedChildrenCpuSeconds()];
  const result = await work();
  return {
    ...result,
    load: [load, loadAverage()],
    cpu: {
      postgres: Math.round((postgresCpuSeconds(postmaster) - postgres) * 10) / 10,
      cli: Math.round((endedChildrenCpuSeconds() - cli) * 10) / 10,
    },
  };
}

async function main(): Promise<void> {
  const command = new Command('npm run bench:import --').description(
    "chaintags import against COPY of the same rows on PostgreSQL (bench/README.md, 'Import').",
  );
  addDatasetOptions(command)
    .option('--data-dir <folder>', "the dataset's folder (default: $TMPDIR/chaintags-bench/<a name from the options>)")
    .addOption(new Option('--rounds <n>', 'imports (each into a fresh database)').default(1).argParser(wholeNumber(1)))
    .option('--skip-copy', 'leave out the COPY yardstick')
    .option('--cli <file>', "an already compiled CLI (another build's src/cli/main.js) instead of compiling this tree")
    .option('--keep', 'leave the cluster running with the last imported database')
    .option('--cluster <dir>', "a cluster left by --keep: --tag-load on its database 'bench', no import")
    .addOption(
      new Option(
        '--tag-load <runs>',
        'then the tag load alone, this many times per build, on copies of the import',
      ).argParser(wholeNumber(1)),
    )
    .option(
      '--main <file...>',
      "other compiled services (a build's src/main.js) for --tag-load to alternate with this tree's",
    )
    .addOption(
      new Option(
        '--endpoints <list>',
        `after each tag load, these endpoints on its database (${ENDPOINT_IDS.join(', ')}), comma-separated`,
      ).argParser(endpointList),
    );
  addLoadOptions(command).addOption(cpuProfileOption()).addOption(pgSettingOption());
  const options = parseCommandLine<
    DatasetOptions & {
      dataDir?: string;
      rounds: number;
      skipCopy?: boolean;
      keep?: boolean;
      cluster?: string;
      cli?: string;
      tagLoad?: number;
      main?: string[];
      endpoints?: EndpointId[];
      cpuProf?: boolean;
      pgSetting: [string, string][];
    } & LoadSettings
  >(command, process.argv.slice(2));
  if (options === undefined) return;
  if (options.tagLoad !== undefined && options.cli !== undefined) {
    throw new Error('--tag-load compiles this tree for its service: leave out --cli');
  }
  if (options.endpoints !== undefined && options.tagLoad === undefined) {
    throw new Error('--endpoints measures on the databases of the tag loads: give --tag-load');
  }
  if (options.cluster !== undefined && options.tagLoad === undefined) {
    throw new Error('--cluster reuses an import for --tag-load: give --tag-load');
  }
  const settings = {
    dataset: datasetOptionsOf(options),
    dataDir: options.dataDir,
    seconds: options.duration,
    warmup: options.warmup,
    connections: options.connections,
    endpoints: options.endpoints ?? [],
    sqlite: false,
    copy: options.skipCopy !== true,
    cpuProfile: options.cpuProf === true,
    writing: false,
    pgSettings: options.pgSetting,
    tagsAgain: false,
  };
  const meta = datasetPhase(settings, log);
  const prepared = options.cli === undefined ? await prepareRun(settings, meta, cleanups, log) : undefined;
  const run: Run = prepared ?? {
    settings,
    meta,
    build: { main: '', cli: options.cli! },
    keys: {},
    apiKeys: '',
    headers: {},
    profileDir: undefined,
    cleanups,
    log,
  };
  const kept = options.cluster === undefined ? undefined : keptCluster(options.cluster);
  const cluster = kept ?? (await startCluster());
  const stop = () => stopCluster(cluster);
  if (kept === undefined) cleanups.push(stop);
  await applySettings(cluster, settings.pgSettings, log);

  const postmaster = Number(readFileSync(join(cluster.dir, 'data', 'postmaster.pid'), 'utf8').split('\n', 1)[0]);

  const result: {
    copy?: Throughput & { load: [string, string]; cpu: { postgres: number; cli: number } };
    imports: (Throughput & {
      load: [string, string];
      cpu: { postgres: number; cli: number };
      toCopy?: number;
      exact: boolean;
    })[];
    tagLoads?: TagLoadRun[];
  } = { imports: [] };
  if (settings.copy && kept === undefined) result.copy = await measured(postmaster, () => copyPhase(run, cluster));
  let url = cluster.url.replace(/\/postgres$/, '/bench');
  for (let round = 0; round < (kept === undefined ? options.rounds : 0); round += 1) {
    url = await createDatabase(cluster, 'bench');
    await migrate(run, url);
    await warmFiles([meta.files.ndjson]);
    const imported = await measured(postmaster, () => importDataset(run, url, 'PostgreSQL'));
    log(`stats verify (load ${imported.load[1]})`);
    const verified = statsVerify(run.build.cli, url);
    log(`  ${verified.exact ? 'exact' : `DRIFT ${JSON.stringify(verified.drift)}`}`);
    result.imports.push({
      ...imported,
      toCopy: result.copy === undefined ? undefined : imported.rowsPerSecond / result.copy.rowsPerSecond,
      exact: verified.exact,
    });
  }
  if (options.tagLoad !== undefined) {
    const builds = [run.build.main, ...(options.main ?? [])];
    result.tagLoads = await tagLoads(run, cluster, postmaster, options.tagLoad, builds);
  }
  if (options.keep === true && kept === undefined) cleanups.remove(stop);
  // A kept cluster serves later runs: --pg-setting lasts for this one only.
  if (kept !== undefined && settings.pgSettings.length > 0) await resetSettings(cluster, log);
  if (options.keep === true || kept !== undefined) log(`kept: ${url} (cluster in ${cluster.dir})`);
  await cleanups.run(log);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

/** The cluster that an earlier `--keep` left running in `dir` (its port from postmaster.pid). */
function keptCluster(dir: string): PgCluster {
  const port = Number(readFileSync(join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[3]);
  return { dir, port, url: `postgres://postgres@127.0.0.1:${port}/postgres` };
}

interface TagLoadRun extends TagLoad {
  main: string;
  cpu: { service: number; postgres: number };
  endpoints?: Partial<Record<EndpointId, { firstPass: LoadResult; load: LoadResult; peakMb: number }>>;
}

/**
 * The tag load alone, `runs` times per build, builds in turn, each run on a fresh copy of the
 * imported database (`bench`) and a fresh service: what it costs to load the dataset's tags.
 */
async function tagLoads(
  run: Run,
  cluster: PgCluster,
  postmaster: number,
  runs: number,
  builds: readonly string[],
): Promise<TagLoadRun[]> {
  const figures: TagLoadRun[] = [];
  for (let round = 0; round < runs; round += 1) {
    for (const main of builds) {
      log(`tag load ${round + 1} of ${runs}: ${main}`);
      const url = await createDatabase(cluster, 'bench_tag_load', 'bench');
      const service = await startServiceOn({ ...run, build: { ...run.build, main } }, url, 'postgres', run.profileDir);
      const before = { service: service.cpuSeconds(), postgres: processTreeCpuSeconds(postmaster) };
      const load = await loadTags(run, service.port);
      const cpu = {
        service: service.cpuSeconds() - before.service,
        postgres: processTreeCpuSeconds(postmaster) - before.postgres,
      };
      log(`  CPU: service ${cpu.service.toFixed(1)} s, PostgreSQL ${cpu.postgres.toFixed(1)} s`);
      const endpoints = run.settings.endpoints.length > 0 ? await endpointLoads(run, service, url) : undefined;
      await service.stop();
      figures.push({ main, ...load, cpu, endpoints });
    }
  }
  return figures;
}

/** The run's endpoints on a service whose tag load has just filled its database. */
async function endpointLoads(run: Run, service: Server, url: string): Promise<TagLoadRun['endpoints']> {
  log('  VACUUM ANALYZE, as npm run bench does before its endpoints');
  await adminQuery(url, 'VACUUM ANALYZE');
  const figures: NonNullable<TagLoadRun['endpoints']> = {};
  for (const id of run.settings.endpoints) {
    const measured = await measureEndpoint(run, service, id);
    const { firstPass, load, peakMb } = measured;
    log(
      `  ${ENDPOINT_LABELS[id]}: first pass p99 ${firstPass.p99.toFixed(1)} ms (${firstPass.requests} paths); ` +
        `${Math.round(load.rps)} rps, p50 ${load.p50.toFixed(1)} ms, p99 ${load.p99.toFixed(1)} ms, ` +
        `CPU ${load.cpuMsPerRequest?.toFixed(3)} ms an answer, ${(load.bytesPerAnswer / 1000).toFixed(1)} kB an answer, ` +
        `RSS peak ${Math.round(peakMb)} MiB` +
        `${load.non2xx + load.errors > 0 ? `, ${load.non2xx} non-2xx, ${load.errors} errors` : ''}`,
    );
    figures[id] = measured;
  }
  return figures;
}

runBench(main, cleanups, log);
