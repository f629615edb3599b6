import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { freePort } from './pg-cluster';

/** redis-server from Debian's package (the e2e global setup installs it when missing); REDIS_SERVER overrides. */
const BINARY = process.env.REDIS_SERVER ?? '/usr/bin/redis-server';

/** A throwaway Redis on a free loopback port, without persistence, for the tests that need one. */
export interface RedisServer {
  url: string;
  stop: () => Promise<void>;
}

export async function startRedis(): Promise<RedisServer> {
  if (!existsSync(BINARY)) throw new Error(`redis-server not found at ${BINARY} (apt-get install redis-server)`);
  const port = await freePort();
  const child: ChildProcess = spawn(
    BINARY,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 20_000;
  while (!(await answersPing(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not start on port ${port}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
  });
}
