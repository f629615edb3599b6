/**
 * What the follower benchmarks (bench/follow.ts on anvil, bench/follow-utxo.ts on litecoind) do
 * to the service they start: tag addresses through the API, wait for GET /v2/sync to reach a
 * node's head, read lists, sample memory, and look into the database it wrote.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { PgCluster, startCluster, stopCluster } from '../../test/support/pg-cluster';
import type { DatabaseKind } from './follow-report';
import type { Cleanups } from './lifecycle';
import { buildService, cpuSecondsOf, processTreeCpuSeconds, Server, sleep } from './processes';

const PER_TAG = 100;
const TAG_CONCURRENCY = 4;
const SYNC_POLL_MS = 100;
/** How long the follower may report an error without the run stopping. */
const LASTING_FAILURE_MS = 60_000;

export interface TagJob {
  name: string;
  addresses: string[];
}

/** The addresses in tags of 100, named `<prefix>_0000`, `<prefix>_0001`, … */
export function tagsOf(prefix: string, addresses: readonly string[]): TagJob[] {
  const tags: TagJob[] = [];
  for (let start = 0; start < addresses.length; start += PER_TAG) {
    tags.push({
      name: `${prefix}_${String(start / PER_TAG).padStart(4, '0')}`,
      addresses: addresses.slice(start, start + PER_TAG),
    });
  }
  return tags;
}

/** POST /v2/tags/:tag for each tag, a few requests at a time, as a client would. */
export async function postTags(
  port: number,
  key: string,
  tags: readonly TagJob[],
): Promise<{ tags: number; addresses: number; seconds: number }> {
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < tags.length) {
      const tag = tags[next]!;
      next += 1;
      const response = await fetch(`http://127.0.0.1:${port}/v2/tags/${tag.name}`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(tag.addresses),
        signal: AbortSignal.timeout(120_000),
      });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`POST /v2/tags/${tag.name} answered ${response.status}: ${text}`);
    }
  };
  await Promise.all(Array.from({ length: TAG_CONCURRENCY }, worker));
  return {
    tags: tags.length,
    addresses: tags.reduce((sum, tag) => sum + tag.addresses.length, 0),
    seconds: (performance.now() - started) / 1000,
  };
}

export interface SyncRow {
  chain: string;
  status: string;
  head_block: string | null;
  indexed_block: string | null;
  error: string | null;
  updated_at: string | null;
}

/** One chain's row of GET /v2/sync. */
export async function syncRowOf(port: number, headers: Record<string, string>, chain: string): Promise<SyncRow> {
  const rows = await getJson<SyncRow[]>(port, '/v2/sync', headers);
  const row = rows.find((entry) => entry.chain === chain);
  if (row === undefined) throw new Error(`/v2/sync has no ${chain} row`);
  return row;
}

/** A followed chain as `waitSynced` watches it. */
export interface SyncWatch {
  port: number;
  headers: Record<string, string>;
  chain: string;
  /** The node's head now. */
  head: () => Promise<bigint>;
  /** Errors the follower reported and got over are added here (once each). */
  errors: string[];
  log: (line: string) => void;
  /**
   * Where the polls that found no answer within 30 s are counted, with the longest time between
   * two answers; without it, such a poll stops the run.
   */
  silence?: { unanswered: number; longestMs: number };
}

/**
 * Polls GET /v2/sync until it says synced with the node's head indexed; returns when that was
 * seen and the first answer (when, and the block indexed then). An error the follower reports
 * is noted (`errors`), and stops the run when it lasts; an error row older than the server
 * (the chain was left unfollowed while the blocks were made) is the previous process's silence,
 * which the new process's first report replaces.
 */
export async function waitSynced(
  watch: SyncWatch,
  timeoutMs: number,
  serverStartedAt: Date,
): Promise<{ at: number; firstSample: { at: number; indexed: bigint } }> {
  const deadline = performance.now() + timeoutMs;
  let firstSample: { at: number; indexed: bigint } | undefined;
  let last: SyncRow | undefined;
  let failingSince: number | undefined;
  let answeredAt = performance.now();
  while (performance.now() < deadline) {
    let row: SyncRow;
    let head: bigint;
    try {
      [row, head] = await Promise.all([syncRowOf(watch.port, watch.headers, watch.chain), watch.head()]);
    } catch (error) {
      if (watch.silence === undefined || !(error instanceof Error && error.name === 'TimeoutError')) throw error;
      watch.silence.unanswered += 1;
      watch.log(`  GET /v2/sync gave no answer within 30 s`);
      continue;
    }
    const at = performance.now();
    if (watch.silence !== undefined) watch.silence.longestMs = Math.max(watch.silence.longestMs, at - answeredAt);
    answeredAt = at;
    last = row;
    firstSample ??= { at, indexed: BigInt(row.indexed_block ?? '0') };
    const reported = row.updated_at === null ? undefined : new Date(row.updated_at);
    if (row.status === 'error' && reported !== undefined && reported >= serverStartedAt) {
      // The follower retries by itself: a failure it gets over is noted, one that lasts stops the run.
      if (row.error !== null && !watch.errors.includes(row.error)) {
        watch.errors.push(row.error);
        watch.log(`  the follower reports: ${row.error}`);
      }
      failingSince ??= at;
      if (at - failingSince > LASTING_FAILURE_MS) throw new Error(`the follower keeps failing: ${row.error}`);
    } else {
      failingSince = undefined;
    }
    if (row.status === 'synced' && row.indexed_block === head.toString()) return { at, firstSample };
    await sleep(SYNC_POLL_MS);
  }
  throw new Error(`the follower did not reach the head within ${timeoutMs / 1000} s: ${JSON.stringify(last)}`);
}

/** The server's RSS sampled five times a second. */
export function sampleRss(server: Server): { peak: () => number; stop: () => void } {
  let peak = server.memory().rssMb;
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, server.memory().rssMb);
    } catch {
      // The process is gone.
    }
  }, 200);
  return { peak: () => peak, stop: () => clearInterval(timer) };
}

/** The rows of a paged list, following its `Link: <…>; rel="next"` header to the end. */
export async function countListed(port: number, path: string, headers: Record<string, string>): Promise<number> {
  let count = 0;
  let url: string | undefined = `http://127.0.0.1:${port}${path}`;
  while (url !== undefined) {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(30_000) });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${text.slice(0, 300)}`);
    count += (JSON.parse(text) as unknown[]).length;
    url = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
  }
  return count;
}

export async function getJson<T>(port: number, path: string, headers: Record<string, string>): Promise<T> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers, signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** An empty database: a SQLite file in a temporary folder, or `name` created anew on the cluster. */
export async function freshDatabase(
  kind: DatabaseKind,
  cluster: PgCluster | undefined,
  cleanups: Cleanups,
  name: string,
): Promise<string> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), `chaintags-${name.replace(/_/g, '-')}-`));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return `sqlite:${join(dir, `${name}.sqlite`)}`;
  }
  if (cluster === undefined) throw new Error('no PostgreSQL cluster');
  const client = new Client({ connectionString: cluster.url });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return cluster.url.replace(/\/postgres$/, `/${name}`);
}

/** The transactions (transfers) chaintags recorded on `chain`, read from its database. */
export async function countTransactions(databaseUrl: string, chain: string): Promise<number> {
  const query = 'SELECT COUNT(*) AS n FROM transactions WHERE chain = ';
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new Database(databaseUrl.slice('sqlite:'.length), { readonly: true });
    try {
      return Number((db.prepare(`${query}?`).get(chain) as { n: number }).n);
    } finally {
      db.close();
    }
  }
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return Number(((await client.query(`${query}$1`, [chain])).rows[0] as { n: string }).n);
  } finally {
    await client.end();
  }
}

export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

/** The native-coin balance (token `0`) of every address chaintags holds one for on `chain`, read from its database. */
export async function nativeBalances(databaseUrl: string, chain: string): Promise<Map<string, bigint>> {
  const query = "SELECT address, CAST(balance AS TEXT) AS balance FROM holdings WHERE token_address = '0' AND chain = ";
  let rows: { address: string; balance: string }[];
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new Database(databaseUrl.slice('sqlite:'.length), { readonly: true });
    try {
      rows = db.prepare(`${query}?`).all(chain) as typeof rows;
    } finally {
      db.close();
    }
  } else {
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      rows = (await client.query(`${query}$1`, [chain])).rows as typeof rows;
    } finally {
      await client.end();
    }
  }
  return new Map(rows.map((row) => [row.address, BigInt(row.balance)]));
}

/**
 * CPU seconds spent from now on by the server (its queries included on SQLite), the chain's node
 * (`node.name` names its figure), and the PostgreSQL server with its backends; from /proc, so on
 * Linux only.
 */
export function cpuMeter<Name extends string>(
  service: Server,
  node: { name: Name; pid: number | undefined },
  cluster: PgCluster | undefined,
  kind: DatabaseKind,
): { since: () => Record<'service' | 'postgres' | Name, number> } {
  const postmaster =
    kind === 'postgres' && cluster !== undefined
      ? Number(readFileSync(join(cluster.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0])
      : undefined;
  const read = () => ({
    service: service.cpuSeconds(),
    node: node.pid === undefined ? NaN : cpuSecondsOf(node.pid),
    postgres: postmaster === undefined ? NaN : processTreeCpuSeconds(postmaster),
  });
  const start = read();
  return {
    since: () => {
      const now = read();
      return {
        service: now.service - start.service,
        postgres: now.postgres - start.postgres,
        [node.name]: now.node - start.node,
      } as Record<'service' | 'postgres' | Name, number>;
    },
  };
}

/**
 * What a follower bench starts before its runs: the service compiled as its Docker image is, and a
 * throwaway PostgreSQL 15 cluster when a run uses one (stopped by `cleanups`).
 */
export async function prepareRuns(
  databases: readonly DatabaseKind[],
  cleanups: Cleanups,
  log: (message: string) => void,
): Promise<{ build: { main: string; cli: string }; cluster: PgCluster | undefined }> {
  log('compiling chaintags as its Docker image does (nest build)');
  const build = await buildService();
  if (!databases.includes('postgres')) return { build, cluster: undefined };
  log('starting a throwaway PostgreSQL 15 cluster');
  const cluster = await startCluster();
  cleanups.push(() => stopCluster(cluster));
  return { build, cluster };
}
