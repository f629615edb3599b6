/** Administration of the bench's throwaway PostgreSQL cluster: databases made fresh, one-off statements. */
import { Client } from 'pg';
import type { PgCluster } from '../../test/support/pg-cluster';

/** One statement on its own connection. */
export async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * A database `name` on the cluster (dropped first if it is there), empty or a copy of database
 * `template`; answers its URL. A copy is made file by file (`STRATEGY FILE_COPY`, which
 * checkpoints before and after), not through the WAL as PostgreSQL 15 does by default: a 1M
 * database copied that way wrote about a gigabyte of WAL, whose checkpoints then ran during the
 * tag load measured on the copy and counted in PostgreSQL's CPU over it (bench/README.md,
 * change 53).
 */
export async function createDatabase(cluster: PgCluster, name: string, template?: string): Promise<string> {
  await adminQuery(cluster.url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await adminQuery(
    cluster.url,
    `CREATE DATABASE ${name}${template === undefined ? '' : ` TEMPLATE ${template} STRATEGY FILE_COPY`}`,
  );
  return cluster.url.replace(/\/postgres$/, `/${name}`);
}

/** The server's version, as `SHOW server_version` gives it. */
export async function serverVersion(url: string): Promise<string> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return ((await client.query('SHOW server_version')).rows[0] as { server_version: string }).server_version;
  } finally {
    await client.end();
  }
}
