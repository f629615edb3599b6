/** SQLite: the same import, tag load, endpoints and reads while writing on a SQLite file (no floor there). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SqliteFigures } from '../lib/report';
import { Run, startServiceOn } from './context';
import { measureAlone } from './endpoints';
import { importDataset, migrate } from './import';
import { loadTags, timeBigTagAlone } from './tags';
import { measureReadsWhileWriting } from './writing';

export async function sqlitePhase(run: Run): Promise<SqliteFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'chaintags-bench-sqlite-'));
  run.cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const url = `sqlite:${join(dir, 'bench.sqlite')}`;
  await migrate(run, url);
  const imported = await importDataset(run, url, 'SQLite');
  const service = await startServiceOn(run, url, 'sqlite');
  const tagLoad = await loadTags(run, service.port);
  const bigTagAlone = await timeBigTagAlone(run, service.port);
  const { endpoints, peakUnderLoadMb, peakByEndpointMb } = await measureAlone(run, service);
  const readsWhileWriting = run.settings.writing ? await measureReadsWhileWriting(run, service, url) : undefined;
  const memory = service.memory();
  await service.stop();
  return {
    endpoints,
    import: imported,
    tagLoad,
    serviceRss: { peakUnderLoadMb, peakByEndpointMb, afterRunMb: memory.rssMb, highWaterMb: memory.peakMb },
    bigTagAlone,
    readsWhileWriting,
  };
}
