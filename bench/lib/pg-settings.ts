import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import type { PgCluster } from '../../test/support/pg-cluster';

const BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';
const SETTING = /^([a-z_]+(?:\.[a-z_]+)?)=(.+)$/;

/** `name=value` as `--pg-setting` takes it; the name is a PostgreSQL setting, checked by the server. */
export function parseSetting(text: string): [string, string] {
  const match = SETTING.exec(text);
  if (!match)
    throw new Error(
      `--pg-setting takes name=value (like shared_buffers=2GB or auto_explain.log_min_duration=100), got "${text}"`,
    );
  return [match[1]!, match[2]!];
}

/**
 * Changes server settings of the throwaway cluster beyond those test/support/pg-cluster.ts
 * starts it with (ALTER SYSTEM, then a restart with the same command line), so that a run can
 * show what a tuned server changes (said through `log` when given). The cluster runs as the
 * `postgres` user when we are root.
 */
export async function applySettings(
  cluster: PgCluster,
  settings: readonly [string, string][],
  log?: (line: string) => void,
): Promise<void> {
  if (settings.length === 0) return;
  log?.(`PostgreSQL settings: ${settings.map(([name, value]) => `${name}=${value}`).join(', ')}`);
  const client = new Client({ connectionString: cluster.url });
  await client.connect();
  try {
    for (const [name, value] of settings) {
      // A module's setting (auto_explain.log_min_duration) is known once the module is loaded.
      const module = name.includes('.') ? name.slice(0, name.indexOf('.')) : undefined;
      if (module !== undefined) await client.query(`LOAD '${module}'`);
      await client.query(`ALTER SYSTEM SET ${name} = '${value.replace(/'/g, "''")}'`);
    }
  } finally {
    await client.end();
  }
  restart(cluster);
}

/**
 * Takes back what applySettings changed (ALTER SYSTEM RESET ALL, then a restart), for a cluster
 * that outlives the run (`npm run bench:import -- --cluster`).
 */
export async function resetSettings(cluster: PgCluster, log?: (line: string) => void): Promise<void> {
  log?.('PostgreSQL settings: back to those the cluster started with');
  const client = new Client({ connectionString: cluster.url });
  await client.connect();
  try {
    await client.query('ALTER SYSTEM RESET ALL');
  } finally {
    await client.end();
  }
  restart(cluster);
}

function restart(cluster: PgCluster): void {
  const args = ['-D', join(cluster.dir, 'data'), '-l', join(cluster.dir, 'server.log'), '-w', '-t', '60', 'restart'];
  const [file, argv] =
    process.getuid?.() === 0
      ? ['runuser', ['-u', 'postgres', '--', join(BIN, 'pg_ctl'), ...args]]
      : [join(BIN, 'pg_ctl'), args];
  execFileSync(file, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** The values the server reports for these settings, for the results file. */
export async function reportSettings(url: string, names: readonly string[]): Promise<Record<string, string>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const entries: [string, string][] = [];
    for (const name of names) {
      const rows = (await client.query('SELECT current_setting($1) AS value', [name])).rows as { value: string }[];
      entries.push([name, rows[0]!.value]);
    }
    return Object.fromEntries(entries);
  } finally {
    await client.end();
  }
}
