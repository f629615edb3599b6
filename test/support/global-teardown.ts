import { PgCluster, stopCluster } from './pg-cluster';

export default function globalTeardown(): void {
  const raw = process.env.CHAINTAGS_TEST_PG;
  if (raw) stopCluster(JSON.parse(raw) as PgCluster);
}
