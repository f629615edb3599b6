import { startCluster } from './pg-cluster';
import { ensureSystemPackages, SYSTEM_PACKAGES } from './system-packages';

/**
 * Once per run, before the e2e suites: installs the Debian packages the suites start programs from
 * when they are missing, then starts the PostgreSQL the suites share (each suite creates its own
 * database in it).
 */
export default async function globalSetup(): Promise<void> {
  ensureSystemPackages(SYSTEM_PACKAGES);
  const cluster = await startCluster();
  process.env.CHAINTAGS_TEST_PG = JSON.stringify(cluster);
}
