import { Injectable } from '@nestjs/common';
import { open } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { Db, Sql } from '../../database/db.service';
import { bumpDataRevision } from '../../database/revisions';
import { BatchWriter } from './batch-writer';
import { IngestRepository, ROWS_PER_STATEMENT } from './ingest.repository';
import { Catalog } from './catalog';
import { ByteSource, MAX_LINE_BYTES, readLines, SourceLine } from './line-reader';
import {
  ChainRecord,
  HoldingRecord,
  ImportRecord,
  LINE_TYPES,
  LineType,
  parseLine,
  PriceRecord,
  TokenRecord,
  TransactionRecord,
} from './lines';

/** The report keeps the first this many invalid lines; the count covers all of them. */
export const MAX_LISTED_INVALID = 1000;
const PROGRESS_INTERVAL_MS = 1000;

export interface InvalidLine {
  line: number;
  reason: string;
}

export interface ImportProgress {
  lines: number;
  rows: number;
  seconds: number;
  rowsPerSecond: number;
}

export interface ImportOptions {
  /** Import the valid lines even when some are invalid (default: any invalid line imports nothing). */
  skipInvalid?: boolean;
  /** Called for each of the first MAX_LISTED_INVALID invalid lines, as soon as it is read. */
  onInvalid?: (problem: InvalidLine) => void;
  /** Called at most once a second, from the first second on. */
  onProgress?: (progress: ImportProgress) => void;
  /** The import's start; also the price time of `price` lines without `at`. */
  startedAt?: Date;
}

export interface ImportReport {
  /** False when invalid lines made the import roll back: then nothing was written. */
  committed: boolean;
  /** Lines read, blank ones included, so that it matches the last line number. */
  lines: number;
  /** Valid lines by type; when committed, the rows written. */
  valid: Record<LineType, number>;
  invalid: number;
  /** The first MAX_LISTED_INVALID invalid lines, in file order. */
  invalidLines: InvalidLine[];
  seconds: number;
  rowsPerSecond: number;
}

class RolledBack extends Error {}

/**
 * Imports NDJSON (contract §8) through the same database layer as the API, in one database
 * transaction. Lines are validated one by one as they stream in and written in multi-row upserts;
 * validation goes on after the first invalid line so that the report lists every one. Unless
 * `skipInvalid` is set, an invalid line stops the writing and rolls the whole import back, so a
 * file is imported entirely or not at all.
 */
@Injectable()
export class IngestService {
  constructor(
    private readonly db: Db,
    private readonly repository: IngestRepository,
  ) {}

  /** Opens the file first, so that a missing file fails before anything starts. */
  async importFile(path: string, options: ImportOptions = {}): Promise<ImportReport> {
    const handle = await open(path, 'r');
    const stream = handle.createReadStream();
    try {
      return await this.import(stream, options);
    } finally {
      stream.destroy();
    }
  }

  async import(source: ByteSource, options: ImportOptions = {}): Promise<ImportReport> {
    const run = new ImportRun(options);
    try {
      await this.db.transaction(async (tx) => {
        const catalog = await this.repository.loadCatalog(tx);
        const writer = new BatchWriter<PendingWrites>((batch) => this.flush(tx, batch));
        try {
          let pending = new PendingWrites();
          for await (const line of readLines(source)) {
            const checked = checkLine(line, catalog, run.startedAt);
            if (checked !== undefined && 'reason' in checked) {
              run.invalid(line.number, checked.reason);
              if (!run.writing) pending.clear();
            } else if (checked !== undefined) {
              catalog.learn(checked.record);
              run.valid(checked.record.type);
              if (run.writing) pending.add(checked.record);
              if (pending.size >= ROWS_PER_STATEMENT) {
                await writer.submit(pending);
                pending = new PendingWrites();
              }
            }
            run.read(line.number);
          }
          await writer.finished();
          if (!run.writing) throw new RolledBack();
          await writer.submit(pending);
          await writer.finished();
          await bumpDataRevision(tx);
        } finally {
          // Whatever went wrong, no write may still be running when the transaction ends.
          await writer.settled();
        }
      });
    } catch (error) {
      if (!(error instanceof RolledBack)) throw error;
      return run.report(false);
    }
    return run.report(true);
  }

  /** Referenced rows first: tokens and their deployments before the prices and holdings that point at them. */
  private async flush(tx: Sql, pending: PendingWrites): Promise<void> {
    await this.repository.updateChains(tx, [...pending.chains.values()]);
    await this.repository.upsertTokens(tx, [...pending.tokens.values()]);
    await this.repository.upsertPrices(tx, [...pending.prices.values()]);
    await this.repository.upsertHoldings(tx, [...pending.holdings.values()]);
    await this.repository.upsertTransactions(tx, [...pending.transactions.values()]);
  }
}

/** A line's valid record, or why it is invalid; undefined for a blank line. */
function checkLine(
  line: SourceLine,
  catalog: Catalog,
  startedAt: string,
): { record: ImportRecord } | { reason: string } | undefined {
  if ('tooLong' in line) return { reason: `line is longer than ${MAX_LINE_BYTES / (1024 * 1024)} MiB` };
  if (line.text.trim() === '') return undefined;
  const parsed = parseLine(line.text, startedAt);
  if (!parsed.ok) return { reason: parsed.reason };
  const problem = catalog.problemWith(parsed.record);
  return problem === undefined ? { record: parsed.record } : { reason: problem };
}

/** Counting, timing and reporting of one import. */
class ImportRun {
  readonly startedAt: string;
  private readonly started = performance.now();
  private lastProgress = this.started;
  private lines = 0;
  private rows = 0;
  private readonly counts = Object.fromEntries(LINE_TYPES.map((type) => [type, 0])) as Record<LineType, number>;
  private invalidCount = 0;
  private readonly listed: InvalidLine[] = [];

  constructor(private readonly options: ImportOptions) {
    this.startedAt = (options.startedAt ?? new Date()).toISOString();
  }

  /** Whether valid lines are still written: always with skipInvalid, otherwise until the first invalid line. */
  get writing(): boolean {
    return this.options.skipInvalid === true || this.invalidCount === 0;
  }

  valid(type: LineType): void {
    this.counts[type] += 1;
    this.rows += 1;
  }

  invalid(line: number, reason: string): void {
    this.invalidCount += 1;
    if (this.listed.length >= MAX_LISTED_INVALID) return;
    const problem = { line, reason };
    this.listed.push(problem);
    this.options.onInvalid?.(problem);
  }

  read(lineNumber: number): void {
    this.lines = lineNumber;
    const now = performance.now();
    if (this.options.onProgress === undefined || now - this.lastProgress < PROGRESS_INTERVAL_MS) return;
    this.lastProgress = now;
    this.options.onProgress(this.progress(now));
  }

  report(committed: boolean): ImportReport {
    const { seconds, rowsPerSecond } = this.progress(performance.now());
    return {
      committed,
      lines: this.lines,
      valid: { ...this.counts },
      invalid: this.invalidCount,
      invalidLines: [...this.listed],
      seconds,
      rowsPerSecond,
    };
  }

  private progress(now: number): ImportProgress {
    const seconds = (now - this.started) / 1000;
    return {
      lines: this.lines,
      rows: this.rows,
      seconds: Math.round(seconds * 1000) / 1000,
      rowsPerSecond: seconds > 0 ? Math.round(this.rows / seconds) : 0,
    };
  }
}

/**
 * Valid records waiting for the next multi-row upsert, one per key. A statement must not name a
 * key twice (PostgreSQL refuses to update one row twice in a statement), so a repeated key merges
 * with the record already waiting, the way the two statements would have left the row in turn.
 */
class PendingWrites {
  readonly chains = new Map<string, ChainRecord>();
  readonly tokens = new Map<string, TokenRecord>();
  readonly prices = new Map<string, PriceRecord>();
  readonly holdings = new Map<string, HoldingRecord>();
  readonly transactions = new Map<string, TransactionRecord>();

  get size(): number {
    return this.chains.size + this.tokens.size + this.prices.size + this.holdings.size + this.transactions.size;
  }

  add(record: ImportRecord): void {
    switch (record.type) {
      case 'chain':
        this.chains.set(record.chain, record);
        return;
      case 'token':
        this.tokens.set(record.id, mergeToken(this.tokens.get(record.id), record));
        return;
      case 'price':
        this.prices.set(`${record.token_id} ${record.at}`, record);
        return;
      case 'holding': {
        const key = `${record.chain} ${record.token_address} ${record.address}`;
        const waiting = this.holdings.get(key);
        // The same rule as the upsert: an older balance does not replace a newer one.
        if (waiting === undefined || waiting.updated_at <= record.updated_at) this.holdings.set(key, record);
        return;
      }
      case 'transaction':
        this.transactions.set(record.id, record);
        return;
    }
  }

  clear(): void {
    this.chains.clear();
    this.tokens.clear();
    this.prices.clear();
    this.holdings.clear();
    this.transactions.clear();
  }
}

/** A later token line updates the token's names; deployments accumulate, like the database's upserts. */
function mergeToken(earlier: TokenRecord | undefined, later: TokenRecord): TokenRecord {
  if (earlier === undefined) return later;
  const deployments = new Map(earlier.deployments.map((d) => [`${d.chain} ${d.address}`, d]));
  for (const deployment of later.deployments) deployments.set(`${deployment.chain} ${deployment.address}`, deployment);
  return { ...later, deployments: [...deployments.values()] };
}
