import { startCluster } from './pg-cluster';

/** Starts the PostgreSQL the e2e suites share; each suite creates its own database in it. */
export default async function globalSetup(): Promise<void> {
  const cluster = await startCluster();
  process.env.CHAINTAGS_TEST_PG = JSON.stringify(cluster);
}
