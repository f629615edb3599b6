import { ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { nodeArgs } from './build';

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
