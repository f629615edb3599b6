import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { SQLITE_TEMPLATE_ENV } from './database-templates';
import { PgCluster, stopCluster } from './pg-cluster';

export default function globalTeardown(): void {
  const raw = process.env.CHAINTAGS_TEST_PG;
  if (raw) stopCluster(JSON.parse(raw) as PgCluster);
  const sqliteTemplate = process.env[SQLITE_TEMPLATE_ENV];
  if (sqliteTemplate) rmSync(dirname(sqliteTemplate), { recursive: true, force: true });
}
