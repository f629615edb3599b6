import { performance } from 'node:perf_hooks';
import type { Instant } from '../../../core/records/brands';
import { RECORD_TYPES, RecordType } from '../../../core/records/records';

/** A report keeps the first this many invalid records; the count covers all of them. */
export const MAX_LISTED_INVALID = 1000;
const PROGRESS_INTERVAL_MS = 1000;

export interface InvalidItem {
  position: number;
  reason: string;
}

export interface SinkProgress {
  /** The last position read. */
  read: number;
  /** Valid records so far. */
  rows: number;
  seconds: number;
  rowsPerSecond: number;
}

export interface SinkReport {
  /** Whether everything valid that was read is committed: false when invalid records stopped the run. */
  committed: boolean;
  /** Transactions committed: one at most under whole-input, one per batch under per-batch. */
  commits: number;
  /** The last position read, so that it matches the last line number of a file. */
  read: number;
  /** Valid records by type; when committed, the rows written. */
  valid: Record<RecordType, number>;
  invalid: number;
  /** The first MAX_LISTED_INVALID invalid records, in the order read. */
  invalidItems: InvalidItem[];
  seconds: number;
  rowsPerSecond: number;
}

export interface RunOptions {
  skipInvalid?: boolean;
  /** Called for each of the first MAX_LISTED_INVALID invalid records, as soon as it is known. */
  onInvalid?: (problem: InvalidItem) => void;
  /** Called at most once a second, from the first second on. */
  onProgress?: (progress: SinkProgress) => void;
  /** The run's start; also the time of prices that come without `at`. */
  startedAt?: Date;
}

/** Counting, timing and reporting of one run of the sink. */
export class SinkRun {
  readonly startedAt: Instant;
  private readonly started = performance.now();
  private lastProgress = this.started;
  private position = 0;
  private rows = 0;
  private readonly counts = emptyCounts();
  private invalidCount = 0;
  private commitCount = 0;
  private readonly listed: InvalidItem[] = [];

  constructor(private readonly options: RunOptions) {
    this.startedAt = (options.startedAt ?? new Date()).toISOString() as Instant;
  }

  get skipInvalid(): boolean {
    return this.options.skipInvalid === true;
  }

  /** Whether valid records are still written: always with skipInvalid, otherwise until the first invalid one. */
  get writing(): boolean {
    return this.skipInvalid || this.invalidCount === 0;
  }

  /** Valid records so far: once committed, the rows written. */
  get validRows(): number {
    return this.rows;
  }

  valid(type: RecordType): void {
    this.counts[type] += 1;
    this.rows += 1;
  }

  invalid(position: number, reason: string): void {
    this.invalidCount += 1;
    if (this.listed.length >= MAX_LISTED_INVALID) return;
    const problem = { position, reason };
    this.listed.push(problem);
    this.options.onInvalid?.(problem);
  }

  /** Takes in what one batch's transaction found, once that transaction is over. */
  add(tally: BatchTally): void {
    for (const type of RECORD_TYPES) {
      this.counts[type] += tally.counts[type];
      this.rows += tally.counts[type];
    }
    for (const { position, reason } of tally.problems) this.invalid(position, reason);
  }

  committed(): void {
    this.commitCount += 1;
  }

  read(position: number | undefined): void {
    if (position !== undefined) this.position = position;
    const now = performance.now();
    if (this.options.onProgress === undefined || now - this.lastProgress < PROGRESS_INTERVAL_MS) return;
    this.lastProgress = now;
    this.options.onProgress(this.progress(now));
  }

  report(committed: boolean): SinkReport {
    const { seconds, rowsPerSecond } = this.progress(performance.now());
    return {
      committed,
      commits: this.commitCount,
      read: this.position,
      valid: { ...this.counts },
      invalid: this.invalidCount,
      invalidItems: [...this.listed],
      seconds,
      rowsPerSecond,
    };
  }

  private progress(now: number): SinkProgress {
    const seconds = (now - this.started) / 1000;
    return {
      read: this.position,
      rows: this.rows,
      seconds: Math.round(seconds * 1000) / 1000,
      rowsPerSecond: seconds > 0 ? Math.round(this.rows / seconds) : 0,
    };
  }
}

/**
 * What the transaction of one batch found. It reaches the run only once the transaction is over,
 * so a transaction the database runs again (a deadlock victim) is not counted twice.
 */
export class BatchTally {
  readonly counts = emptyCounts();
  readonly problems: InvalidItem[] = [];

  valid(type: RecordType): void {
    this.counts[type] += 1;
  }

  invalid(position: number, reason: string): void {
    this.problems.push({ position, reason });
  }
}

function emptyCounts(): Record<RecordType, number> {
  return Object.fromEntries(RECORD_TYPES.map((type) => [type, 0])) as Record<RecordType, number>;
}
