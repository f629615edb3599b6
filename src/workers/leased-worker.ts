/**
 * The one loop every background job of chaintags runs on (a chain follower, the price poller):
 * claim a lease row so that one process at a time does the work, take turns while holding it,
 * back off after failures, stand by while another process holds it, and hand it over on stop.
 *
 * The work itself is a `turn`; the lease is whatever table row the job keeps (`Lease`). A write
 * that must not commit for a process that lost the lease checks it in its own transaction and
 * throws `LeaseLost`: the worker then stands by.
 */
import { backoff } from '../core/time/backoff';

/** A lease row as the worker sees it. Times are this process's clock (hosts differ by far less than a lease lasts). */
export interface Lease {
  /** Takes the lease when it is free or lapsed, or extends it when this process holds it. */
  claim(now: Date, until: Date): Promise<boolean>;
  /** Lets another process take over at once. */
  release(): Promise<void>;
}

/** Thrown inside a write when this process no longer holds the lease: the write rolls back and the worker stands by. */
export class LeaseLost extends Error {}

/** What a turn answers: more work waiting at once, or how long to wait (the worker's interval otherwise). */
export interface TurnResult {
  more?: boolean;
  delayMs?: number;
}

/** What a worker tells its job about a failed turn; the job answers how long to wait, or lets the back-off decide. */
export interface FailedTurn {
  error: unknown;
  /** Failed turns in a row, this one included. */
  failures: number;
}

export interface WorkerLogger {
  log(message: string): void;
  warn(message: string): void;
}

export interface LeasedWorkerOptions {
  lease: Lease;
  /** How long a claim made before a turn stands. */
  leaseMs: number;
  /** The pause between turns while the job is caught up. */
  intervalMs: number;
  /** How often a process that does not hold the lease tries to take it. */
  standbyMs: number;
  /** The longest pause after failures in a row (the pause doubles from `intervalMs`). */
  maxBackoffMs: number;
  /**
   * After a turn, the lease is extended to the next turn plus this much, so a long pause between
   * turns (a price poll every five minutes) does not hand the job over. Unset: only the claim
   * before each turn holds it.
   */
  holdThroughPauseMs?: number;
  logger: WorkerLogger;
  /** Said once when another process holds the lease, and when this one takes over. */
  describe: { standby: string; holder: string };
  /** Runs while this process holds the lease. `becameHolder` on the first turn after taking it. */
  turn(context: { signal: AbortSignal; becameHolder: boolean }): Promise<TurnResult>;
  /** A standby turn (another process holds the lease), for a job that reports it. */
  standingBy?(): void | Promise<void>;
  /** A failed turn; answers a pause to use instead of the back-off. */
  failed?(failure: FailedTurn): Promise<number | undefined> | number | undefined;
}

export type WorkerRole = 'starting' | 'holder' | 'standby';

export class LeasedWorker {
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;
  private currentRole: WorkerRole = 'starting';
  private failures = 0;

  constructor(private readonly options: LeasedWorkerOptions) {}

  get role(): WorkerRole {
    return this.currentRole;
  }

  /** Aborted when the worker stops: a turn passes it to what it waits on. */
  get signal(): AbortSignal {
    return this.stopping.signal;
  }

  start(): void {
    this.running ??= this.run();
  }

  /** Stops after the turn in flight (its transaction commits or rolls back whole) and gives up the lease. */
  async stop(): Promise<void> {
    this.stopping.abort(new Error('the worker is stopping'));
    await this.running;
    if (this.currentRole === 'holder') {
      try {
        await this.options.lease.release();
      } catch {
        // The lease lapses by itself; a database that is gone cannot be told.
      }
    }
  }

  private async run(): Promise<void> {
    const signal = this.stopping.signal;
    while (!signal.aborted) {
      let delay: number;
      try {
        const result = await this.turn();
        this.failures = 0;
        if (result.more) continue;
        delay = result.delayMs ?? (this.currentRole === 'standby' ? this.options.standbyMs : this.options.intervalMs);
        if (this.currentRole === 'holder' && this.options.holdThroughPauseMs !== undefined && !signal.aborted) {
          const now = Date.now();
          await this.options.lease.claim(new Date(now), new Date(now + delay + this.options.holdThroughPauseMs));
        }
      } catch (error) {
        if (signal.aborted) break;
        delay = await this.afterFailure(error);
      }
      await pause(delay, signal);
    }
  }

  private async turn(): Promise<TurnResult> {
    const { lease, leaseMs, logger, describe } = this.options;
    const now = Date.now();
    if (!(await lease.claim(new Date(now), new Date(now + leaseMs)))) {
      if (this.currentRole !== 'standby') logger.log(describe.standby);
      this.currentRole = 'standby';
      await this.options.standingBy?.();
      return {};
    }
    const becameHolder = this.currentRole !== 'holder';
    if (becameHolder && this.currentRole === 'standby') logger.log(describe.holder);
    this.currentRole = 'holder';
    return this.options.turn({ signal: this.stopping.signal, becameHolder });
  }

  private async afterFailure(error: unknown): Promise<number> {
    if (error instanceof LeaseLost) {
      this.options.logger.warn(`${error.message}; standing by`);
      this.currentRole = 'standby';
      return this.options.standbyMs;
    }
    this.failures += 1;
    const chosen = await this.options.failed?.({ error, failures: this.failures });
    if (chosen !== undefined) return chosen;
    return backoff(this.failures, this.options.intervalMs, this.options.maxBackoffMs);
  }
}

/** Waits `ms`, or less when `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}
