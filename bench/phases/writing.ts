/**
 * Reads while writing: the stats and holdings endpoints measured idle, then while a writer process
 * (bench/lib/writer.ts) commits transfers between tagged addresses, as a chain follower would.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { drive } from '../lib/load';
import { ROOT, Server, sleep } from '../lib/processes';
import { ENDPOINT_LABELS, ReadsWhileWriting, WRITING_ENDPOINTS } from '../lib/report';
import type { Run } from './context';
import { measure, pathsFor } from './endpoints';

const WRITER_TRANSFERS = 50;
const WRITER_EVERY_MS = 100;

/**
 * The stats and holdings endpoints, in turn, measured idle and then while bench/lib/writer.ts
 * commits WRITER_TRANSFERS transfers between tagged EVM addresses every WRITER_EVERY_MS, each batch
 * its own transaction through chaintags' sink (which updates the kept aggregates in it). One load
 * drives the three endpoints, as before; each answer's latency is also counted for its endpoint.
 */
export async function measureReadsWhileWriting(run: Run, service: Server, url: string): Promise<ReadsWhileWriting> {
  const { settings, meta, log } = run;
  const lists = WRITING_ENDPOINTS.map((id) => pathsFor(id, meta));
  const paths = Array.from({ length: Math.max(...lists.map((list) => list.length)) }, (_v, index) =>
    lists.map((list) => list[index % list.length]!),
  ).flat();
  const endpointByPath = new Map<string, string>(
    WRITING_ENDPOINTS.flatMap((id, index) => lists[index]!.map((path): [string, string] => [path, id])),
  );
  const load = {
    paths,
    headers: run.headers,
    connections: settings.connections,
    seconds: settings.seconds,
    endpointOf: (path: string) => endpointByPath.get(path) ?? 'unknown',
  };
  log(`reads while writing: the stats and holdings endpoints idle for ${settings.seconds} s`);
  await drive({ ...load, port: service.port, seconds: settings.warmup });
  const { byEndpoint: idleShares = {}, ...idle } = (await measure(service, load)).result;

  const writer = startWriter(run, url);
  // The writer's first commits include its start-up; the measurement begins after a warm-up.
  await sleep(5000);
  log(`reads while writing: the same endpoints for ${settings.seconds} s while the writer commits`);
  await drive({ ...load, port: service.port, seconds: settings.warmup });
  const { byEndpoint: writingShares = {}, ...writing } = (await measure(service, load)).result;
  const report = await writer.finish();
  log(
    `  p99 idle ${idle.p99.toFixed(1)} ms, while writing ${writing.p99.toFixed(1)} ms; ${report.commits} commits, ` +
      `commit p99 ${report.commitP99Ms.toFixed(1)} ms`,
  );
  const endpoints: ReadsWhileWriting['endpoints'] = {};
  for (const id of WRITING_ENDPOINTS) {
    const before = idleShares[id];
    const during = writingShares[id];
    if (before === undefined || during === undefined) continue;
    endpoints[id] = { idle: before, writing: during, p99Ratio: during.p99 / before.p99 };
    log(
      `  ${ENDPOINT_LABELS[id]}: p99 idle ${before.p99.toFixed(1)} ms, while writing ${during.p99.toFixed(1)} ms ` +
        `(${(during.p99 / before.p99).toFixed(2)}×)`,
    );
  }
  return {
    idle,
    writing,
    p99Ratio: writing.p99 / idle.p99,
    endpoints,
    writer: { transfersPerBatch: WRITER_TRANSFERS, everyMs: WRITER_EVERY_MS, ...report },
  };
}

type WriterReport = { commits: number; commitP50Ms: number; commitP99Ms: number };

/**
 * bench/lib/writer.ts on the database, committing between up to 5,000 tagged EVM addresses until
 * `finish` closes its standard input; it then answers what it committed.
 */
function startWriter(run: Run, url: string): { finish: () => Promise<WriterReport> } {
  const tagged = [...new Set(run.meta.tags.flatMap((tag) => tag.addresses))].filter((address) =>
    /^0x[0-9a-fA-F]{40}$/.test(address),
  );
  const folder = mkdtempSync(join(tmpdir(), 'chaintags-bench-writer-'));
  run.cleanups.push(() => rmSync(folder, { recursive: true, force: true }));
  const file = join(folder, 'addresses.json');
  writeFileSync(file, JSON.stringify(tagged.slice(0, 5000)));
  const writer = spawn(
    process.execPath,
    [
      '-r',
      '@swc-node/register',
      'bench/lib/writer.ts',
      file,
      '--transfers',
      String(WRITER_TRANSFERS),
      '--every-ms',
      String(WRITER_EVERY_MS),
    ],
    { cwd: ROOT, env: { ...process.env, DATABASE_URL: url }, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  run.cleanups.push(() => void writer.kill());
  let output = '';
  writer.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => writer.once('exit', resolve));
  return {
    finish: async () => {
      writer.stdin.end();
      if ((await exited) !== 0) throw new Error(`the writer failed: ${output}`);
      return JSON.parse(output) as WriterReport;
    },
  };
}
