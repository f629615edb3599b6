import { ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { nodeArgs } from './build';
import { freePort } from './pg-cluster';

const ROOT = join(__dirname, '..', '..');
const START_TIMEOUT_MS = 60_000;

/** chaintags started as `node src/main.ts` would be, in a process of its own. */
export interface ServerProcess {
  port: number;
  url: string;
  pid: number;
  /** Everything written to stdout so far. */
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (or the signal) once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  signal: (signal: NodeJS.Signals) => void;
  /** The exit code, or null while the process runs. */
  exitCode: () => number | null;
  /** SIGKILL if still running; for afterAll. */
  kill: () => Promise<void>;
}

/**
 * Starts the server with `env` on top of a quiet default (JSON logs at `warn`, rate limit off) and
 * resolves once it prints its "listening" line. `npmStart`: through `npm start` itself, as the
 * README's quick start runs it (the sources compiled as they load), rather than this run's build.
 */
export async function startServerProcess(env: Record<string, string>, npmStart = false): Promise<ServerProcess> {
  const port = await freePort();
  const [file, args] = npmStart ? npmCommand(['start']) : [process.execPath, nodeArgs('src/main')];
  const child: ChildProcessWithoutNullStreams = spawn(file, args, {
    cwd: ROOT,
    // npm does not pass a signal on to the server it started: both are signalled as a group, as a
    // terminal's Ctrl-C signals them.
    detached: npmStart,
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '0',
      API_KEYS: '',
      ...env,
      PORT: String(port),
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const server: ServerProcess = {
    port,
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    signal: (signal) => (npmStart ? process.kill(-child.pid!, signal) : void child.kill(signal)),
    exitCode: () => child.exitCode,
    kill: async () => {
      if (npmStart) {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // The group has ended already.
        }
      } else if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
  await new Promise<void>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(
      () => fail(new Error(`the server did not start within ${START_TIMEOUT_MS} ms`)),
      START_TIMEOUT_MS,
    );
    const onData = () => {
      if (settled || !stdout.includes('chaintags listening on')) return;
      settled = true;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      resolve();
    };
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      void server.kill().then(() => reject(new Error(`${error.message}\n${stderr}`)));
    };
    child.stdout.on('data', onData);
    void exited.then(({ code }) => fail(new Error(`the server exited with code ${code} at start`)));
  });
  return server;
}

/** `npm <args>` as a file and its arguments: under `npm test`, npm's own script run by this node. */
export function npmCommand(args: string[]): [file: string, args: string[]] {
  const npm = process.env.npm_execpath;
  return npm && npm.endsWith('.js') ? [process.execPath, [npm, ...args]] : ['npm', args];
}
