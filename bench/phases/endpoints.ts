/**
 * The endpoint load: each endpoint driven by autocannon with request paths from the dataset, on
 * PostgreSQL against the floor (after checking both answer alike), on SQLite alone.
 */
import { CHAIN_IDS } from '../../src/core/chains/chain-ids';
import type { DatasetMeta } from '../dataset/meta';
import { fetchAnswer } from '../lib/http';
import { drive, LoadOptions, LoadResult } from '../lib/load';
import type { Server } from '../lib/processes';
import { ENDPOINT_LABELS, EndpointId, PostgresFigures, ServiceRss, SqliteFigures } from '../lib/report';
import type { Run, Settings } from './context';

const VERIFY_PER_ENDPOINT = 10;

/** The request paths of an endpoint, built from the dataset's samples. */
export function pathsFor(id: EndpointId, meta: DatasetMeta): string[] {
  const { addresses, tags, bigTag } = meta.samples;
  switch (id) {
    case 'address':
      return addresses.map((address) => `/v2/addresses/${encodeURIComponent(address)}`);
    case 'transactions':
      return addresses.map((address) => `/v2/transactions?address=${encodeURIComponent(address)}`);
    case 'holdings':
      return tags.map((tag) => `/v2/token-holdings?tag=${tag}`);
    case 'tag':
      return tags.map((tag) => `/v2/tags/${tag}`);
    case 'tag_10k':
      return [`/v2/tags/${bigTag}`];
    case 'untagged':
      return ['/v2/tags/0', '/v2/token-holdings?tag=0'];
    case 'listing':
      // Everyone's holdings, unfiltered, per chain and of the native coins: a page and the total.
      return [
        '/v2/token-holdings',
        ...CHAIN_IDS.map((chain) => `/v2/token-holdings?chain=${chain}`),
        '/v2/token-holdings?token_address=0',
      ];
    case 'tag_transactions':
      return tags.map((tag) => `/v2/transactions?tag=${tag}`);
    case 'members':
      return tags.map((tag) => `/v2/tags/${tag}/addresses`);
  }
}

/**
 * Each endpoint on the service and the floor: half the distinct paths once on each (the first
 * pass, firstPassLoad), a warm-up of each, then the service and the floor measured back to back
 * with the same load.
 */
export function measureAgainstFloor(
  run: Run,
  service: Server,
  floor: Server,
): Promise<{ endpoints: PostgresFigures['endpoints'] } & PeaksUnderLoad> {
  const { settings, headers, log } = run;
  return eachEndpoint(run, async (id, paths) => {
    log(`${ENDPOINT_LABELS[id]}: half the paths once on each, warming up both, then ${settings.seconds} s each`);
    const firstPass = {
      service: await drive({ ...firstPassLoad(paths, settings, 0), port: service.port, headers }),
      floor: await drive({ ...firstPassLoad(paths, settings, 1), port: floor.port, headers }),
    };
    log(
      `  first pass: service p99 ${firstPass.service.p99.toFixed(1)} ms | floor p99 ${firstPass.floor.p99.toFixed(1)} ms`,
    );
    await drive({ port: service.port, paths, headers, connections: settings.connections, seconds: settings.warmup });
    await drive({ port: floor.port, paths, headers, connections: settings.connections, seconds: settings.warmup });
    const load = { paths, headers, connections: settings.connections, seconds: settings.seconds };
    const sampled = await measure(service, load);
    const floorResult = (await measure(floor, load)).result;
    log(
      `  service ${Math.round(sampled.result.rps)} rps p99 ${sampled.result.p99.toFixed(1)} ms | floor ` +
        `${Math.round(floorResult.rps)} rps p99 ${floorResult.p99.toFixed(1)} ms` +
        failures(sampled.result) +
        failures(floorResult),
    );
    const figures = {
      service: sampled.result,
      floor: floorResult,
      ratio: sampled.result.rps / floorResult.rps,
      firstPass,
    };
    return { figures, peakMb: sampled.peakMb };
  });
}

/** Each endpoint on the service alone (SQLite: no floor), warmed up and then measured. */
export function measureAlone(
  run: Run,
  service: Server,
): Promise<{ endpoints: SqliteFigures['endpoints'] } & PeaksUnderLoad> {
  const { settings, headers, log } = run;
  return eachEndpoint(run, async (id, paths) => {
    log(`SQLite ${ENDPOINT_LABELS[id]}: warming up, then ${settings.seconds} s`);
    await drive({ port: service.port, paths, headers, connections: settings.connections, seconds: settings.warmup });
    const sampled = await measure(service, {
      paths,
      headers,
      connections: settings.connections,
      seconds: settings.seconds,
    });
    log(
      `  service ${Math.round(sampled.result.rps)} rps p99 ${sampled.result.p99.toFixed(1)} ms${failures(sampled.result)}`,
    );
    return { figures: sampled.result, peakMb: sampled.peakMb };
  });
}

/**
 * One endpoint on the service alone, for comparing builds on one database (`npm run bench:import
 * -- --endpoints`): every distinct path once (the first pass, ten at a time), a warm-up, then the
 * measured load, with the service's RSS peak under it (as `npm run bench` samples it).
 */
export async function measureEndpoint(
  run: Run,
  service: Server,
  id: EndpointId,
): Promise<{ firstPass: LoadResult; load: LoadResult; peakMb: number }> {
  const { settings, headers } = run;
  const paths = pathsFor(id, run.meta);
  const distinct = [...new Set(paths)];
  const firstPass = await drive({
    port: service.port,
    paths: distinct,
    headers,
    connections: Math.min(settings.connections, distinct.length),
    seconds: settings.seconds,
    amount: distinct.length,
  });
  await drive({ port: service.port, paths, headers, connections: settings.connections, seconds: settings.warmup });
  const load = { paths, headers, connections: settings.connections, seconds: settings.seconds };
  const sampled = await measure(service, load);
  return { firstPass, load: sampled.result, peakMb: sampled.peakMb };
}

/**
 * The run's endpoints in turn, each with its request paths: their figures, and the service's peak
 * RSS under each one's load and under all of them.
 */
async function eachEndpoint<F>(
  run: Run,
  measureOne: (id: EndpointId, paths: string[]) => Promise<{ figures: F; peakMb: number }>,
): Promise<{ endpoints: Partial<Record<EndpointId, F>> } & PeaksUnderLoad> {
  const endpoints: Partial<Record<EndpointId, F>> = {};
  const peakByEndpointMb: PeaksUnderLoad['peakByEndpointMb'] = {};
  for (const id of run.settings.endpoints) {
    const { figures, peakMb } = await measureOne(id, pathsFor(id, run.meta));
    endpoints[id] = figures;
    peakByEndpointMb[id] = peakMb;
  }
  return { endpoints, peakUnderLoadMb: Math.max(0, ...Object.values(peakByEndpointMb)), peakByEndpointMb };
}

type PeaksUnderLoad = Pick<ServiceRss, 'peakUnderLoadMb' | 'peakByEndpointMb'>;

/**
 * The floor must answer what the service answers: the first requests of every endpoint are sent
 * to both and their status, body and Link header (host aside) compared.
 */
export async function compareAnswers(run: Run, service: Server, floor: Server): Promise<PostgresFigures['verified']> {
  const mismatches: string[] = [];
  let compared = 0;
  for (const id of run.settings.endpoints) {
    for (const path of pathsFor(id, run.meta).slice(0, VERIFY_PER_ENDPOINT)) {
      const [a, b] = await Promise.all([
        fetchAnswer(service.port, path, run.headers),
        fetchAnswer(floor.port, path, run.headers),
      ]);
      compared += 1;
      if (a.status !== 200) mismatches.push(`${path}: the service answered ${a.status}: ${a.body.slice(0, 200)}`);
      else if (a.status !== b.status || a.body !== b.body || a.link !== b.link) {
        mismatches.push(
          `${path}: service ${a.status} ${a.body.slice(0, 300)} | floor ${b.status} ${b.body.slice(0, 300)}`,
        );
      }
    }
  }
  return { compared, mismatches };
}

/**
 * One measured load on one server: its answers, the CPU time it spent on them, and its RSS
 * sampled five times a second. On a machine the server shares with PostgreSQL and the load
 * generator, CPU per answer is the steadier measure of what a request costs it.
 */
export async function measure(
  server: Server,
  options: Omit<LoadOptions, 'port'>,
): Promise<{ result: LoadResult; peakMb: number }> {
  let peakMb = server.memory().rssMb;
  const timer = setInterval(() => {
    peakMb = Math.max(peakMb, server.memory().rssMb);
  }, 200);
  try {
    const cpuBefore = server.cpuSeconds();
    const result = await drive({ ...options, port: server.port });
    const cpuMs = (server.cpuSeconds() - cpuBefore) * 1000;
    result.cpuMsPerRequest = result.requests > 0 ? cpuMs / result.requests : NaN;
    return { result, peakMb: Math.max(peakMb, server.memory().rssMb) };
  } finally {
    clearInterval(timer);
  }
}

/**
 * One half of the distinct paths, each once, through the same connections as the measurement:
 * the service's first pass gets the even ones and the floor's the odd ones, so that each server
 * meets rows no request has read yet. Both on every path, the second would read what the first had
 * just brought into PostgreSQL's buffers: run floor first, the floor's p99 of the address pass was
 * 69.3 ms and the service's 25.3 ms, the other way round 63.9 and 35.8 ms (bench/README.md, change
 * 33). A single path goes to both.
 */
function firstPassLoad(paths: readonly string[], settings: Settings, half: 0 | 1) {
  const distinct = [...new Set(paths)];
  const mine = distinct.length < 2 ? distinct : distinct.filter((_, index) => index % 2 === half);
  return {
    paths: mine,
    connections: Math.min(settings.connections, mine.length),
    seconds: settings.seconds,
    amount: mine.length,
  };
}

function failures(result: LoadResult): string {
  return result.non2xx + result.errors > 0 ? ` (${result.non2xx} non-2xx, ${result.errors} errors)` : '';
}
