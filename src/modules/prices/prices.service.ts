import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy, Optional } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { Gauge } from 'prom-client';

import { setTimeout as sleep } from 'node:timers/promises';
import { APP_CONFIG, AppConfig, PriceSourceConfig } from '../../config/config';
import { Metrics } from '../../http/metrics/metrics.service';
import { LeasedWorker, LeaseLost, type TurnResult } from '../../workers/leased-worker';
import { nextPollDelay } from './poll-schedule';
import { MalformedAnswer, planRequests, priceTarget, Quote, readAnswer, Rejected } from './price-quotes';
import { PriceSourceClient, PriceSourceError } from './price-source.client';
import { PricesRepository } from './prices.repository';

/** What one turn of the poller did; emitted as the `poll` event. */
export interface PollReport {
  /** `standby`: another process holds the lease and polls; this one did nothing. */
  role: 'holder' | 'standby';
  /** Requests sent to the source. */
  requests: number;
  stored: number;
  unchanged: number;
  /** Tokens whose answer was absurd (not stored). */
  rejected: number;
  /** Tokens the source does not know. */
  unknown: number;
  /** Tokens not asked about: the source knew nothing of them when last asked, less than a day ago. */
  skipped: number;
  /** Why the source failed this poll; the prices gathered before the failure are stored. */
  failure?: { kind: PriceSourceError['kind']; message: string };
  /** The database could not be read or written: nothing was stored. */
  databaseError?: string;
  /** When the next poll is due. */
  nextPollMs: number;
}

/** What the poller has done since the process started, for metrics and health. */
export interface PricePollerStatus {
  enabled: boolean;
  role: 'off' | 'starting' | 'holder' | 'standby';
  /** Completed turns (standby turns included). */
  polls: number;
  /** Polls the source failed: a timeout, an error status, an unreadable answer. Only ever grows. */
  sourceErrors: number;
  /** Answer entries refused as absurd. Only ever grows. */
  rejectedValues: number;
  /** Price rows written. Only ever grows. */
  storedPrices: number;
  /** Consecutive failed polls; 0 while the source answers. */
  failureStreak: number;
  lastSuccessAt: string | null;
}

/** How long a claim made at the start of a poll stands if the holder never comes back. */
const POLL_LEASE_MS = 600_000;
/** How long past its next poll a holder's lease stands, so a slow poll does not hand it over. */
const LEASE_SLACK_MS = 60_000;

/**
 * Keeps prices fresh from a CoinGecko-compatible source (contract §11).
 *
 * Every PRICE_REFRESH_SECONDS it asks the source about every token: by id, or by contract for tokens
 * a follower discovered, in batches spaced for the plan's rate limit. What the source answers
 * sensibly is stored with its `last_updated_at`; absurd values and unknown tokens are left out and
 * logged once per token, and a token the source does not know is asked about again a day later. A
 * failing source (timeout, 429, 5xx, an answer that is not prices) keeps the last prices, logs one
 * line per failure streak, and is asked again after an exponential back-off that honours
 * `Retry-After`. The API never waits on the source.
 *
 * Processes sharing a database take turns through a lease row: one holder polls, the others stand
 * by and take over when it releases the lease on shutdown or lets it lapse.
 *
 * It starts with the application (the server, or any Nest context that imports PricesModule) and
 * stops on close: the timer is cleared, the request in flight aborted, the lease released.
 */
@Injectable()
export class PricesService implements OnApplicationBootstrap, OnModuleDestroy {
  /** `poll` after every turn, with its report. */
  readonly events = new EventEmitter<{ poll: [PollReport] }>();

  private readonly logger = new Logger('Prices');
  private readonly source: PriceSourceConfig;
  private readonly holder = randomUUID();
  private readonly worker: LeasedWorker | undefined;
  private databaseFailing = false;
  /** Tokens already logged as unknown or absurd; logged again only after a good price. */
  private readonly reported = new Set<string>();
  private readonly counters: Omit<PricePollerStatus, 'role'> = {
    enabled: false,
    polls: 0,
    sourceErrors: 0,
    rejectedValues: 0,
    storedPrices: 0,
    failureStreak: 0,
    lastSuccessAt: null,
  };

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly repository: PricesRepository,
    private readonly client: PriceSourceClient,
    // Absent in a context without the HTTP server's metrics (a CLI command).
    @Optional() private readonly metrics?: Metrics,
  ) {
    this.source = config.prices;
    this.counters.enabled = this.source.refreshMs > 0;
    if (metrics !== undefined) {
      const polledAt = () => repository.polledAt();
      new Gauge({
        name: 'chaintags_price_polled_timestamp_seconds',
        help: 'When a process last got an answer from the price source (seconds since the epoch; 0 before the first), from the database: every process shows the same.',
        registers: [metrics.registry],
        async collect(this: Gauge) {
          this.set(((await polledAt()) ?? 0) / 1000);
        },
      });
    }
    if (!this.counters.enabled) return;
    this.worker = new LeasedWorker({
      lease: {
        claim: (now, until) => this.repository.claim(this.holder, now, until),
        release: () => this.repository.release(this.holder),
      },
      leaseMs: POLL_LEASE_MS,
      holdThroughPauseMs: LEASE_SLACK_MS,
      intervalMs: this.source.refreshMs,
      standbyMs: this.source.refreshMs,
      maxBackoffMs: this.source.refreshMs,
      logger: this.logger,
      describe: {
        standby: 'another process polls the price source; this one stands by to take over when it stops',
        holder: 'this process polls the price source now',
      },
      turn: ({ signal }) => this.pollTurn(signal),
      standingBy: () => this.finish(emptyReport('standby', this.source.refreshMs)),
      failed: ({ error }) => this.databaseFailed(error),
    });
  }

  status(): PricePollerStatus {
    const role = this.worker === undefined ? 'off' : this.worker.role;
    return { ...this.counters, role };
  }

  onApplicationBootstrap(): void {
    if (this.worker === undefined) {
      this.logger.log('the price source is off (PRICE_REFRESH_SECONDS=0): prices change only by import');
      return;
    }
    this.worker.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.worker?.stop();
  }

  private async pollTurn(signal: AbortSignal): Promise<TurnResult> {
    const report = await this.poll(signal);
    if (this.databaseFailing) this.logger.log('the database answers the price poller again');
    this.databaseFailing = false;
    this.finish(report);
    if (report.role === 'standby') throw new LeaseLost('another process polls the price source now');
    return { delayMs: report.nextPollMs };
  }

  /** The database failed the poll: nothing was stored; logged once until it answers again. */
  private databaseFailed(error: unknown): number {
    if (!this.databaseFailing) {
      this.logger.warn(
        `prices could not be read or written (${error instanceof Error ? error.message : String(error)}); ` +
          `trying again every ${this.source.refreshMs / 1000} s`,
      );
    }
    this.databaseFailing = true;
    this.finish({ ...emptyReport('holder', this.source.refreshMs), databaseError: String(error) });
    return this.source.refreshMs;
  }

  private finish(report: PollReport): void {
    this.counters.polls += 1;
    this.events.emit('poll', report);
  }

  /** One poll: ask the source about every token, store what changed, decide when to ask again. */
  private async poll(signal: AbortSignal): Promise<PollReport> {
    const now = Date.now();
    const known = await this.repository.tokens();
    // Most tokens a follower discovers are listed by no price source: asked once a day, not every poll.
    const tokens = known.filter(
      (token) => token.missedAtMs === null || now - token.missedAtMs >= this.source.unknownRetryMs,
    );
    const requests = planRequests(tokens.map(priceTarget), this.source.url.length);
    const quotes: Quote[] = [];
    const rejected: Rejected[] = [];
    const unknown: string[] = [];
    let failure: PriceSourceError | undefined;
    let sent = 0;
    for (const request of requests) {
      if (sent > 0) await sleep(this.source.requestGapMs, undefined, { signal });
      sent += 1;
      try {
        const answer = readAnswer(await this.client.getJson(request.path, signal), request, Date.now());
        quotes.push(...answer.quotes);
        rejected.push(...answer.rejected);
        unknown.push(...answer.unknown);
      } catch (error) {
        if (error instanceof MalformedAnswer) failure = new PriceSourceError('malformed', error.message);
        else if (error instanceof PriceSourceError) failure = error;
        else throw error;
        // The rest of this poll would meet the same trouble, and add to a rate limit.
        break;
      }
    }
    // Whatever the source answered is stored, and the time with it (price_poller.polled_at): an
    // answer of only absurd values counts; a poll that asked nothing or failed at once does not.
    const answered = quotes.length > 0 || unknown.length > 0 || (sent > 0 && failure === undefined);
    const result = answered
      ? await this.repository.store(this.holder, quotes, unknown, new Date())
      : { held: true, stored: 0, unchanged: 0 };
    this.counters.storedPrices += result.stored;
    this.counters.rejectedValues += rejected.length;
    this.noteTokens(quotes, rejected, unknown);

    const nextPollMs = this.noteOutcome(failure);
    return {
      role: result.held ? 'holder' : 'standby',
      requests: sent,
      stored: result.stored,
      unchanged: result.unchanged,
      rejected: rejected.length,
      unknown: unknown.length,
      skipped: known.length - tokens.length,
      ...(failure === undefined ? {} : { failure: { kind: failure.kind, message: failure.message } }),
      nextPollMs,
    };
  }

  /** Counts the poll and logs the first failure of a streak, and the recovery; answers the next delay. */
  private noteOutcome(failure: PriceSourceError | undefined): number {
    if (failure === undefined) {
      if (this.counters.failureStreak > 0) {
        this.logger.log(
          `the price source ${this.client.location} answers again, after ${this.counters.failureStreak} failed polls`,
        );
      }
      this.counters.failureStreak = 0;
      this.counters.lastSuccessAt = new Date().toISOString();
      return nextPollDelay(0, this.source);
    }
    this.counters.failureStreak += 1;
    this.counters.sourceErrors += 1;
    this.metrics?.priceSourceErrors.inc();
    const delay = nextPollDelay(this.counters.failureStreak, this.source, failure.retryAfterMs);
    if (this.counters.failureStreak === 1) {
      this.logger.warn(
        `the price source ${this.client.location} ${failure.message}: prices stay as they are and the API ` +
          `answers as usual; asking again in ${Math.round(delay / 1000)} s, backing off while it fails ` +
          '(PRICE_REFRESH_SECONDS=0 runs without a price source)',
      );
    }
    return delay;
  }

  /** One line per newly unknown or absurd token, so a persistent gap is not logged every poll. */
  private noteTokens(quotes: readonly Quote[], rejected: readonly Rejected[], unknown: readonly string[]): void {
    for (const quote of quotes) this.reported.delete(quote.tokenId);
    const newlyRejected = rejected.filter((entry) => !this.reported.has(entry.tokenId));
    const newlyUnknown = unknown.filter((tokenId) => !this.reported.has(tokenId));
    if (newlyRejected.length > 0) {
      this.logger.warn(
        `the price source gave absurd prices, not stored: ${listed(newlyRejected.map((e) => `${e.tokenId} (${e.reason})`))}`,
      );
    }
    if (newlyUnknown.length > 0) {
      this.logger.log(`the price source has no price for ${listed(newlyUnknown)}; they keep their last price`);
    }
    for (const tokenId of [...newlyRejected.map((entry) => entry.tokenId), ...newlyUnknown]) this.reported.add(tokenId);
  }
}

function emptyReport(role: PollReport['role'], nextPollMs: number): PollReport {
  return { role, requests: 0, stored: 0, unchanged: 0, rejected: 0, unknown: 0, skipped: 0, nextPollMs };
}

/** The first few of a list, so that a thousand unpriced tokens make one readable line. */
function listed(items: readonly string[], shown = 20): string {
  const head = items.slice(0, shown).join(', ');
  return items.length > shown ? `${head} and ${items.length - shown} more` : head;
}
