import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  BeforeApplicationShutdown,
  Optional,
} from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Counter, Gauge } from 'prom-client';
import { Webhook } from 'standardwebhooks';
import { APP_CONFIG, AppConfig, WebhooksConfig } from '../../config/config';
import { Metrics } from '../../http/metrics/metrics.service';
import { LeasedWorker, type TurnResult } from '../../workers/leased-worker';
import { AttemptOutcome, DELIVERY_TIMEOUT_MS, DeliveryClient } from './delivery-client';
import { DueEvent, RecordedAttempt, WebhooksRepository } from './webhooks.repository';

/** Whether the dispatcher starts with the Nest application or context (WebhooksModule.forRoot). */
export const DISPATCH_ON_START = Symbol('DISPATCH_ON_START');

/** Deliveries in flight at once to one webhook: a slow receiver holds these, never the others'. */
export const PER_WEBHOOK_CONCURRENCY = 64;
/** Deliveries in flight at once in this process. */
export const TOTAL_CONCURRENCY = 256;
/** How often the holder looks for due deliveries when it has none in flight. */
const POLL_MS = 200;
/** The longest turn: the lease is renewed between turns. */
const TURN_MS = 1_000;
/** How long a busy dispatcher lets finished deliveries gather before it claims again. */
const GATHER_MS = 10;
/** How long a stopping dispatcher waits for the answers of deliveries in flight. */
const SHUTDOWN_GRACE_MS = 2_000;
/** Finished deliveries stay in the log this long (README, "Webhooks"). */
export const DELIVERY_LOG_DAYS = 30;
const PRUNE_EVERY_MS = 3_600_000;
/** A claimed delivery is not due again for this long, so a process taking over the lease meanwhile does not send it too. */
const CLAIM_MS = DELIVERY_TIMEOUT_MS + 20_000;

/**
 * Delivers the outbox (contract §14), on the leased-worker core: one process per database holds
 * the `webhook_dispatcher` lease and delivers; the others stand by and take over within the lease
 * (FOLLOW_LEASE_SECONDS, 20 s by default) when it dies, at once when it stops. Each turn claims the
 * due deliveries (up to PER_WEBHOOK_CONCURRENCY in flight per webhook, TOTAL_CONCURRENCY in all)
 * and sends them concurrently, each signed with its webhook's current secret as Standard Webhooks
 * says; an answer is recorded as soon as it comes: a 2xx delivers the event, anything else
 * schedules the next attempt on WEBHOOK_RETRY_SECONDS, and after the last one the delivery is
 * `failed` (which may disable the webhook, see WebhooksRepository.failed).
 *
 * A claim moves the delivery's next attempt past the longest an attempt can take, so a SIGKILL
 * mid-delivery delays it by that much at most, and a holder's successor never sends it while the
 * first attempt may still be answered.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly holder = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly settings: WebhooksConfig;
  private readonly worker: LeasedWorker;
  private readonly client = new DeliveryClient();
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly perWebhook = new Map<string, number>();
  private settled: (() => void) | undefined;
  private readonly toRecord: { outcome: RecordedAttempt; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private recording: Promise<void> | undefined;
  private nextPrune = 0;
  private readonly attempts: Counter<'outcome'> | undefined;
  private readonly deliveries: Counter<'outcome'> | undefined;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(DISPATCH_ON_START) private readonly onStart: boolean,
    private readonly repository: WebhooksRepository,
    // Absent in a context without the HTTP server's metrics (a CLI command).
    @Optional() metrics?: Metrics,
  ) {
    this.settings = config.webhooks;
    this.worker = new LeasedWorker({
      lease: {
        claim: (now, until) => this.repository.claimLease(this.holder, now, until),
        release: () => this.repository.releaseLease(this.holder),
      },
      // The followers' lease length (FOLLOW_LEASE_SECONDS): a successor takes over as fast as theirs.
      leaseMs: config.follow.leaseMs,
      intervalMs: POLL_MS,
      standbyMs: Math.min(5_000, config.follow.leaseMs / 4),
      maxBackoffMs: 30_000,
      logger: this.logger,
      describe: {
        standby: 'another process delivers webhooks; this one stands by',
        holder: 'this process delivers webhooks now',
      },
      turn: ({ signal }) => this.turn(signal),
      failed: ({ error, failures }) => {
        if (failures === 1)
          this.logger.warn(`webhook dispatch failed: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      },
    });
    if (metrics !== undefined) {
      const registers = [metrics.registry];
      this.attempts = new Counter({
        name: 'chaintags_webhook_attempts_total',
        help: 'Delivery attempts by outcome: success (2xx), http_error (another status), timeout, connection_error, refused (internal address).',
        labelNames: ['outcome'] as const,
        registers,
      });
      this.deliveries = new Counter({
        name: 'chaintags_webhook_deliveries_total',
        help: 'Deliveries finished, by outcome: delivered (answered 2xx) or failed (every retry used).',
        labelNames: ['outcome'] as const,
        registers,
      });
      const repository = this.repository;
      let reading: Promise<{ count: number; oldest: string | null }> | undefined;
      const pending = () =>
        (reading ??= repository.pending().finally(() => setTimeout(() => (reading = undefined), 500)));
      new Gauge({
        name: 'chaintags_webhook_pending_deliveries',
        help: 'Deliveries not yet delivered nor failed.',
        registers,
        async collect(this: Gauge) {
          this.set((await pending()).count);
        },
      });
      new Gauge({
        name: 'chaintags_webhook_oldest_pending_seconds',
        help: 'Age of the oldest pending delivery (0 when none).',
        registers,
        async collect(this: Gauge) {
          const { oldest } = await pending();
          this.set(oldest === null ? 0 : Math.max(0, (Date.now() - Date.parse(oldest)) / 1000));
        },
      });
    }
  }

  onApplicationBootstrap(): void {
    if (this.onStart) this.worker.start();
  }

  start(): void {
    this.worker.start();
  }

  /** Stops claiming and gives up the lease; records the deliveries in flight (2 s at most, then cut off). */
  async beforeApplicationShutdown(): Promise<void> {
    await this.worker.stop();
    // Answers that come within the grace are recorded; the rest are cut off and retried on the
    // schedule (at least once: the receiver may have got them).
    const grace = new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref());
    await Promise.race([Promise.allSettled(this.inFlight.values()), grace]);
    this.client.close();
    await Promise.allSettled(this.inFlight.values());
  }

  /**
   * Claims what is due and sends it, again each time deliveries finish, for up to TURN_MS; then
   * the worker renews the lease and calls again. Answers at once when nothing is due or in flight.
   */
  private async turn(signal: AbortSignal): Promise<TurnResult> {
    const ends = Date.now() + TURN_MS;
    if (ends > this.nextPrune) {
      this.nextPrune = ends + PRUNE_EVERY_MS;
      await this.repository.prune(new Date(Date.now() - DELIVERY_LOG_DAYS * 86_400_000).toISOString());
    }
    while (!signal.aborted && Date.now() < ends) {
      const room = TOTAL_CONCURRENCY - this.inFlight.size;
      if (room > 0) {
        const now = Date.now();
        const due = await this.repository.claimDue(
          new Date(now),
          PER_WEBHOOK_CONCURRENCY,
          room,
          new Date(now + CLAIM_MS),
          this.perWebhook,
        );
        for (const event of due) this.launch(event);
      }
      if (this.inFlight.size === 0) return {};
      // Until a delivery is recorded (a slot frees, maybe more is due) or the next look; then a
      // moment more, so that one claim serves the deliveries that finish together.
      await this.settlement(signal);
      await new Promise((resolve) => setTimeout(resolve, GATHER_MS));
    }
    return { more: true };
  }

  private settlement(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.settled = undefined;
        resolve();
      };
      const timer = setTimeout(done, POLL_MS);
      signal.addEventListener('abort', done);
      this.settled = done;
    });
  }

  private launch(event: DueEvent): void {
    this.perWebhook.set(event.webhook_id, (this.perWebhook.get(event.webhook_id) ?? 0) + 1);
    const running = this.attempt(event)
      .then((outcome) => this.record(outcome))
      .catch((error: unknown) => {
        // Recording the outcome failed (the database is away): the claim lapses and it is sent again.
        this.logger.warn(
          `could not record a delivery of webhook ${event.webhook_id}: ${error instanceof Error ? error.message : String(error)}`,
        );
      })
      .finally(() => {
        this.inFlight.delete(event.id);
        const left = (this.perWebhook.get(event.webhook_id) ?? 1) - 1;
        if (left <= 0) this.perWebhook.delete(event.webhook_id);
        else this.perWebhook.set(event.webhook_id, left);
        this.settled?.();
      });
    this.inFlight.set(event.id, running);
  }

  /** One attempt: signed now, with the webhook's current secret. */
  private async attempt(event: DueEvent): Promise<RecordedAttempt> {
    const sentAt = new Date();
    let outcome: AttemptOutcome;
    try {
      const signature = new Webhook(event.secret).sign(event.id, sentAt, event.body);
      outcome = await this.client.send({
        url: event.url,
        body: event.body,
        allowPrivate: this.settings.allowPrivateUrls,
        headers: {
          'webhook-id': event.id,
          'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
          'webhook-signature': signature,
        },
      });
    } catch {
      outcome = { status: undefined, error: 'the delivery could not be signed', refused: true };
    }
    const attempts = Number(event.attempts) + 1;
    const base = {
      seq: event.seq,
      webhookId: event.webhook_id,
      createdAt: new Date(event.created_at).toISOString(),
      status: outcome.status ?? null,
      error: outcome.error ?? null,
    };
    if (outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300) {
      this.attempts?.inc({ outcome: 'success' });
      this.deliveries?.inc({ outcome: 'delivered' });
      return { ...base, kind: 'delivered' };
    }
    this.attempts?.inc({ outcome: attemptOutcome(outcome) });
    const why = outcome.status !== undefined ? `answered HTTP ${outcome.status}` : (outcome.error ?? 'no answer');
    const pauseSeconds = this.settings.retrySeconds[attempts - 1];
    if (pauseSeconds !== undefined) {
      this.logger.debug(
        `webhook ${event.webhook_id}: delivery ${event.id} ${why}; attempt ${attempts + 1} in ${pauseSeconds} s`,
      );
      return { ...base, kind: 'retry', retryInSeconds: pauseSeconds };
    }
    this.deliveries?.inc({ outcome: 'failed' });
    this.logger.warn(`webhook ${event.webhook_id}: delivery ${event.id} failed after ${attempts} attempts (${why})`);
    return { ...base, kind: 'failed' };
  }

  /**
   * Records an outcome with the others that finish meanwhile, in one transaction per batch: at a
   * thousand deliveries a second, a transaction each would be most of the work.
   */
  private record(outcome: RecordedAttempt): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.toRecord.push({ outcome, resolve, reject });
      this.recording ??= this.flush().finally(() => (this.recording = undefined));
    });
  }

  private async flush(): Promise<void> {
    while (this.toRecord.length > 0) {
      const batch = this.toRecord.splice(0, 500);
      try {
        const disabled = await this.repository.record(batch.map((entry) => entry.outcome));
        for (const webhookId of disabled) {
          this.logger.warn(
            `webhook ${webhookId} disabled: no delivery to it succeeded since its failed event was recorded; PATCH status active restarts it`,
          );
        }
        for (const entry of batch) entry.resolve();
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
  }
}

function attemptOutcome(outcome: AttemptOutcome): string {
  if (outcome.refused) return 'refused';
  if (outcome.status !== undefined) return 'http_error';
  if (outcome.error?.startsWith('no answer within') === true) return 'timeout';
  return 'connection_error';
}
