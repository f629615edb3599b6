import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { parseDatabaseUrl } from '../../src/config/config';
import { dataSourceOptions, openDataSource } from '../../src/database/data-source';
import { Db } from '../../src/database/db.service';
import { ReferenceDataService } from '../../src/database/reference-data.service';
import type { PgCluster } from './pg-cluster';

/** The PostgreSQL database every fresh test database is copied from (CREATE DATABASE … TEMPLATE). */
export const PG_TEMPLATE = 'ct_template';

/** Set by the e2e global setup: the migrated, seeded SQLite file that freshDatabase('sqlite') copies. */
export const SQLITE_TEMPLATE_ENV = 'CHAINTAGS_TEST_SQLITE_TEMPLATE';

/**
 * Migrates an empty database and seeds its reference data, as a server's first start does, and
 * nothing else: no keys, no cursor secret, nothing a start writes for one instance. Each database
 * the suites get is a copy, so every suite still starts on its own database, migrated once per run.
 */
async function migrateAndSeed(url: string): Promise<void> {
  const dataSource = await openDataSource(dataSourceOptions(parseDatabaseUrl(url)));
  try {
    await new ReferenceDataService(new Db(dataSource)).onModuleInit();
  } finally {
    await dataSource.destroy();
  }
}

export async function createPostgresTemplate(cluster: PgCluster): Promise<void> {
  const admin = new Client({ connectionString: cluster.url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${PG_TEMPLATE}`);
  } finally {
    await admin.end();
  }
  await migrateAndSeed(cluster.url.replace(/\/postgres$/, `/${PG_TEMPLATE}`));
}

/** Answers the path of the template file, in a temporary folder of its own. */
export async function createSqliteTemplate(): Promise<string> {
  const path = join(mkdtempSync(join(tmpdir(), 'chaintags-sqlite-template-')), 'template.sqlite');
  await migrateAndSeed(`sqlite:${path}`);
  // Closing checkpoints the write-ahead log into the file: the file alone is the whole database.
  if (existsSync(`${path}-wal`)) throw new Error(`the SQLite template left a write-ahead log beside ${path}`);
  return path;
}
