/**
 * PostgreSQL: a throwaway cluster, then on it the import (and COPY), the tag load, the endpoints
 * against the floor, reads while writing and `stats verify`.
 */
import { join } from 'node:path';
import { PgCluster, startCluster, stopCluster } from '../../test/support/pg-cluster';
import { applySettings, reportSettings } from '../lib/pg-settings';
import { adminQuery, createDatabase } from '../lib/postgres';
import { startFloor, statsVerify } from '../lib/processes';
import type { PostgresFigures } from '../lib/report';
import { RESULTS_DIR, Run, startServiceOn } from './context';
import { compareAnswers, measureAgainstFloor } from './endpoints';
import { copyPhase, importDataset, migrate, warmFiles } from './import';
import { describeMachine, Machine } from './results';
import { loadTags, timeBigTagAlone } from './tags';
import { measureReadsWhileWriting } from './writing';

/** Settings every results file reports, whatever the run changed. */
const REPORTED_PG_SETTINGS = [
  'shared_buffers',
  'work_mem',
  'effective_cache_size',
  'random_page_cost',
  'jit',
  'max_parallel_workers_per_gather',
  'fsync',
  'synchronous_commit',
];

/** The cluster, with the run's `--pg-setting`s applied; the machine and the server's settings as the results report them. */
export async function startPostgres(
  run: Run,
): Promise<{ cluster: PgCluster; machine: Machine; postgresSettings: Record<string, string> }> {
  const { settings, log } = run;
  log('starting a throwaway PostgreSQL 15 cluster');
  const cluster = await startCluster();
  run.cleanups.push(() => stopCluster(cluster));
  await applySettings(cluster, settings.pgSettings, log);
  const machine = await describeMachine(cluster);
  const postgresSettings = await reportSettings(cluster.url, [
    ...new Set([...REPORTED_PG_SETTINGS, ...settings.pgSettings.map(([name]) => name)]),
  ]);
  return { cluster, machine, postgresSettings };
}

export async function postgresPhase(run: Run, cluster: PgCluster): Promise<PostgresFigures> {
  const { settings, meta, log } = run;
  const copy = settings.copy ? await copyPhase(run, cluster) : undefined;

  const url = await createDatabase(cluster, 'bench');
  await migrate(run, url);
  await warmFiles([meta.files.ndjson]);
  const imported = await importDataset(run, url, 'PostgreSQL');

  const service = await startServiceOn(run, url, 'postgres', run.profileDir);
  const tagLoad = await loadTags(run, service.port);
  if (settings.tagsAgain) await loadTags(run, service.port, '_again');
  log('VACUUM ANALYZE, as autovacuum would eventually, so that neither side meets it mid-run');
  await adminQuery(url, 'VACUUM ANALYZE');
  const bigTagAlone = await timeBigTagAlone(run, service.port);
  const floor = run.cleanups.track(await startFloor(url, join(RESULTS_DIR, 'floor.log')));

  const verified = await compareAnswers(run, service, floor);
  if (verified.mismatches.length > 0) {
    for (const mismatch of verified.mismatches.slice(0, 5)) log(`MISMATCH ${mismatch}`);
  }
  const { endpoints, peakUnderLoadMb, peakByEndpointMb } = await measureAgainstFloor(run, service, floor);
  const readsWhileWriting = settings.writing ? await measureReadsWhileWriting(run, service, url) : undefined;
  const memory = service.memory();
  await floor.stop();
  await service.stop();
  const aggregates = verifyAggregates(run, url);
  await adminQuery(cluster.url, 'DROP DATABASE bench WITH (FORCE)');
  return {
    endpoints,
    import: imported,
    copy,
    importToCopy: copy === undefined ? undefined : imported.rowsPerSecond / copy.rowsPerSecond,
    tagLoad,
    serviceRss: { peakUnderLoadMb, peakByEndpointMb, afterRunMb: memory.rssMb, highWaterMb: memory.peakMb },
    verified,
    bigTagAlone,
    readsWhileWriting,
    aggregates,
  };
}

/** `stats verify` on the benchmark's database: exit code 1 on drift. */
function verifyAggregates(run: Run, url: string): PostgresFigures['aggregates'] {
  run.log('stats verify: the kept aggregates against the reference computation');
  const summary = statsVerify(run.build.cli, url);
  run.log(`  ${summary.exact ? 'exact' : `DRIFT ${JSON.stringify(summary.drift)}`}`);
  return summary;
}
