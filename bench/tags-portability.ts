/**
 * `npm run bench:tags`: POST /v2/import/tags and GET /v2/export/tags on PostgreSQL, measured.
 *
 * 1. Starts a throwaway PostgreSQL cluster and chaintags (compiled, as bench/run.ts runs it) on it.
 * 2. Writes an NDJSON file of `--pairs` (address, tag) pairs: `--pairs / --tags-per-address`
 *    fresh EVM addresses, each with `--tags-per-address` tags drawn from `--tag-names` names.
 * 3. Import: streams the file to POST /v2/import/tags and times it until the answer, sampling
 *    the service's resident memory every 50 ms.
 * 4. Export: reads GET /v2/export/tags to the end, counting lines, timed and sampled the same way.
 * 5. Replace: imports the first half of the file's addresses (the same lines) with
 *    `mode=replace`, which keeps their tags and removes the other half's, timed and sampled the
 *    same way: how long an account's POSTs and imports wait behind a replace (it holds the
 *    account's tracked set alone).
 * 6. Correctness: the first export holds every address, an export after the replace the half it
 *    kept, and `stats verify` finds the kept aggregates exact.
 *
 * Prints the figures against the targets (import ≤ 60 s, export ≤ 20 s, RSS growth ≤ 100 MiB),
 * the CPU time the service and PostgreSQL spent on each (on a busy host, the wall time is theirs
 * plus the time spent waiting for a CPU), and writes bench/results/tags-portability-latest.json.
 *
 *   npm run bench:tags [-- --pairs 1000000] [--tags-per-address 2] [--tag-names 20] [--seed S]
 *
 * Nothing here runs in `npm test`.
 */
import {
  createReadStream,
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { once } from 'node:events';
import { request } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Command } from 'commander';
import { randomBytes, createHash } from 'node:crypto';
import { startCluster, stopCluster } from '../test/support/pg-cluster';
import {
  buildService,
  memoryOf,
  processTreeCpuSeconds,
  ROOT,
  Server,
  startService,
  statsVerify,
} from './lib/processes';
import { benchLog, Cleanups, runBench } from './lib/lifecycle';
import { parseCommandLine, wholeNumber } from './lib/options';

const RESULTS_DIR = join(ROOT, 'bench', 'results');
const TARGETS = { importSeconds: 60, exportSeconds: 20, rssGrowthMb: 100 };
const SAMPLE_MS = 50;

interface Settings {
  pairs: number;
  tagsPerAddress: number;
  tagNames: number;
  seed: string;
}

const log = benchLog('bench:tags');
const cleanups = new Cleanups();

async function main(): Promise<void> {
  const settings = parseCommandLine<Settings>(
    new Command('bench:tags')
      .option('--pairs <n>', '(address, tag) pairs to import and export', wholeNumber(1), 1_000_000)
      .option('--tags-per-address <n>', 'tags of each address', wholeNumber(1), 2)
      .option('--tag-names <n>', 'distinct tag names the tags are drawn from', wholeNumber(1), 20)
      .option('--seed <seed>', 'seed of the addresses and tags', 'chaintags'),
    process.argv.slice(2),
    (options) =>
      options.tagsPerAddress > options.tagNames || options.tagsPerAddress > 50
        ? '--tags-per-address must be at most --tag-names and at most 50'
        : undefined,
  );
  if (settings === undefined) return;
  const addresses = Math.floor(settings.pairs / settings.tagsPerAddress);
  const pairs = addresses * settings.tagsPerAddress;

  const work = mkdtempSync(join(tmpdir(), 'chaintags-bench-tags-'));
  cleanups.push(() => rmSync(work, { recursive: true, force: true }));
  const file = join(work, 'tags.ndjson');
  log(`writing ${pairs} pairs (${addresses} addresses × ${settings.tagsPerAddress} tags) to ${file}`);
  await writeTagFile(file, addresses, settings);
  const kept = Math.floor(addresses / 2);
  const half = join(work, 'tags-half.ndjson');
  await writeTagFile(half, kept, settings);

  log('compiling chaintags');
  const { main: serviceMain, cli } = await buildService();
  log('starting PostgreSQL');
  const cluster = await startCluster();
  cleanups.push(() => stopCluster(cluster));
  const key = `ctk_${randomBytes(24).toString('base64url')}`;
  const service = await startService(serviceMain, {
    databaseUrl: cluster.url,
    apiKeys: `bench:${key}`,
    logFile: join(work, 'service.log'),
  });
  cleanups.push(() => service.stop());

  const postmaster = Number(readFileSync(join(cluster.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  /** CPU seconds of the service and of PostgreSQL (server and backends) so far. */
  const cpu = () => ({ service: service.cpuSeconds(), postgres: processTreeCpuSeconds(postmaster) });
  const baseline = service.memory().rssMb;
  log(`service RSS at rest: ${baseline.toFixed(1)} MiB; importing`);
  const cpuBeforeImport = cpu();
  const imported = await sampled(service, () => importFile(service.port, key, file));
  const cpuAfterImport = cpu();
  log(`import: ${imported.seconds.toFixed(1)} s, answer ${JSON.stringify(imported.value)}`);
  const restAfterImport = service.memory().rssMb;
  const exported = await sampled(service, () => exportAll(service.port, key));
  const cpuAfterExport = cpu();
  const spent = (from: { service: number; postgres: number }, to: { service: number; postgres: number }) => ({
    service: to.service - from.service,
    postgres: to.postgres - from.postgres,
  });
  log(`export: ${exported.seconds.toFixed(1)} s, ${exported.value.lines} lines, ${exported.value.bytes} bytes`);
  // A rename of the largest tag and back: every member's two history entries, under the
  // account's tracked set held alone.
  const largest = await largestTag(service.port, key);
  log(`renaming ${largest.tag} (${largest.address_count} addresses) and back`);
  const renamed = await sampled(service, () => renameTag(service.port, key, largest.tag, `${largest.tag}_renamed`));
  const renamedBack = await sampled(service, () => renameTag(service.port, key, `${largest.tag}_renamed`, largest.tag));
  log(`rename: ${renamed.seconds.toFixed(2)} s, back: ${renamedBack.seconds.toFixed(2)} s`);
  const restAfterExport = service.memory().rssMb;
  log(`replacing with the first ${kept} addresses' lines`);
  const replaced = await sampled(service, () => importFile(service.port, key, half, 'replace'));
  const cpuAfterReplace = cpu();
  log(`replace: ${replaced.seconds.toFixed(1)} s, answer ${JSON.stringify(replaced.value)}`);
  const left = await exportAll(service.port, key);

  const verify = statsVerify(cli, cluster.url);
  const results = {
    at: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model },
    settings: { ...settings, addresses, pairs, fileBytes: statSync(file).size },
    import: {
      seconds: imported.seconds,
      pairsPerSecond: Math.round(pairs / imported.seconds),
      rssGrowthMb: imported.peakRssMb - baseline,
      cpuSeconds: spent(cpuBeforeImport, cpuAfterImport),
      answer: imported.value,
    },
    export: {
      seconds: exported.seconds,
      pairsPerSecond: Math.round(pairs / exported.seconds),
      rssGrowthMb: exported.peakRssMb - restAfterImport,
      cpuSeconds: spent(cpuAfterImport, cpuAfterExport),
      lines: exported.value.lines,
    },
    rename: {
      tag: largest.tag,
      addresses: largest.address_count,
      seconds: renamed.seconds,
      backSeconds: renamedBack.seconds,
    },
    replace: {
      seconds: replaced.seconds,
      keptAddresses: kept,
      removedPairs: pairs - kept * settings.tagsPerAddress,
      rssGrowthMb: replaced.peakRssMb - restAfterExport,
      cpuSeconds: spent(cpuAfterExport, cpuAfterReplace),
      answer: replaced.value,
      linesAfter: left.lines,
    },
    baselineRssMb: baseline,
    loadAverage: loadavg(),
    mallocArenaMax: process.env.MALLOC_ARENA_MAX ?? null,
    aggregatesExact: verify.exact,
  };
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, 'tags-portability-latest.json'), `${JSON.stringify(results, null, 2)}\n`);

  const row = (name: string, value: string, target: string, ok: boolean) =>
    `${name.padEnd(26)}${value.padStart(14)}   ${target.padEnd(10)}${ok ? 'met' : 'MISSED'}`;
  process.stdout.write(
    [
      `bench:tags on PostgreSQL: ${pairs} pairs, ${addresses} addresses, ${settings.tagNames} tag names`,
      row(
        'import',
        `${imported.seconds.toFixed(1)} s`,
        `≤ ${TARGETS.importSeconds} s`,
        imported.seconds <= TARGETS.importSeconds,
      ),
      row(
        'export',
        `${exported.seconds.toFixed(1)} s`,
        `≤ ${TARGETS.exportSeconds} s`,
        exported.seconds <= TARGETS.exportSeconds,
      ),
      row(
        'RSS growth during import',
        `${results.import.rssGrowthMb.toFixed(1)} MiB`,
        `≤ ${TARGETS.rssGrowthMb} MiB`,
        results.import.rssGrowthMb <= TARGETS.rssGrowthMb,
      ),
      row(
        'RSS growth during export',
        `${results.export.rssGrowthMb.toFixed(1)} MiB`,
        `≤ ${TARGETS.rssGrowthMb} MiB`,
        results.export.rssGrowthMb <= TARGETS.rssGrowthMb,
      ),
      `CPU during import: service ${results.import.cpuSeconds.service.toFixed(1)} s, PostgreSQL ${results.import.cpuSeconds.postgres.toFixed(1)} s; ` +
        `during export: service ${results.export.cpuSeconds.service.toFixed(1)} s, PostgreSQL ${results.export.cpuSeconds.postgres.toFixed(1)} s`,
      `rename of a tag of ${largest.address_count} addresses: ${renamed.seconds.toFixed(2)} s, and back ${renamedBack.seconds.toFixed(2)} s`,
      `replace keeping ${kept} addresses, removing ${results.replace.removedPairs} pairs: ${replaced.seconds.toFixed(1)} s, ` +
        `RSS growth ${results.replace.rssGrowthMb.toFixed(1)} MiB, CPU service ${results.replace.cpuSeconds.service.toFixed(1)} s, ` +
        `PostgreSQL ${results.replace.cpuSeconds.postgres.toFixed(1)} s`,
      `load average at the end: ${loadavg()
        .map((value) => value.toFixed(1))
        .join(' ')} on ${cpus().length} CPUs`,
      row('export lines', String(exported.value.lines), String(addresses), exported.value.lines === addresses),
      row('export lines after replace', String(left.lines), String(kept), left.lines === kept),
      row('stats verify', verify.exact ? 'exact' : 'DRIFT', 'exact', verify.exact),
      '',
    ].join('\n'),
  );
  if (exported.value.lines !== addresses || left.lines !== kept || !verify.exact) process.exitCode = 1;
  await cleanups.run(log);
}

/** Addresses derived from the seed, each with its tags in ascending order, one NDJSON line each. */
async function writeTagFile(path: string, addresses: number, settings: Settings): Promise<void> {
  const names = Array.from(
    { length: settings.tagNames },
    (_unused, index) => `bench_tag_${String(index).padStart(3, '0')}`,
  );
  const out = createWriteStream(path);
  let text = '';
  for (let index = 0; index < addresses; index += 1) {
    const digest = createHash('sha256').update(`${settings.seed}:${index}`).digest();
    const address = `0x${digest.subarray(0, 20).toString('hex')}`;
    const first = digest[20]! % settings.tagNames;
    const tags = Array.from(
      { length: settings.tagsPerAddress },
      (_unused, step) => names[(first + step) % names.length]!,
    );
    text += `${JSON.stringify({ address, tags: tags.sort() })}\n`;
    if (text.length > 1 << 20) {
      if (!out.write(text)) await once(out, 'drain');
      text = '';
    }
  }
  out.end(text);
  await once(out, 'close');
}

/** The work's duration and the service's highest resident memory meanwhile. */
async function sampled<T>(
  service: Server,
  work: () => Promise<T>,
): Promise<{ value: T; seconds: number; peakRssMb: number }> {
  let peak = service.memory().rssMb;
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, memoryOf(service.pid).rssMb);
    } catch {
      // The process is gone; the work fails on its own.
    }
  }, SAMPLE_MS);
  const started = performance.now();
  try {
    const value = await work();
    return { value, seconds: (performance.now() - started) / 1000, peakRssMb: Math.max(peak, service.memory().rssMb) };
  } finally {
    clearInterval(timer);
  }
}

function importFile(port: number, key: string, file: string, mode: 'merge' | 'replace' = 'merge'): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const call = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/v2/import/tags?mode=${mode}`,
        headers: { 'X-API-Key': key, 'Content-Type': 'application/x-ndjson', 'Content-Length': statSync(file).size },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () =>
          response.statusCode === 200
            ? resolve(JSON.parse(body))
            : reject(new Error(`import: ${response.statusCode} ${body}`)),
        );
      },
    );
    call.on('error', reject);
    createReadStream(file).pipe(call);
  });
}

function exportAll(port: number, key: string): Promise<{ lines: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const call = request(
      { host: '127.0.0.1', port, path: '/v2/export/tags', headers: { 'X-API-Key': key } },
      (response) => {
        if (response.statusCode !== 200) {
          reject(new Error(`export: ${response.statusCode}`));
          response.resume();
          return;
        }
        let lines = 0;
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) lines += 1;
        });
        response.on('end', () => resolve({ lines, bytes }));
      },
    );
    call.on('error', reject);
    call.end();
  });
}

/** The account's tag with the most addresses (of the first 100 by name). */
async function largestTag(port: number, key: string): Promise<{ tag: string; address_count: number }> {
  const response = await fetch(`http://127.0.0.1:${port}/v2/tags?per_page=100`, { headers: { 'X-API-Key': key } });
  if (response.status !== 200) throw new Error(`tags: ${response.status} ${await response.text()}`);
  const tags = (await response.json()) as { tag: string; address_count: number }[];
  return tags.reduce((largest, tag) => (tag.address_count > largest.address_count ? tag : largest));
}

async function renameTag(port: number, key: string, from: string, to: string): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${port}/v2/tags/${from}`, {
    method: 'PATCH',
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: to }),
  });
  if (response.status !== 200) throw new Error(`rename: ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
}

runBench(main, cleanups, log);
