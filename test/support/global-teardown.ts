import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { BUILD_ENV } from './build';
import { SQLITE_TEMPLATE_ENV } from './database-templates';
import { PgCluster, stopCluster } from './pg-cluster';

export default function globalTeardown(): void {
  const raw = process.env.CHAINTAGS_TEST_PG;
  if (raw) stopCluster(JSON.parse(raw) as PgCluster);
  for (const folder of [
    process.env[BUILD_ENV],
    process.env[SQLITE_TEMPLATE_ENV] && dirname(process.env[SQLITE_TEMPLATE_ENV]),
  ]) {
    if (folder) rmSync(folder, { recursive: true, force: true });
  }
}
