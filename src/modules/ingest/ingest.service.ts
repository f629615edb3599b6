import { Injectable } from '@nestjs/common';
import { open } from 'node:fs/promises';
import type { ChainId } from '../../core/chains/chain-ids';
import type { HoldingInput, RecordInput } from '../../core/records/record-input';
import type { RecordType } from '../../core/records/records';
import type { Sql } from '../../database/db.service';
import { RecordSink } from './sink/record-sink';
import type { SinkReport } from './sink/sink-run';
import type { ByteSource } from '../../core/text/line-reader';
import { ndjsonSource } from './sources/ndjson.source';

export { MAX_LISTED_INVALID } from './sink/sink-run';

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

/** What a live source's write came to: committed, or refused with the first invalid record's reason. */
export type LiveWrite = { committed: true } | { committed: false; reason: string };

export interface ImportReport {
  /** False when invalid lines made the import roll back: then nothing was written. */
  committed: boolean;
  /** Lines read, blank ones included, so that it matches the last line number. */
  lines: number;
  /** Valid lines by type; when committed, the rows written. */
  valid: Record<RecordType, number>;
  invalid: number;
  /** The first MAX_LISTED_INVALID invalid lines, in file order. */
  invalidLines: InvalidLine[];
  seconds: number;
  rowsPerSecond: number;
}

/**
 * Imports NDJSON (contract §8): the file's lines as a record source, written by the sink under the
 * whole-input policy, so a file is imported entirely or not at all. Every line is validated as it
 * streams in, and validation goes on after the first invalid line so that the report lists every
 * one; unless `skipInvalid` is set, that line stops the writing and nothing is committed.
 */
@Injectable()
export class IngestService {
  constructor(private readonly sink: RecordSink) {}

  /**
   * A live source's records (a chain follower's block range), validated and written in one
   * transaction with the kept aggregates; `beforeCommit` runs last in it, for the source's own
   * position. Nothing is written when any record is invalid.
   */
  async writeLive(records: readonly RecordInput[], beforeCommit: (tx: Sql) => Promise<void>): Promise<LiveWrite> {
    const report = await this.sink.write(
      [{ items: records.map((record, index) => ({ position: index + 1, record })) }],
      {
        policy: 'per-batch',
        hooks: [{ beforeCommit }],
      },
    );
    if (report.committed) return { committed: true };
    return { committed: false, reason: report.invalidItems[0]?.reason ?? 'an invalid record' };
  }

  /** A chain taken back to `block` after a reorganisation (RecordSink.rewind), `beforeCommit` last. */
  rewindChain(
    chain: ChainId,
    block: bigint,
    holdings: readonly HoldingInput[],
    beforeCommit: (tx: Sql) => Promise<void>,
  ): Promise<void> {
    return this.sink.rewind(chain, block, holdings, [{ beforeCommit }]);
  }

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
    const { onInvalid, onProgress } = options;
    const report = await this.sink.write(ndjsonSource(source), {
      policy: 'whole-input',
      skipInvalid: options.skipInvalid,
      startedAt: options.startedAt,
      onInvalid: onInvalid && (({ position, reason }) => onInvalid({ line: position, reason })),
      onProgress: onProgress && (({ read, ...progress }) => onProgress({ lines: read, ...progress })),
    });
    return toImportReport(report);
  }
}

function toImportReport(report: SinkReport): ImportReport {
  return {
    committed: report.committed,
    lines: report.read,
    valid: report.valid,
    invalid: report.invalid,
    invalidLines: report.invalidItems.map(({ position, reason }) => ({ line: position, reason })),
    seconds: report.seconds,
    rowsPerSecond: report.rowsPerSecond,
  };
}
