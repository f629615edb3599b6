import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { version } from '../../../package.json';
import type { ChainId } from '../../core/chains/chain-ids';

/** The database pool's state at one moment (PostgreSQL; SQLite has no pool). */
export interface PoolFigures {
  inUse: number;
  idle: number;
  /** Statements waiting for a connection. */
  waiting: number;
  max: number;
}

/** A followed chain as `GET /v2/sync` shows it, for the follower gauges. */
export interface FollowerState {
  chain: ChainId;
  status: (typeof FOLLOWER_STATUSES)[number];
  /** The chain's latest block, as last seen (undefined before the first report). */
  head: bigint | undefined;
  /** The last block whose data is committed. */
  indexed: bigint | undefined;
  /** When the process following the chain last recorded a turn, in ms since the epoch. */
  updatedAt: number | undefined;
  /** How many addresses still have their earlier history read. */
  backfillAddresses: number;
}

/** The states `chaintags_follower_status` has a series for, one of them 1. */
export const FOLLOWER_STATUSES = ['synced', 'syncing', 'error'] as const;

/**
 * chaintags' Prometheus metrics, in a registry of its own (so that several applications in one
 * process, as in the tests, never collide). Other code reports through this service:
 *
 * - the HTTP middleware counts requests and their latency (`httpMetrics`);
 * - the database pool is read at scrape time from the source given to `observePool`;
 * - the followers are read at scrape time from the source given to `observeFollowers`: their rows
 *   in the database, so every process shows every chain, whichever process follows it;
 * - a price source increments `priceSourceErrors` on each failed request.
 *
 * Labels hold only route templates, methods, status codes, chain ids and fixed words: never an
 * account, key, tag or address, whose number has no bound and which must not leave the service.
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'chaintags_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status ("aborted" when the client left first).',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'chaintags_http_request_duration_seconds',
    help: 'Time from a request reaching the service to its answer being sent, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  /** Always 1, the running version in its label: a dashboard joins it to tell a rollout's replicas apart. */
  private readonly buildInfo = new Gauge({
    name: 'chaintags_build_info',
    help: 'Always 1; the version running (package.json) in the label.',
    labelNames: ['version'] as const,
    registers: [this.registry],
  });

  readonly priceSourceErrors = new Counter({
    name: 'chaintags_price_source_errors_total',
    help: 'Failed requests to the price source.',
    registers: [this.registry],
  });

  readonly rateLimitStorageErrors = new Counter({
    name: 'chaintags_rate_limit_storage_errors_total',
    help: 'Requests let through unlimited because the rate-limit storage (Redis) did not answer.',
    registers: [this.registry],
  });

  constructor() {
    this.buildInfo.set({ version }, 1);
  }

  /** Node.js process metrics (CPU, memory, event loop lag, GC), collected at scrape time. */
  collectProcessMetrics(): void {
    collectDefaultMetrics({ register: this.registry });
  }

  /**
   * Adds the pool gauges, read from `source` at each scrape. Called once the database is known to
   * have a pool: on SQLite (one connection, statements queued in the process) there are none.
   */
  observePool(source: () => PoolFigures): void {
    const gauge = (name: string, help: string, read: (figures: PoolFigures) => number) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect(this: Gauge) {
          this.set(read(source()));
        },
      });
    gauge(
      'chaintags_db_pool_connections_in_use',
      'Database connections running a statement or transaction.',
      (f) => f.inUse,
    );
    gauge('chaintags_db_pool_connections_idle', 'Open database connections waiting for work.', (f) => f.idle);
    gauge('chaintags_db_pool_waiting', 'Statements waiting for a free database connection.', (f) => f.waiting);
    gauge('chaintags_db_pool_connections_max', 'The most connections the pool opens.', (f) => f.max);
  }

  /**
   * Adds the follower gauges, filled at each scrape from `source`: the followed chains as the
   * database records them (`GET /v2/sync`'s rows), so an API process shows the chains a `follow`
   * worker or another replica follows. A chain that is not followed has no series.
   */
  observeFollowers(source: () => Promise<readonly FollowerState[]>): void {
    const gauge = <L extends string>(
      name: string,
      help: string,
      labelNames: readonly L[],
      fill: (gauge: Gauge<L>, state: FollowerState) => void,
    ) =>
      new Gauge<L>({
        name,
        help,
        labelNames,
        registers: [this.registry],
        async collect(this: Gauge<L>) {
          const states = await source();
          this.reset();
          for (const state of states) fill(this, state);
        },
      });
    const chainGauge = (name: string, help: string, value: (state: FollowerState) => bigint | number | undefined) =>
      gauge(name, help, ['chain'], (figure, state) => {
        const read = value(state);
        if (read !== undefined) figure.set({ chain: state.chain }, Number(read));
      });
    chainGauge('chaintags_follower_head_block', "The chain's latest block, as last seen.", (state) => state.head);
    chainGauge('chaintags_follower_indexed_block', 'The last block whose data is committed.', (state) => state.indexed);
    chainGauge('chaintags_follower_lag_blocks', 'Blocks between the head and the last committed block.', (state) =>
      state.head === undefined || state.indexed === undefined ? undefined : state.head - state.indexed,
    );
    chainGauge(
      'chaintags_follower_updated_timestamp_seconds',
      'When the process following the chain last recorded a turn (seconds since the epoch).',
      (state) => (state.updatedAt === undefined ? undefined : state.updatedAt / 1000),
    );
    chainGauge(
      'chaintags_follower_backfill_addresses',
      'Tracked addresses whose earlier history is still being read (backfills not done).',
      (state) => state.backfillAddresses,
    );
    gauge(
      'chaintags_follower_status',
      'The status GET /v2/sync shows: 1 for the current one of synced, syncing and error, 0 for the others.',
      ['chain', 'status'],
      (figure, state) => {
        for (const status of FOLLOWER_STATUSES)
          figure.set({ chain: state.chain, status }, status === state.status ? 1 : 0);
      },
    );
  }
}
