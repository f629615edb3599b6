import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, release, totalmem } from 'node:os';
import { join, relative } from 'node:path';
import { freePort } from '../../test/support/pg-cluster';
import type { Cleanups } from './lifecycle';

/** The repository root: the service and the floor run from here, like `npm start` would. */
export const ROOT = join(__dirname, '..', '..');

/** A server the benchmark started (the service or the floor) in its own Node.js process. */
export interface Server {
  name: string;
  port: number;
  pid: number;
  /** Resident set size now and its peak so far, in MiB (Linux /proc). */
  memory(): { rssMb: number; peakMb: number };
  /** CPU time the process has used so far (user + system), in seconds (Linux /proc). */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  databaseUrl: string;
  /** `account:key,…`, as API_KEYS takes it. */
  apiKeys: string;
  logFile: string;
  /** Writes a V8 CPU profile (node --cpu-prof) into this folder when the service stops. */
  cpuProfileDir?: string;
  /** More settings for the service (FOLLOW, RPC_URL_<CHAIN>, …), over those below. */
  env?: Record<string, string>;
  /** Its log lines (standard output: request logs included) into `logFile` too, rather than nowhere. */
  logStdout?: boolean;
}

/** Where `buildService` compiles chaintags; inside node_modules so that its imports resolve from there. */
export const BUILD_DIR = join(ROOT, 'node_modules', '.cache', 'chaintags-bench');

/**
 * Compiles chaintags the way its Docker image does (`nest build`, with the Swagger plugin), into
 * BUILD_DIR rather than dist/, so that a benchmark never replaces a build someone else is using.
 */
export async function buildService(): Promise<{ main: string; cli: string }> {
  mkdirSync(BUILD_DIR, { recursive: true });
  const tsconfig = join(BUILD_DIR, 'tsconfig.json');
  writeFileSync(
    tsconfig,
    JSON.stringify({
      extends: relative(BUILD_DIR, join(ROOT, 'tsconfig.build.json')),
      compilerOptions: { outDir: './build', sourceMap: false },
    }),
  );
  await new Promise<void>((resolve, reject) => {
    const child = spawn(join(ROOT, 'node_modules', '.bin', 'nest'), ['build', '-p', relative(ROOT, tsconfig)], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), BUILD_TIMEOUT_MS);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`nest build failed (exit ${code})`));
    });
  });
  return { main: join(BUILD_DIR, 'build', 'src', 'main.js'), cli: join(BUILD_DIR, 'build', 'src', 'cli', 'main.js') };
}

/**
 * chaintags as its Docker image runs it (the compiled main.js, NODE_ENV=production), with request
 * logging at its default level into /dev/null and the rate limit raised out of reach, so that the
 * limiter still runs on every request but never answers 429.
 */
export function startService(main: string, options: ServiceOptions): Promise<Server> {
  return startNode('service', [main], options.logFile, options.cpuProfileDir, options.logStdout ?? false, (port) => ({
    PORT: String(port),
    DATABASE_URL: options.databaseUrl,
    API_KEYS: options.apiKeys,
    LOG_LEVEL: 'info',
    RATE_LIMIT_PER_MINUTE: '10000000',
    NODE_ENV: 'production',
    ...options.env,
  }));
}

/** bench/floor.ts, through @swc-node/register like the project's other scripts. */
export function startFloor(databaseUrl: string, logFile: string): Promise<Server> {
  return startNode('floor', ['-r', '@swc-node/register', 'bench/floor.ts'], logFile, undefined, false, (port) => ({
    FLOOR_PORT: String(port),
    DATABASE_URL: databaseUrl,
    NODE_ENV: 'production',
  }));
}

const BUILD_TIMEOUT_MS = 300_000;
const START_TIMEOUT_MS = 120_000;
const EXIT_ON_SIGNAL = join(__dirname, 'exit-on-signal.ts');
const STOP_TIMEOUT_MS = 20_000;

async function startNode(
  name: string,
  script: string[],
  logFile: string,
  cpuProfileDir: string | undefined,
  logStdout: boolean,
  environment: (port: number) => Record<string, string>,
): Promise<Server> {
  const port = await freePort();
  const profiling = cpuProfileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`];
  const preload = cpuProfileDir === undefined ? [] : ['-r', '@swc-node/register', '-r', EXIT_ON_SIGNAL];
  const log = openSync(logFile, 'a');
  const child = spawn(process.execPath, [...profiling, ...preload, ...script], {
    cwd: ROOT,
    env: { ...process.env, ...environment(port) },
    stdio: ['ignore', logStdout ? log : 'ignore', log],
  });
  closeSync(log);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await waitHealthy(name, port, exited, logFile);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    name,
    port,
    pid: child.pid!,
    memory: () => memoryOf(child.pid!),
    cpuSeconds: () => cpuSecondsOf(child.pid!),
    stop: () => stopChild(child, exited, cpuProfileDir !== undefined),
  };
}

async function waitHealthy(name: string, port: number, exited: Promise<number | null>, logFile: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  while (Date.now() < deadline) {
    if (exitCode !== undefined) throw new Error(`the ${name} exited with code ${exitCode} at start; see ${logFile}`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2000) });
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await sleep(200);
  }
  throw new Error(`the ${name} did not answer /health within ${START_TIMEOUT_MS / 1000} s; see ${logFile}`);
}

/** SIGUSR2 lets a profiled process exit normally (exit-on-signal.ts) so V8 writes its profile. */
async function stopChild(child: ChildProcess, exited: Promise<number | null>, profiled: boolean): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill(profiled ? 'SIGUSR2' : 'SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

/** Resident set size of a process now and its peak so far, in MiB (Linux /proc). */
export function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: kib('VmRSS') / 1024, peakMb: kib('VmHWM') / 1024 };
}

/** Fields 14 and 15 of /proc/<pid>/stat, in clock ticks of 1/100 s (USER_HZ on Linux). */
export function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * `chaintags stats verify` (the compiled CLI) on a database: the kept aggregates against their
 * reference computation. It prints one JSON line and exits 1 on drift, which is an answer here, so
 * the output is read whatever that exit code.
 */
export function statsVerify(cli: string, databaseUrl: string): { exact: boolean; drift: Record<string, number> } {
  const run = spawnSync(process.execPath, [cli, 'stats', 'verify'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    encoding: 'utf8',
    timeout: 1_800_000,
    maxBuffer: 64 << 20,
  });
  if (run.status !== 0 && run.status !== 1) throw new Error(`stats verify failed: ${run.stderr.slice(-2000)}`);
  const summary = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as {
    exact: boolean;
    drift: Record<string, number>;
  };
  return { exact: summary.exact, drift: summary.drift };
}

/**
 * CPU time (user + system, in seconds) of a process and its children, such as a PostgreSQL
 * server and its backends: those alive now, and those that ended and were waited for by it (its
 * `cutime` and `cstime`), so that a backend closed between two readings (the service's pool
 * closes connections idle for 10 s) still counts.
 */
export function processTreeCpuSeconds(root: number): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(entry) === root)
        total += (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100;
      else if (Number(fields[1]) === root) total += (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      // Ended while listed.
    }
  }
  return total;
}

/**
 * The machine's CPU time so far, in clock ticks, from the `cpu` line of /proc/stat: all of it
 * (user, nice, system, idle, iowait, irq, softirq, steal; guest time is already in user and nice)
 * and the part stolen by the host for other guests. NaN where /proc/stat cannot be read.
 */
export function machineTicks(): { total: number; steal: number } {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
    return { total: ticks.reduce((sum, value) => sum + value, 0), steal: ticks[7] ?? NaN };
  } catch {
    return { total: NaN, steal: NaN };
  }
}

/**
 * Runs a program to its end and answers its output; a failure, or the timeout (the process is
 * killed), rejects with the end of its standard error. An interrupted run kills it through `cleanups`.
 */
export function runProcess(
  file: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs: number,
  cleanups: Cleanups,
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(file, args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stop = () => {
      child.kill('SIGKILL');
    };
    cleanups.push(stop);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.length > 1 << 20) stderr = stderr.slice(-(1 << 19));
    });
    const timer = setTimeout(stop, timeoutMs);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      cleanups.remove(stop);
      if (code === 0) resolve({ stdout, stderr });
      else reject(new Error(`${file} ${args.join(' ')} failed (${signal ?? `exit ${code}`}): ${stderr.slice(-2000)}`));
    });
  });
}

/** The machine a results file describes: CPU model and count, memory, Node.js and the kernel. */
export function hostFacts(): { cpu: string; cpus: number; memoryGb: number; node: string; kernel: string } {
  return {
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    cpus: cpus().length,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    kernel: release(),
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
