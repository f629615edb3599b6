import { ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { Client } from 'pg';
import { join } from 'node:path';
import { nodeArgs } from './build';
import { eventually } from './follow-client';

const ROOT = join(__dirname, '..', '..');

/** `npm run --silent cli -- follow` in a process of its own: a worker that can be killed. */
export interface FollowerProcess {
  pid: number;
  /** Everything written to stderr (its log) so far. */
  log: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  signal: (signal: NodeJS.Signals) => void;
  /** SIGKILL if still running, then waits for the end; for afterAll. */
  kill: () => Promise<void>;
}

export function startFollowerProcess(databaseUrl: string, env: Record<string, string>): FollowerProcess {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [...nodeArgs('src/cli/main'), 'follow'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      API_KEYS: '',
      LOG_LEVEL: 'info',
      NODE_ENV: 'production',
      ...env,
    },
  });
  let log = '';
  child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    pid: child.pid!,
    log: () => log,
    exited,
    signal: (signal) => void child.kill(signal),
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** The process holding `chain`'s follower lease on that PostgreSQL database (its `holder`), if any. */
export async function leaseHolder(databaseUrl: string, chain: string): Promise<string | null> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const result = await client.query<{ holder: string | null }>('SELECT holder FROM followers WHERE chain = $1', [
      chain,
    ]);
    return result.rows[0]?.holder ?? null;
  } finally {
    await client.end();
  }
}

/** One failover of two follower processes on one PostgreSQL database, as writerFailsOver runs it. */
export interface Failover {
  databaseUrl: string;
  chain: string;
  env: Record<string, string>;
  /** Where the processes go, for the suite to kill after it. */
  workers: FollowerProcess[];
  /** Makes one payment to the watched address on the node (included in a block); answers its id. */
  pay: () => Promise<string>;
  /** Whether the API lists that payment. */
  recorded: (id: string) => Promise<boolean>;
  /** Payments the first writer records before it is killed, and the standby after. */
  beforeKill: number;
  afterKill: number;
}

/**
 * Starts two follower processes for `chain`: exactly one holds the lease and records, the other
 * stands by; then the writer is SIGKILLed and the standby takes the lease and records the rest.
 * Answers the payments' ids in order.
 */
export async function writerFailsOver(run: Failover): Promise<string[]> {
  const one = startFollowerProcess(run.databaseUrl, run.env);
  const other = startFollowerProcess(run.databaseUrl, run.env);
  run.workers.push(one, other);
  const recorded = (id: string) => async () => ((await run.recorded(id)) ? true : undefined);
  const paid = [await run.pay()];
  await eventually('the first payment', recorded(paid[0]!), 60_000);
  const holder = await eventually(
    'a lease holder',
    async () => (await leaseHolder(run.databaseUrl, run.chain)) ?? undefined,
  );
  const writers = [one, other].filter((worker) => holder.includes(`:${worker.pid}:`));
  expect(writers).toHaveLength(1);
  const standby = writers[0] === one ? other : one;
  await eventually('the other process to stand by', () =>
    Promise.resolve(standby.log().includes('another process follows this chain') ? true : undefined),
  );
  while (paid.length < run.beforeKill) {
    paid.push(await run.pay());
    await eventually('the writer to record a payment', recorded(paid.at(-1)!), 30_000);
  }
  writers[0]!.signal('SIGKILL');
  await writers[0]!.exited;
  for (let made = 0; made < run.afterKill; made += 1) paid.push(await run.pay());
  await eventually('the standby to take over after a crash', recorded(paid.at(-1)!), 30_000);
  expect(await leaseHolder(run.databaseUrl, run.chain)).toContain(`:${standby.pid}:`);
  return paid;
}

/** A follower process killed mid-catch-up, as killedMidCatchUp runs it. */
export interface CatchUpKill {
  databaseUrl: string;
  env: Record<string, string>;
  /** Where the processes go, for the suite to kill after it. */
  workers: FollowerProcess[];
  /** The chain's `indexed_block` in `GET /v2/sync` (null before the first commit). */
  indexed: () => Promise<string | null>;
  /** The node's newest block, which the survivor must reach. */
  head: () => bigint | number;
  /** Slows the node's answers by `delayMs` (0: not), so that the victim is killed between two commits. */
  slow: (delayMs: number) => void;
  /** How slow while the victim runs, default 20 ms. */
  delayMs?: number;
}

/**
 * Starts a follower process on a node that is `head` blocks ahead, SIGKILLs it after its first
 * commit and before it caught up, then starts another that must reach the head. Answers both, for
 * the suite to check that every transfer was recorded once and the kept stats are exact.
 */
export async function killedMidCatchUp(
  run: CatchUpKill,
): Promise<{ victim: FollowerProcess; survivor: FollowerProcess }> {
  run.slow(run.delayMs ?? 20);
  const victim = startFollowerProcess(run.databaseUrl, run.env);
  run.workers.push(victim);
  const reached = await eventually('a first commit', async () => (await run.indexed()) ?? undefined);
  victim.signal('SIGKILL');
  expect((await victim.exited).signal).toBe('SIGKILL');
  expect(BigInt(reached)).toBeLessThan(BigInt(run.head()));
  run.slow(0);
  const survivor = startFollowerProcess(run.databaseUrl, run.env);
  run.workers.push(survivor);
  await eventually(
    'the survivor to reach the head',
    async () => ((await run.indexed()) === String(run.head()) ? true : undefined),
    60_000,
  );
  return { victim, survivor };
}
