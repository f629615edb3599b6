import { Logger } from '@nestjs/common';
import type { FollowedChainConfig } from '../../config/config';
import type { HoldingInput, RecordInput, TokenInput, TransactionInput } from '../../core/records/record-input';
import type { Sql } from '../../database/db.service';
import { LeasedWorker } from '../../workers/leased-worker';
import type { IngestService } from '../ingest/ingest.service';
import type { BackfillState, ChainSource, SourceReading } from './chain-source';
import { FollowerStatus, FollowRepository, Position, TRACKED_START, TrackedCursor } from './follow.repository';
import { BlockHeader, ChainMoved, HoldingKey, holdingKey, NATIVE, ObservedTransfer } from './reading';
import { describeNodeError } from './node-errors';

/** What a follower reports after each turn: to `GET /v2/sync` (through its row) and the metrics. */
export interface FollowerReport {
  head: bigint | undefined;
  indexed: bigint | undefined;
  status: FollowerStatus;
  error: string | undefined;
}

export interface FollowerTuning {
  /** How long a claim on the chain stands; renewed every turn and by every commit. */
  leaseMs: number;
  /** How often a process that does not hold the lease tries to take it. */
  standbyMs: number;
  /** The blocks read and committed in one transaction near the head, and the least while catching up. */
  rangeBlocks: number;
  /** The most blocks of one range while far behind (`nextSpan`). */
  maxRangeBlocks: number;
  /** While far behind, the range doubles after a range read faster than this, and halves after one read slower than twice it. */
  rangeReadMs: number;
  /** Newly tracked addresses taken in per turn. */
  registerPerTurn: number;
  /** The longest pause after failures in a row. */
  maxBackoffMs: number;
}

export const DEFAULT_TUNING: FollowerTuning = {
  leaseMs: 20_000,
  standbyMs: 5_000,
  rangeBlocks: 100,
  maxRangeBlocks: 1000,
  rangeReadMs: 1500,
  registerPerTurn: 5_000,
  maxBackoffMs: 30_000,
};

export interface FollowerDeps {
  settings: FollowedChainConfig;
  source: ChainSource;
  intervalMs: number;
  holder: string;
  repository: FollowRepository;
  ingest: IngestService;
  tuning: FollowerTuning;
  onReport: (report: FollowerReport) => void;
  /** Webhooks: told, inside the commit, of live transfers and of rewinds (absent: nothing is announced). */
  announce?: FollowerAnnouncements;
}

/** What the follower tells the webhooks module, in the transaction of the write it describes. */
export interface FollowerAnnouncements {
  confirmed(tx: Sql, chain: string, transfers: readonly TransactionInput[]): Promise<void>;
  removed(tx: Sql, chain: string, ancestor: bigint): Promise<void>;
}

/** A turn's answer: whether more work waits at once (catching up, backfilling), so the next turn need not wait. */
type Turn = { more: boolean };

/** Stops the chain until the process restarts: its data would be wrong if the follower went on. */
class ChainStopped extends Error {}

/** A range as read for its commit: the source's reading, the balances it touched read at its last block, and how long that took. */
type RangeRead = SourceReading & { headers: BlockHeader[]; readMs: number };

/**
 * The range after the one committing, read meanwhile (`ChainSource.readsAhead`). It is used only
 * by the turn that finds the position just below `from` and the same followed addresses; anything
 * else (a reorganisation, newly tracked addresses, a failure, the chain taken again) discards it.
 */
interface ReadAhead {
  from: bigint;
  /** How many addresses it was read for: the followed set only grows while the chain is this process's. */
  followed: number;
  /** Settles once; its failure is handled when (if) it is used. */
  read: Promise<RangeRead>;
}

/**
 * Follows one chain through its `ChainSource`, on the leased-worker core: every turn it makes
 * sure it is the chain's one writer, checks that the node is the chain's, looks for a
 * reorganisation at its position, takes in newly tracked addresses (their balances, and the
 * backfill of their history), reads the next range of blocks up to head − confirmations and
 * commits their transfers, the balances they touched, discovered tokens, the kept aggregates, the
 * source's own state and its new position in one transaction (the ingest module's sink). Then it
 * reads one step of a backfill, committed the same way with the backfill's progress.
 *
 * A reorganisation (the block at the position is no longer the node's) is undone in one
 * transaction: the transfers above the common ancestor go, the balances written since are read
 * again at the ancestor, and the position goes back to it. One deeper than the kept blocks stops
 * the chain (status `error`) rather than leave data the chain no longer has.
 */
export class ChainFollower {
  private readonly logger: Logger;
  private readonly chain;
  private readonly worker: LeasedWorker;
  /** Addresses followed block by block, as committed (follower_addresses). */
  private followed = new Set<string>();
  /** How far the tracked addresses are read: those up to it are followed (reported with the status). */
  private tracked: TrackedCursor = TRACKED_START;
  /** Token addresses that belong to a token, and those found not to be tokens chaintags records. */
  private known = new Set<string>();
  private readonly notTokens = new Set<string>();
  private head: bigint | undefined;
  private indexed: bigint | undefined;
  private stopped: string | undefined;
  private lastProgressLog = 0;
  /** Whether the followed set and the source's state were loaded since this process took the chain. */
  private prepared = false;
  /** The next range, read while the range before it commits. */
  private readAhead: ReadAhead | undefined;
  /** Blocks of the next range (`nextSpan`). */
  private span: number;

  constructor(private readonly deps: FollowerDeps) {
    this.chain = deps.settings.chain;
    this.logger = new Logger(`Follow ${this.chain}`);
    const { repository, holder, tuning } = deps;
    this.span = tuning.rangeBlocks;
    this.worker = new LeasedWorker({
      lease: {
        claim: (now, until) => repository.claim(this.chain, holder, now, until),
        release: () => repository.release(this.chain, holder),
      },
      leaseMs: tuning.leaseMs,
      intervalMs: deps.intervalMs,
      standbyMs: tuning.standbyMs,
      maxBackoffMs: tuning.maxBackoffMs,
      logger: this.logger,
      describe: {
        standby: 'another process follows this chain; standing by',
        holder: 'the chain is this process’s to follow now',
      },
      turn: async ({ becameHolder }) => {
        // Prepared again whenever the chain is taken (back), and until a preparation succeeds.
        if (becameHolder) {
          this.prepared = false;
          this.readAhead = undefined;
        }
        if (!this.prepared) {
          await this.prepare();
          this.prepared = true;
        }
        try {
          return await this.turn();
        } catch (error) {
          // The node reorganised while it was read: nothing was written; the next turn looks again.
          if (error instanceof ChainMoved) {
            this.logger.debug(error.message);
            return {};
          }
          throw error;
        }
      },
      failed: async ({ error, failures }) => {
        this.readAhead = undefined;
        const message = this.describe(error);
        if (error instanceof ChainStopped) this.stopped = message;
        if (failures === 1 || error instanceof ChainStopped) this.logger.error(message);
        await this.report('error', message);
        return undefined;
      },
    });
  }

  start(): void {
    this.worker.start();
  }

  /** Stops after the turn in flight (its transaction commits or rolls back whole) and gives up the lease. */
  async stop(): Promise<void> {
    await this.worker.stop();
    // A range still being read ahead is only reads: it ends (its failure handled) before the follower has stopped.
    const ahead = this.readAhead;
    this.readAhead = undefined;
    await ahead?.read.catch(() => undefined);
    await this.deps.source.settled?.();
  }

  private async prepare(): Promise<void> {
    const { repository, source } = this.deps;
    this.followed = new Set(await repository.followedAddresses(this.chain));
    const restored = await repository.settleRestoredOrder();
    if (restored > 0) this.logger.warn(`${restored} tracked addresses from another PostgreSQL cluster are read again`);
    this.tracked = await repository.trackedCursor(this.chain);
    this.known = await repository.knownTokenContracts(this.chain);
    await source.prepare(this.followed);
    this.logger.log(`following ${this.chain}: ${this.followed.size} addresses`);
  }

  private async turn(): Promise<Turn> {
    if (this.stopped !== undefined) throw new ChainStopped(this.stopped);
    const { repository, source, settings, tuning } = this.deps;

    const [mismatch, head] = await Promise.all([source.mismatch(), source.head()]);
    if (mismatch !== undefined) {
      throw new Error(
        `${mismatch}: nothing is written for ${this.chain} until RPC_URL_${this.chain.toUpperCase()} points at a node of that chain`,
      );
    }
    this.head = head;
    const position = await repository.position(this.chain);
    this.indexed = position.block;

    let at: BlockHeader | undefined;
    if (position.block !== undefined) {
      at = await source.header(position.block);
      if (at?.hash !== position.hash) {
        this.readAhead = undefined;
        await this.undoReorganisation(position);
        return { more: true };
      }
    }

    const { addresses: fresh, next: trackedNext } = await this.newlyTracked(tuning.registerPerTurn);
    if (fresh.length > 0 && at !== undefined) {
      // Taken in at the position, so the range read next follows them with their state known.
      this.readAhead = undefined;
      await this.takeIn(fresh, at);
      this.tracked = trackedNext;
      return { more: true };
    }
    // Before the first commit, those found are followed with it; the cursor moves once they are.
    if (fresh.length === 0) this.tracked = trackedNext;

    const target = head - BigInt(settings.confirmations);
    const from = position.block === undefined ? settings.startBlock : position.block + 1n;
    let behind = false;
    if (target >= from) {
      // Before the first commit there is no history to backfill: every address is followed from START_BLOCK.
      // The followed set itself when nothing joins it: a copy costs a turn O(followed), 0.4 s at a million.
      // It only grows, so a range read ahead for it is known by its size (takeReadAhead).
      const followedNow = fresh.length === 0 ? this.followed : new Set([...this.followed, ...fresh]);
      const ahead = this.takeReadAhead(from, followedNow.size);
      const reading = ahead === undefined ? await this.readSpan(from, target, followedNow) : await ahead.read;
      const first = reading.headers[0];
      // The node moved between the check above and this reading: the next turn looks again.
      if (position.hash !== undefined && first !== undefined && first.parentHash !== position.hash)
        return { more: true };
      const last = reading.headers[reading.headers.length - 1]!;
      // A range read ahead is committed only if its last block is still the node's: a
      // reorganisation that landed meanwhile discards it rather than commit it and undo it after.
      if (ahead !== undefined && (await source.header(last.number))?.hash !== last.hash) return { more: true };
      this.span = nextSpan(this.span, reading.readMs, target - last.number, tuning);
      // The next range is read while this one commits: it depends on nothing this commit writes.
      if (source.readsAhead === true && last.number < target)
        this.startReadAhead(last.number + 1n, target, followedNow);
      await this.commit(reading, last, async (tx, transfers) => {
        if (fresh.length > 0) await repository.follow(tx, this.chain, fresh, undefined, new Date());
        await repository.advance(tx, this.chain, reading.headers, this.keptBlocks());
        // Webhooks: only live ranges are announced (never take-ins or backfill steps).
        await this.deps.announce?.confirmed(tx, this.chain, transfers);
      });
      for (const address of fresh) this.followed.add(address);
      this.tracked = trackedNext;
      this.indexed = last.number;
      at = last;
      behind = last.number < target;
      this.logProgress(`block ${last.number} of ${target}`);
    }

    const backfilling = at === undefined ? false : await this.backfillStep(at);
    await this.report(behind || backfilling ? 'syncing' : 'synced', undefined);
    return { more: behind || backfilling };
  }

  /**
   * Blocks `from`.. (at most the span, through `target`) for `followed`, with the balances they
   * touched read at the last block, once for the whole range: the commit then reads none, so a
   * range read ahead of its commit carries all it needs from the node.
   */
  private async readSpan(from: bigint, target: bigint, followed: ReadonlySet<string>): Promise<RangeRead> {
    const { source } = this.deps;
    const started = Date.now();
    const to = min(target, from + BigInt(this.span) - 1n);
    const reading = await source.readRange(from, to, followed);
    const last = reading.headers[reading.headers.length - 1];
    if (last === undefined) return { ...reading, readMs: Date.now() - started };
    const known = reading.known;
    const missing = reading.touched.filter(
      (key) => !known?.has(holdingKey(key)) && (key.token_address === NATIVE || !this.notTokens.has(key.token_address)),
    );
    if (missing.length === 0) return { ...reading, readMs: Date.now() - started };
    const read = await source.balances(missing, last);
    const balances = new Map(known);
    for (const key of missing) balances.set(holdingKey(key), read.get(holdingKey(key)) ?? '0');
    return { ...reading, known: balances, readMs: Date.now() - started };
  }

  private startReadAhead(from: bigint, target: bigint, followed: ReadonlySet<string>): void {
    const read = this.readSpan(from, target, followed);
    // Handled where it is used; a read-ahead discarded unused fails silently.
    read.catch(() => undefined);
    this.readAhead = { from, followed: followed.size, read };
  }

  /** The range read ahead, when it starts at `from` and was read for the followed addresses of now. */
  private takeReadAhead(from: bigint, followed: number): ReadAhead | undefined {
    const ahead = this.readAhead;
    this.readAhead = undefined;
    if (ahead === undefined || ahead.from !== from || ahead.followed !== followed) return undefined;
    return ahead;
  }

  /**
   * Addresses some account tracks that the follower does not follow yet and that are valid on the
   * chain; those that only look valid (another chain's address of the same shape) are remembered.
   */
  private async newlyTracked(limit: number): Promise<{ addresses: string[]; next: TrackedCursor }> {
    const { source, repository } = this.deps;
    for (;;) {
      const found = await repository.newlyTracked(this.chain, source.addresses, this.tracked, limit);
      const foreign = found.addresses.filter((address) => !source.addresses.valid(address));
      if (foreign.length === 0) return found;
      await repository.skipForeign(this.chain, foreign);
    }
  }

  /** Follows `fresh` from the position on: their balances at it and the backfill of their history, in one commit. */
  private async takeIn(fresh: readonly string[], at: BlockHeader): Promise<void> {
    const { repository, source } = this.deps;
    const reading = await source.takeIn(fresh, at);
    const plan = at.number >= this.deps.settings.startBlock ? source.backfillFor(at.number) : undefined;
    await this.commit(reading, at, (tx) => repository.follow(tx, this.chain, fresh, plan, new Date()));
    for (const address of fresh) this.followed.add(address);
    this.logger.log(
      plan === undefined
        ? `${fresh.length} newly tracked addresses followed from block ${at.number}`
        : `${fresh.length} newly tracked addresses: their history up to block ${plan.throughBlock} is read in the background`,
    );
  }

  /**
   * Writes one reading in one transaction: tokens first seen, transfers, the balances the reading
   * touched, as of `at`; then the source's own writes, the hook's (position, follow rows or backfill
   * progress) and the lease check, so that nothing commits for a process that lost the chain.
   */
  private async commit(
    reading: SourceReading,
    at: BlockHeader,
    write: (tx: Sql, transfers: readonly TransactionInput[]) => Promise<void>,
  ): Promise<void> {
    const { source, repository, holder, tuning } = this.deps;
    const touched = new Map<string, HoldingKey>();
    for (const key of reading.touched) touched.set(holdingKey(key), key);

    const unknown = [...new Set([...touched.values()].map((key) => key.token_address))].filter(
      (token) => token !== '0' && !this.known.has(token) && !this.notTokens.has(token),
    );
    const tokens: TokenInput[] = [];
    if (unknown.length > 0) {
      const found = await source.discoverTokens(unknown, at);
      for (const token of unknown) {
        const record = found.get(token);
        if (record === undefined) this.notTokens.add(token);
        else tokens.push(record);
      }
    }
    const recordable = (token: string) => !this.notTokens.has(token);
    const keys = [...touched.values()].filter((key) => recordable(key.token_address));
    const holdings = await this.readHoldings(keys, at, reading.known);
    const transfers: TransactionInput[] = reading.transfers
      .filter((transfer) => recordable(transfer.token_address))
      .map(toRecord);
    const items: RecordInput[] = [...tokens, ...transfers, ...holdings];

    const written = await this.deps.ingest.writeLive(items, async (tx) => {
      await reading.write?.(tx);
      await write(tx, transfers);
      await repository.holdLease(tx, this.chain, holder, new Date(Date.now() + tuning.leaseMs));
    });
    if (!written.committed) {
      throw new ChainStopped(`a record read from the chain was refused (${written.reason}); ${this.chain} stops`);
    }
    reading.committed?.();
    for (const token of tokens) this.known.add(token.deployments[0]!.address);
  }

  /** One step of the oldest backfill, committed with its progress; answers whether any is left. */
  private async backfillStep(at: BlockHeader): Promise<boolean> {
    const { repository, source } = this.deps;
    const [backfill, ...others] = await repository.backfills(this.chain);
    if (backfill === undefined) return false;
    const { reading, next } = await source.backfillStep(backfill);
    await this.commit(reading, at, (tx) => repository.progress(tx, next));
    const done = next.tokenNext > next.throughBlock && next.nativeNext > next.throughBlock;
    if (done) {
      this.logger.log(
        `backfill of ${backfill.addresses.length} addresses done (through block ${backfill.throughBlock})`,
      );
    } else {
      this.logProgress(
        `backfill of ${backfill.addresses.length} addresses: ${progressText(backfill, next, this.deps.settings.startBlock)}`,
      );
    }
    // Whether history is still to be read: after the last step the turn reports synced, so that
    // GET /v2/sync does not go back to syncing once it has seen the backfill row gone.
    return !done || others.length > 0;
  }

  private async undoReorganisation(position: Position): Promise<void> {
    const { repository, source, holder, tuning } = this.deps;
    const kept = await repository.keptBlocks(this.chain, position.block!);
    let ancestor: BlockHeader | undefined;
    for (const block of kept) {
      const header = await source.header(block.number);
      if (header?.hash === block.hash) {
        ancestor = header;
        break;
      }
    }
    if (ancestor === undefined) {
      throw new ChainStopped(
        `reorganisation deeper than the ${kept.length} blocks kept (block ${position.block} is no longer the node's, nor any kept block below it): ${this.chain} stops; restore a backup or rebuild the chain's data`,
      );
    }
    const depth = position.block! - ancestor.number;
    const keys = await repository.holdingsWrittenSince(this.chain, ancestor.time);
    const undo = await source.rewind(ancestor);
    const holdings = await this.readHoldings(keys, ancestor, undo.known);
    await this.deps.ingest.rewindChain(this.chain, ancestor.number, holdings, async (tx) => {
      await undo.write?.(tx);
      await repository.rewind(tx, this.chain, ancestor);
      // Webhooks: announced transfers above the ancestor are removed.
      await this.deps.announce?.removed(tx, this.chain, ancestor.number);
      await repository.holdLease(tx, this.chain, holder, new Date(Date.now() + tuning.leaseMs));
    });
    undo.committed?.();
    this.indexed = ancestor.number;
    this.logger.warn(
      `reorganisation: ${depth} block${depth === 1n ? '' : 's'} after ${ancestor.number} undone, ${keys.length} balances read again`,
    );
  }

  /** The balances of `keys` at block `at`, as holding records of that block's time. */
  private async readHoldings(
    keys: readonly HoldingKey[],
    at: BlockHeader,
    known: ReadonlyMap<string, string> | undefined,
  ): Promise<HoldingInput[]> {
    const missing = known === undefined ? keys : keys.filter((key) => !known.has(holdingKey(key)));
    const read = missing.length === 0 ? new Map<string, string>() : await this.deps.source.balances(missing, at);
    return keys.map((key) => ({
      type: 'holding',
      chain: this.chain,
      address: key.address,
      token_address: key.token_address,
      balance: known?.get(holdingKey(key)) ?? read.get(holdingKey(key)) ?? '0',
      updated_at: at.time,
    }));
  }

  private keptBlocks(): number {
    return Math.max(128, 2 * this.deps.settings.confirmations);
  }

  private async report(status: FollowerStatus, error: string | undefined): Promise<void> {
    const figures = { head: this.head, indexed: this.indexed, status, error };
    this.deps.onReport(figures);
    if (this.worker.role !== 'holder') return;
    try {
      await this.deps.repository.report(this.chain, this.deps.holder, {
        ...figures,
        at: new Date(),
        tracked: this.tracked,
      });
    } catch (failure) {
      this.logger.warn(`could not record the follower's status: ${this.describe(failure)}`);
    }
  }

  private logProgress(message: string): void {
    const now = Date.now();
    if (now - this.lastProgressLog < 10_000) return;
    this.lastProgressLog = now;
    this.logger.log(message);
  }

  /** An error for a person, without the RPC URLs (providers put API keys and passwords in them). */
  private describe(error: unknown): string {
    return describeNodeError(error, this.deps.settings.rpcUrls);
  }
}

function toRecord(transfer: ObservedTransfer): TransactionInput {
  return { type: 'transaction', ...transfer };
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

function progressText(backfill: BackfillState, next: BackfillState, start: bigint): string {
  const parts: string[] = [];
  if (backfill.tokenNext <= backfill.throughBlock)
    parts.push(`token transfers ${share(backfill, next.tokenNext, start)}`);
  parts.push(`native transfers from block ${next.nativeNext} to ${backfill.throughBlock}`);
  return parts.join(', ');
}

function share(backfill: BackfillState, next: bigint, start: bigint): string {
  const total = backfill.throughBlock - start + 1n;
  if (total <= 0n) return '100%';
  const done = next - start;
  return `${Number((done * 100n) / total)}%`;
}

/**
 * The blocks of the range after one of `span` blocks read in `readMs`, with `behind` blocks left
 * to the target: near the head (less than two spans behind) `rangeBlocks`; far behind, twice as
 * many after a fast read and half as many after a slow one, between `rangeBlocks` and
 * `maxRangeBlocks`. A larger range reads each touched balance once for more blocks and commits
 * once for more blocks; the read time keeps a range of dense blocks (and its memory) bounded.
 */
export function nextSpan(
  span: number,
  readMs: number,
  behind: bigint,
  tuning: Pick<FollowerTuning, 'rangeBlocks' | 'maxRangeBlocks' | 'rangeReadMs'>,
): number {
  const { rangeBlocks, maxRangeBlocks, rangeReadMs } = tuning;
  if (behind < BigInt(2 * span)) return rangeBlocks;
  if (readMs < rangeReadMs) return Math.min(maxRangeBlocks, span * 2);
  if (readMs > 2 * rangeReadMs) return Math.max(rangeBlocks, Math.floor(span / 2));
  return span;
}
