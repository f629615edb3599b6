/**
 * Operational behaviour of a real server process on a throwaway PostgreSQL, measured the way an
 * operator meets it (the figures are in bench/README.md, "Shutdown and database outage"):
 *
 * - fired: N requests written on new connections, SIGTERM the moment the last one is written.
 *   Counts the requests that got an answer, the exit code and the time from SIGTERM to exit.
 * - held: N requests held in flight by a table lock, SIGTERM, then the lock is released. Counts
 *   the requests that got an answer, the exit code and the time from SIGTERM to exit.
 * - busy: N keep-alive clients sending requests back to back, SIGTERM in the middle. Counts the
 *   requests that were sent and then lost their connection without an answer.
 * - outage: PostgreSQL stopped under a running server, then started again. The status codes and
 *   Retry-After of API requests and /health, during the outage and after it.
 *
 * - settings (not in the default run): CPU per request and latency of GET /v2/chains with
 *   METRICS off, on, and on with REDIS_URL (a throwaway redis-server).
 *
 *   node -r @swc-node/register bench/operations.ts [--requests 40] [--scenarios fired,held,busy,outage,settings]
 */
import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { Client } from 'pg';
import {
  freePort,
  pauseCluster,
  PgCluster,
  resumeCluster,
  startCluster,
  stopCluster,
} from '../test/support/pg-cluster';
import { startRedis } from '../test/support/redis-server';
import { drive, LoadResult } from './lib/load';
import { cpuSecondsOf, ROOT, sleep } from './lib/processes';

const KEY = `ctk_${'b'.repeat(32)}`;

interface Answer {
  status?: number;
  retryAfter?: string;
  error?: string;
  /** Sent on a keep-alive connection that had already carried a request. */
  reused?: boolean;
}

interface Server {
  port: number;
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

function get(port: number, path: string, agent: Agent | false = false, onSent?: () => void): Promise<Answer> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, agent, headers: { 'X-API-Key': KEY } }, (res) => {
      res.resume();
      res.once('end', () => resolve({ status: res.statusCode, retryAfter: res.headers['retry-after'] }));
      res.once('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    });
    req.once('error', (error: NodeJS.ErrnoException) =>
      resolve({ error: error.code ?? error.message, reused: req.reusedSocket }),
    );
    req.end(onSent);
  });
}

async function startServer(databaseUrl: string, env: Record<string, string> = {}): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, ['-r', '@swc-node/register', join(ROOT, 'src/main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      API_KEYS: `bench:${KEY}`,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '0',
      NODE_ENV: 'production',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
    at: performance.now(),
  }));
  for (let attempt = 0; attempt < 600; attempt += 1) {
    if ((await get(port, '/health')).status === 200) return { port, child, exited };
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error('the server did not become healthy');
}

function step(text: string): void {
  process.stderr.write(`operations: ${text}\n`);
}

function count(answers: Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const answer of answers) {
    const connection = answer.reused ? 'kept-alive connection' : 'new connection';
    const label = answer.status === undefined ? `no answer (${answer.error}, ${connection})` : String(answer.status);
    counts[label] = (counts[label] ?? 0) + 1;
  }
  return counts;
}

async function lockWaiters(admin: Client): Promise<number> {
  const { rows } = await admin.query<{ n: string }>(
    "SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
  );
  return Number(rows[0]!.n);
}

/** Requests held by an exclusive lock on `tags` while SIGTERM arrives; the lock is then released. */
async function held(databaseUrl: string, requests: number): Promise<Record<string, unknown>> {
  step('held: starting the server');
  const server = await startServer(databaseUrl);
  step('held: locking tags and sending the requests');
  const locker = new Client({ connectionString: databaseUrl });
  await locker.connect();
  await locker.query('BEGIN');
  await locker.query('LOCK TABLE tags IN ACCESS EXCLUSIVE MODE');
  const answers = Array.from({ length: requests }, () => get(server.port, '/v2/tags'));
  // A session inside a transaction sees one snapshot of pg_stat_activity, so another one watches.
  // The pool holds 20 connections: the rest of the requests wait for one inside the server.
  const watcher = new Client({ connectionString: databaseUrl });
  await watcher.connect();
  while ((await lockWaiters(watcher)) < Math.min(requests, 20)) await sleep(20);
  await watcher.end();
  await sleep(300);
  step('held: SIGTERM');
  const signalled = performance.now();
  server.child.kill('SIGTERM');
  await sleep(500);
  const aliveAfter500ms = server.child.exitCode === null && server.child.signalCode === null;
  await locker.query('COMMIT').catch(() => undefined);
  await locker.end();
  const settled = await Promise.all(answers);
  const exit = await server.exited;
  step('held: done');
  return {
    requests,
    answers: count(settled),
    aliveAfter500ms,
    exit: exit.signal ?? exit.code,
    msFromSigtermToExit: Math.round(exit.at - signalled),
  };
}

/** N requests on new connections, written to the socket; SIGTERM the moment the last one is. */
async function fired(databaseUrl: string, requests: number): Promise<Record<string, unknown>> {
  step('fired: starting the server');
  const server = await startServer(databaseUrl);
  let sent = 0;
  let allSent: () => void = () => undefined;
  const written = new Promise<void>((resolve) => (allSent = resolve));
  const answers = Array.from({ length: requests }, () =>
    get(server.port, '/v2/tags', false, () => {
      sent += 1;
      if (sent === requests) allSent();
    }),
  );
  await written;
  const signalled = performance.now();
  server.child.kill('SIGTERM');
  const settled = await Promise.all(answers);
  const exit = await server.exited;
  return {
    requests,
    answers: count(settled),
    exit: exit.signal ?? exit.code,
    msFromSigtermToExit: Math.round(exit.at - signalled),
  };
}

/**
 * Keep-alive clients sending back to back; SIGTERM after a second of it. The clients stop 15 s
 * after the signal; a server still running then is killed and reported so.
 */
async function busy(databaseUrl: string, clients: number): Promise<Record<string, unknown>> {
  step('busy: starting the server');
  const server = await startServer(databaseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  let signalled = false;
  let stopped = false;
  const before: Answer[] = [];
  const after: Answer[] = [];
  const loops = Array.from({ length: clients }, async () => {
    while (!stopped) {
      const sentAfterSignal = signalled;
      const answer = await get(server.port, '/v2/tags', agent);
      (sentAfterSignal ? after : before).push(answer);
      if (answer.status === undefined) return;
    }
  });
  await sleep(1000);
  signalled = true;
  const at = performance.now();
  step('busy: SIGTERM');
  server.child.kill('SIGTERM');
  const exitedInTime = await Promise.race([server.exited.then(() => true), sleep(15_000).then(() => false)]);
  stopped = true;
  await Promise.all(loops);
  if (!exitedInTime) server.child.kill('SIGKILL');
  const exit = await server.exited;
  agent.destroy();
  return {
    clients,
    sentBeforeSigterm: count(before),
    sentAfterSigterm: count(after),
    exit: exitedInTime ? (exit.signal ?? exit.code) : 'still running 15 s after SIGTERM (killed)',
    msFromSigtermToExit: exitedInTime ? Math.round(exit.at - at) : undefined,
  };
}

/** PostgreSQL stopped (fast shutdown) under a running server, then started again. */
async function outage(cluster: PgCluster, databaseUrl: string, requests: number): Promise<Record<string, unknown>> {
  step('outage: starting the server');
  const server = await startServer(databaseUrl);
  // Warm the pool so that the outage also hits connections that were open.
  await Promise.all(Array.from({ length: 20 }, () => get(server.port, '/v2/tags')));
  pauseCluster(cluster);
  const down = await Promise.all(Array.from({ length: requests }, () => get(server.port, '/v2/tags')));
  const healthDown = await get(server.port, '/health');
  resumeCluster(cluster);
  const up = await Promise.all(Array.from({ length: requests }, () => get(server.port, '/v2/tags')));
  const healthUp = await get(server.port, '/health');
  server.child.kill('SIGTERM');
  await server.exited;
  return {
    requests,
    duringOutage: count(down),
    retryAfterDuringOutage: [...new Set(down.map((answer) => answer.retryAfter ?? '-'))],
    healthDuringOutage: healthDown.status,
    afterRestart: count(up),
    healthAfterRestart: healthUp.status,
  };
}

/**
 * What METRICS and REDIS_URL cost a light request: GET /v2/chains at 10 connections, the rate
 * limiter running on every request (its limit out of reach), two rounds of each setting in turn.
 */
async function settings(databaseUrl: string): Promise<Record<string, unknown>> {
  const redis = await startRedis();
  const variants: Record<string, Record<string, string>> = {
    'METRICS=off': { METRICS: 'off' },
    'METRICS=on': { METRICS: 'on' },
    'METRICS=on, REDIS_URL': { METRICS: 'on', REDIS_URL: redis.url },
  };
  const results: Record<string, LoadResult[]> = {};
  try {
    for (let round = 0; round < 2; round += 1) {
      for (const [name, env] of Object.entries(variants)) {
        step(`settings: ${name}, round ${round + 1}`);
        const server = await startServer(databaseUrl, { RATE_LIMIT_PER_MINUTE: '10000000', ...env });
        const load = { port: server.port, paths: ['/v2/chains'], headers: { 'X-API-Key': KEY }, connections: 10 };
        await drive({ ...load, seconds: 3 });
        const cpuBefore = cpuSecondsOf(server.child.pid!);
        const result = await drive({ ...load, seconds: 10 });
        result.cpuMsPerRequest = ((cpuSecondsOf(server.child.pid!) - cpuBefore) * 1000) / result.requests;
        (results[name] ??= []).push(result);
        server.child.kill('SIGTERM');
        await server.exited;
      }
    }
  } finally {
    await redis.stop();
  }
  return Object.fromEntries(
    Object.entries(results).map(([name, runs]) => [
      name,
      runs.map((run) => ({
        rps: Math.round(run.rps),
        p50: run.p50,
        p99: run.p99,
        cpuMsPerRequest: Number(run.cpuMsPerRequest!.toFixed(3)),
        non2xx: run.non2xx,
      })),
    ]),
  );
}

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

async function main(): Promise<void> {
  const requests = Number(option('requests', '40'));
  const scenarios = option('scenarios', 'fired,held,busy,outage').split(',');
  const cluster = await startCluster();
  const stop = () => {
    stopCluster(cluster);
    process.exit(1);
  };
  process.once('SIGINT', stop).once('SIGTERM', stop);
  try {
    const admin = new Client({ connectionString: cluster.url });
    await admin.connect();
    await admin.query('CREATE DATABASE ops');
    await admin.end();
    const databaseUrl = cluster.url.replace(/\/postgres$/, '/ops');
    const run: Record<string, () => Promise<Record<string, unknown>>> = {
      fired: () => fired(databaseUrl, requests),
      held: () => held(databaseUrl, requests),
      busy: () => busy(databaseUrl, requests),
      outage: () => outage(cluster, databaseUrl, requests),
      settings: () => settings(databaseUrl),
    };
    const results: Record<string, unknown> = {};
    for (const name of scenarios) results[name] = await run[name]!();
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  } finally {
    stopCluster(cluster);
  }
}

void main();
