import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A throwaway PostgreSQL 15 cluster in a temp folder on a free loopback port, for the e2e tests and
 * the benchmarks. initdb refuses to run as root, so as root the server runs as the `postgres` user.
 */
export interface PgCluster {
  dir: string;
  port: number;
  url: string;
}

const BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

export async function startCluster(): Promise<PgCluster> {
  if (!existsSync(join(BIN, 'initdb'))) {
    throw new Error(`PostgreSQL server binaries not found in ${BIN} (set PG_BIN to their folder)`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'chaintags-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chmodSync(dir, 0o700);
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const port = await freePort();
  const run = (command: string, args: string[]) => {
    const [file, argv] = asRoot
      ? ['runuser', ['-u', 'postgres', '--', join(BIN, command), ...args]]
      : [join(BIN, command), args];
    execFileSync(file, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  };
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
  const cluster = { dir, port, url: `postgres://postgres@127.0.0.1:${port}/postgres` };
  resumeCluster(cluster);
  return cluster;
}

/** Starts the server of a cluster that startCluster created (again, after pauseCluster). */
export function resumeCluster(cluster: PgCluster): void {
  const options = [
    `-p ${cluster.port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${cluster.dir}`,
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=300',
    // PostgreSQL compiled the kept aggregates' drift check of tag_stats (its reference's correlated
    // counts pass jit_above_cost in the planner's estimate even on a few rows) on every call: 78 of
    // the 110 s PostgreSQL spent executing statements over `npm test`, no other statement compiled.
    '-c jit=off',
  ].join(' ');
  pgCtl(cluster, ['-o', options, '-l', join(cluster.dir, 'server.log'), '-w', '-t', '60', 'start']);
}

/** Stops the server and keeps its data, as an outage would (fast shutdown: sessions are ended). */
export function pauseCluster(cluster: PgCluster): void {
  pgCtl(cluster, ['-m', 'fast', '-w', '-t', '60', 'stop']);
}

function pgCtl(cluster: PgCluster, args: string[]): void {
  const argv = [join(BIN, 'pg_ctl'), '-D', join(cluster.dir, 'data'), ...args];
  const [file, rest] =
    process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', ...argv]] : [argv[0]!, argv.slice(1)];
  execFileSync(file, rest, { stdio: ['ignore', 'ignore', 'pipe'] });
}

export function stopCluster(cluster: PgCluster): void {
  const asRoot = process.getuid?.() === 0;
  const args = ['-D', join(cluster.dir, 'data'), '-m', 'immediate', '-w', 'stop'];
  try {
    if (asRoot) execFileSync('runuser', ['-u', 'postgres', '--', join(BIN, 'pg_ctl'), ...args], { stdio: 'ignore' });
    else execFileSync(join(BIN, 'pg_ctl'), args, { stdio: 'ignore' });
  } finally {
    rmSync(cluster.dir, { recursive: true, force: true });
  }
}

/** A TCP port on the loopback interface that nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
