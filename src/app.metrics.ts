import { Provider } from '@nestjs/common';
import { Db } from './database/db.service';
import { Metrics } from './http/metrics/metrics.service';

/** Gives /metrics the database pool's figures, read at each scrape (PostgreSQL only). */
export const DB_POOL_METRICS: Provider = {
  provide: 'DB_POOL_METRICS',
  inject: [Metrics, Db],
  useFactory: (metrics: Metrics, db: Db): void => {
    const pool = db.postgresPool();
    if (pool === undefined) return;
    metrics.observePool(() => ({
      inUse: pool.totalCount - pool.idleCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
      max: pool.options.max ?? 10,
    }));
  },
};
