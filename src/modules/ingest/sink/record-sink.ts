import { Injectable } from '@nestjs/common';
import { Db, Sql } from '../../../database/db.service';
import { AggregateWrite, type HoldingChange, type TransferChange } from '../../aggregates/aggregates.service';
import type { ChainId } from '../../../core/chains/chain-ids';
import type { HoldingInput } from '../../../core/records/record-input';
import type { Instant } from '../../../core/records/brands';
import type { HoldingRecord } from '../../../core/records/records';
import { rowsPerLoad } from '../../../database/dialect';
import { IngestRepository } from '../ingest.repository';
import type { RecordSource, SourceBatch, SourceItem } from '../sources/record-source';
import { CheckedValues } from '../validation/checked-values';
import { RecordValidator } from '../validation/record-validator';
import type { RuleResult } from '../validation/record-rules';
import { BatchWriter } from './batch-writer';
import { PendingWrites } from './pending-writes';
import { BatchTally, RunOptions, SinkReport, SinkRun } from './sink-run';
import type { WriteHook } from './write-hook';

/**
 * - `whole-input`: everything in one transaction, all or nothing. Unless `skipInvalid`, an invalid
 *   record stops the writing, validation goes on to the end so that every problem is reported,
 *   and then nothing is committed. For files.
 * - `per-batch`: each source batch in a transaction of its own. A failure rolls back its own
 *   batch only, and the run stops there: the batches before it stay committed. Unless
 *   `skipInvalid`, a batch with an invalid record is not written and stops the run. For live
 *   sources, whose batch is a block range.
 */
export type CommitPolicy = 'whole-input' | 'per-batch';

export interface SinkOptions extends RunOptions {
  policy: CommitPolicy;
  /** Run in each write transaction after the kept aggregates are updated, in this order. */
  hooks?: readonly WriteHook[];
  /**
   * How many written rows' changes are gathered before the addresses' kept aggregates are updated
   * within one transaction; CHANGES_PER_ROUND unless given (tests give fewer, to cross it often).
   */
  changesPerRound?: number;
  /**
   * How many records a whole-input write gathers before writing them; rowsPerLoad of the dialect
   * unless given (tests give fewer, to write in several batches).
   */
  rowsPerBatch?: number;
}

/**
 * A whole-input write of at least this many rows commits with its WAL flushed, then has the tables
 * it writes vacuumed and analysed (IngestRepository.flushOnCommit, settleAfterLargeWrite).
 */
const SETTLE_AFTER_ROWS = 10_000;

/** Whether a whole-input write flushes its commit and is vacuumed after it: the two go together. */
function isLargeWrite(run: SinkRun): boolean {
  return run.validRows >= SETTLE_AFTER_ROWS;
}

/** Thrown inside a whole-input transaction to roll it back when invalid records forbid the commit. */
class RolledBack extends Error {}

/**
 * The one way records reach the database: every record from every source is validated here
 * (field rules and catalog, see RecordValidator), written through IngestRepository in multi-row
 * upserts, and committed as the commit policy says, with the write hooks run inside each
 * transaction. A database error, a failing hook or a failing source rejects with that error,
 * after rolling back what was not committed.
 */
@Injectable()
export class RecordSink {
  constructor(
    private readonly db: Db,
    private readonly repository: IngestRepository,
  ) {}

  async write(source: RecordSource, options: SinkOptions): Promise<SinkReport> {
    const run = new SinkRun(options);
    const writing: Writing = {
      hooks: options.hooks ?? [],
      changesPerRound: options.changesPerRound ?? CHANGES_PER_ROUND,
      rowsPerBatch: options.rowsPerBatch ?? rowsPerLoad(this.db.dialect),
    };
    return options.policy === 'whole-input'
      ? this.writeWholeInput(source, run, writing)
      : this.writePerBatch(source, run, writing);
  }

  /**
   * Takes a chain back to `block` after a reorganisation, in one transaction: its transactions
   * above the block go, `holdings` (its balances read again at that block) replace the stored
   * ones whatever their time, the kept aggregates follow, and the hooks' `beforeCommit` runs
   * last (where a follower moves its position back). Throws, writing nothing, when a holding is
   * invalid.
   */
  async rewind(
    chain: ChainId,
    block: bigint,
    holdings: readonly HoldingInput[],
    hooks: readonly WriteHook[] = [],
  ): Promise<void> {
    await this.db.transaction(async (tx) => {
      await this.repository.lockDataWriters(tx, 'shared');
      const validator = new RecordValidator(await this.repository.loadCatalog(tx), new Date().toISOString() as Instant);
      const checked: HoldingRecord[] = [];
      for (const [index, holding] of holdings.entries()) {
        const result = validator.check(holding);
        if (!result.ok) throw new Error(`holding ${index + 1}: ${result.reason}`);
        if (result.record.type !== 'holding') throw new Error(`holding ${index + 1} is a ${result.record.type} record`);
        checked.push(result.record);
      }
      const transfers = await this.repository.deleteTransactionsAbove(tx, chain, block);
      const changes = await this.repository.replaceHoldings(tx, checked);
      const aggregates = new AggregateWrite();
      await aggregates.round(tx, changes, transfers);
      await aggregates.finish(tx);
      for (const hook of hooks) await hook.beforeCommit?.(tx);
    });
  }

  private async writeWholeInput(source: RecordSource, run: SinkRun, writing: Writing): Promise<SinkReport> {
    let failure: { error: unknown } | undefined;
    try {
      await this.db.transaction(async (tx) => {
        // A source can be read only once. Should the database run the transaction again (a
        // deadlock victim), it fails as the first attempt did rather than commit the input's rest.
        if (failure !== undefined) throw failure.error;
        try {
          await this.consumeWholeInput(tx, source, run, writing);
        } catch (error) {
          failure = { error };
          throw error;
        }
      });
    } catch (error) {
      if (!(error instanceof RolledBack)) throw error;
      return run.report(false);
    }
    run.committed();
    if (isLargeWrite(run)) await this.repository.settleAfterLargeWrite(this.db);
    return run.report(true);
  }

  /**
   * Validates record after record and hands a batch to the writer whenever `rowsPerBatch` records
   * (5,000 on PostgreSQL, 500 on SQLite, see rowsPerLoad) are waiting; the writer writes it while
   * the next one is read and checked.
   */
  private async consumeWholeInput(tx: Sql, source: RecordSource, run: SinkRun, writing: Writing): Promise<void> {
    await this.repository.lockDataWriters(tx, 'alone');
    const validator = new RecordValidator(await this.repository.loadCatalog(tx), run.startedAt);
    const changes = new PendingChanges(writing.changesPerRound);
    const writer = new BatchWriter<PendingWrites>((pending) => this.writeRecords(tx, pending, writing, changes));
    try {
      let pending = new PendingWrites();
      for await (const batch of source) {
        for (const item of batch.items) {
          const checked = check(item, validator);
          if (!checked.ok) {
            run.invalid(item.position, checked.reason);
            if (!run.writing) pending.clear();
            continue;
          }
          run.valid(checked.record.type);
          if (!run.writing) continue;
          pending.add(checked.record);
          if (pending.size >= writing.rowsPerBatch) {
            await writer.submit(pending);
            pending = new PendingWrites();
          }
        }
        run.read(lastPosition(batch));
      }
      await writer.finished();
      if (!run.writing) throw new RolledBack();
      if (pending.size > 0) await writer.submit(pending);
      await writer.finished();
      await changes.finish(tx);
      for (const hook of writing.hooks) await hook.beforeCommit?.(tx);
      if (isLargeWrite(run)) await this.repository.flushOnCommit(tx);
    } finally {
      // Whatever went wrong, no write may still be running when the transaction ends.
      await writer.settled();
    }
  }

  private async writePerBatch(source: RecordSource, run: SinkRun, writing: Writing): Promise<SinkReport> {
    for await (const batch of source) {
      const outcome = await this.db.transaction((tx) => this.writeOneBatch(tx, batch, run, writing));
      run.add(outcome.tally);
      if (outcome.written) run.committed();
      run.read(lastPosition(batch));
      if (!outcome.written) return run.report(false);
    }
    return run.report(true);
  }

  /** Checks the whole batch first: a batch that may not be written leaves the database as it was. */
  private async writeOneBatch(
    tx: Sql,
    batch: SourceBatch,
    run: SinkRun,
    writing: Writing,
  ): Promise<{ tally: BatchTally; written: boolean }> {
    await this.repository.lockDataWriters(tx, 'shared');
    // Read again in every transaction, so that the checks see what other writers committed since.
    // A live source's batch names the same addresses and times again and again: checked once each.
    const validator = new RecordValidator(await this.repository.loadCatalog(tx), run.startedAt, new CheckedValues());
    const tally = new BatchTally();
    const pending = new PendingWrites();
    for (const item of batch.items) {
      const checked = check(item, validator);
      if (checked.ok) {
        tally.valid(checked.record.type);
        pending.add(checked.record);
      } else {
        tally.invalid(item.position, checked.reason);
      }
    }
    if (tally.problems.length > 0 && !run.skipInvalid) return { tally, written: false };
    const changes = new PendingChanges(writing.changesPerRound);
    await this.writeRecords(tx, pending, writing, changes);
    await changes.finish(tx);
    for (const hook of writing.hooks) await hook.beforeCommit?.(tx);
    return { tally, written: true };
  }

  /**
   * Referenced rows first: tokens and their deployments before the prices and holdings that point at
   * them. The kept aggregates (src/modules/aggregates/) follow the holdings and transactions in
   * the same transaction; prices and deployments do not touch them (USD is valued at read time).
   */
  private async writeRecords(
    tx: Sql,
    pending: PendingWrites,
    writing: Writing,
    changes: PendingChanges,
  ): Promise<void> {
    const records = pending.records();
    await this.repository.updateChains(tx, records.chains);
    await this.repository.upsertTokens(tx, records.tokens);
    await this.repository.upsertPrices(tx, records.prices);
    changes.add(
      await this.repository.upsertHoldings(tx, records.holdings),
      await this.repository.upsertTransactions(tx, records.transactions),
    );
    await changes.maybeRound(tx);
    for (const hook of writing.hooks) await hook.afterBatch?.(tx, records);
  }
}

/** What every write transaction of one run is given. */
interface Writing {
  hooks: readonly WriteHook[];
  changesPerRound: number;
  rowsPerBatch: number;
}

/**
 * How many written rows' changes are gathered before the kept aggregates of their addresses are
 * updated (one round; the tags' and tokens' rows are updated once, before the commit: see
 * AggregateWrite). A busy address is in most batches of an import, and PostgreSQL keeps every
 * version of a row that one transaction updates until it commits, so updating its aggregate row
 * once per 500-row batch made each update slower than the last; gathered, the row is updated once
 * per this many changes. Bounded, so an import's memory still does not grow with the file.
 */
export const CHANGES_PER_ROUND = 50_000;

/** Changes written in the transaction and not yet added to the kept aggregates. */
class PendingChanges {
  private holdings: HoldingChange[] = [];
  private transfers: TransferChange[] = [];
  private readonly aggregates = new AggregateWrite();

  constructor(private readonly changesPerRound: number) {}

  add(holdings: readonly HoldingChange[], transfers: readonly TransferChange[]): void {
    for (const change of holdings) this.holdings.push(change);
    for (const change of transfers) this.transfers.push(change);
  }

  /** A round of the addresses' aggregates once enough changes have gathered. */
  async maybeRound(tx: Sql): Promise<void> {
    if (this.holdings.length + this.transfers.length >= this.changesPerRound) await this.round(tx);
  }

  /** The last round, then the tags' and tokens' aggregates: just before the transaction commits. */
  async finish(tx: Sql): Promise<void> {
    await this.round(tx);
    await this.aggregates.finish(tx);
  }

  private async round(tx: Sql): Promise<void> {
    const [holdings, transfers] = [this.holdings, this.transfers];
    this.holdings = [];
    this.transfers = [];
    await this.aggregates.round(tx, holdings, transfers);
  }
}

function check(item: SourceItem, validator: RecordValidator): RuleResult {
  return item.problem === undefined ? validator.check(item.record) : { ok: false, reason: item.problem };
}

function lastPosition(batch: SourceBatch): number | undefined {
  return batch.end ?? batch.items[batch.items.length - 1]?.position;
}
