import { rmSync } from 'node:fs';
import { BUILD_ENV, compileProject } from './build';
import { createPostgresTemplate, createSqliteTemplate, SQLITE_TEMPLATE_ENV } from './database-templates';
import { startCluster, stopCluster, type PgCluster } from './pg-cluster';
import { ensureSystemPackages, SYSTEM_PACKAGES } from './system-packages';

/**
 * Once per run, before the e2e suites: installs the Debian packages the suites start programs from
 * when they are missing, starts the PostgreSQL the suites share (each suite creates its own
 * databases in it), migrates the database templates, and compiles the project for the processes
 * the suites spawn. What it starts and writes, it records in the environment the suites inherit
 * (global-teardown.ts removes it); if a step fails, it removes what the earlier ones made.
 */
export default async function globalSetup(): Promise<void> {
  ensureSystemPackages(SYSTEM_PACKAGES);
  const build = compileProject();
  let cluster: PgCluster | undefined;
  try {
    cluster = await startCluster();
    process.env.CHAINTAGS_TEST_PG = JSON.stringify(cluster);
    const [sqliteTemplate] = await Promise.all([createSqliteTemplate(), createPostgresTemplate(cluster)]);
    process.env[SQLITE_TEMPLATE_ENV] = sqliteTemplate;
  } catch (error) {
    if (cluster) stopCluster(cluster);
    rmSync(await build, { recursive: true, force: true });
    throw error;
  }
  process.env[BUILD_ENV] = await build;
}
