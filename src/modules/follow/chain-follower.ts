import { Logger } from '@nestjs/common';
import type { EvmChain } from '../../core/chains/chain-registry';
import type { HoldingInput, RecordInput, TokenInput } from '../../core/records/record-input';
import { NATIVE_TOKEN } from '../../core/addresses/token-address';
import type { FollowedChainConfig } from '../../config/config';
import type { Sql } from '../../database/db.service';
import type { IngestService } from '../ingest/ingest.service';
import { Backfill, FollowerStatus, FollowRepository, LeaseLost, Position } from './follow.repository';
import type { ChainReader } from './rpc/chain-reader';
import { BlockHeader, ChainMoved, HoldingKey, holdingKey, ObservedTransfer, Reading } from './rpc/reading';
import { tokenFromContract } from './token-discovery';

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
  /** The most blocks read and committed in one transaction while catching up. */
  rangeBlocks: number;
  /** Blocks of token-transfer history read per backfill step (the reader splits it further when the node asks). */
  tokenBackfillBlocks: number;
  /** Whole blocks read per native backfill step. */
  nativeBackfillBlocks: number;
  /** Newly tracked addresses taken in per turn. */
  registerPerTurn: number;
  /** The longest pause after failures in a row. */
  maxBackoffMs: number;
}

export const DEFAULT_TUNING: FollowerTuning = {
  leaseMs: 20_000,
  standbyMs: 5_000,
  rangeBlocks: 100,
  tokenBackfillBlocks: 10_000,
  nativeBackfillBlocks: 100,
  registerPerTurn: 5_000,
  maxBackoffMs: 30_000,
};

export interface FollowerDeps {
  settings: FollowedChainConfig;
  facts: EvmChain;
  intervalMs: number;
  holder: string;
  reader: ChainReader;
  repository: FollowRepository;
  ingest: IngestService;
  tuning: FollowerTuning;
  onReport: (report: FollowerReport) => void;
}

/** A turn's answer: whether more work waits at once (catching up, backfilling), so the next turn need not wait. */
type Turn = { more: boolean };

/** Stops the chain until the process restarts: its data would be wrong if the follower went on. */
class ChainStopped extends Error {}

/**
 * Follows one EVM chain: every turn it makes sure it is the chain's one writer (a lease row),
 * checks the node's chain id, looks for a reorganisation at its position, takes in newly tracked
 * addresses, reads the next range of blocks up to head − confirmations and commits their
 * transfers, the balances they touched (read from state at the range's last block), discovered
 * tokens, the kept aggregates and its new position in one transaction (the ingest module's sink).
 * Then it reads one step of a backfill, committed the same way with the backfill's progress.
 *
 * A reorganisation (the block at the position is no longer the node's) is undone in one
 * transaction: the transfers above the common ancestor go, the balances written since are read
 * again at the ancestor, and the position goes back to it. One deeper than the kept blocks stops
 * the chain (status `error`) rather than leave data the chain no longer has.
 */
export class ChainFollower {
  private readonly logger: Logger;
  private readonly chain;
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;
  private role: 'starting' | 'holder' | 'standby' = 'starting';
  /** Addresses followed block by block, as committed (follower_addresses). */
  private followed = new Set<string>();
  /** Token contracts that belong to a token, and contracts found not to be ERC-20 tokens. */
  private known = new Set<string>();
  private readonly notTokens = new Set<string>();
  private head: bigint | undefined;
  private indexed: bigint | undefined;
  private stopped: string | undefined;
  private failures = 0;
  private lastProgressLog = 0;

  constructor(private readonly deps: FollowerDeps) {
    this.chain = deps.settings.chain;
    this.logger = new Logger(`Follow ${this.chain}`);
  }

  start(): void {
    this.running ??= this.run();
  }

  /** Stops after the turn in flight (its transaction commits or rolls back whole) and gives up the lease. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
    if (this.role === 'holder') {
      try {
        await this.deps.repository.release(this.chain, this.deps.holder);
      } catch {
        // The lease lapses by itself; a database that is gone cannot be told.
      }
    }
  }

  private async run(): Promise<void> {
    while (!this.stopping.signal.aborted) {
      let turn: Turn = { more: false };
      try {
        turn = await this.turn();
        this.failures = 0;
      } catch (error) {
        turn = { more: false };
        // The node reorganised while it was read: nothing was written; the next turn looks again.
        if (error instanceof ChainMoved) this.logger.debug(error.message);
        else await this.failed(error);
      }
      if (turn.more || this.stopping.signal.aborted) continue;
      await this.pause(this.nextDelay());
    }
  }

  private nextDelay(): number {
    if (this.role === 'standby') return this.deps.tuning.standbyMs;
    if (this.failures === 0) return this.deps.intervalMs;
    return Math.min(this.deps.intervalMs * 2 ** this.failures, this.deps.tuning.maxBackoffMs);
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const signal = this.stopping.signal;
      function done(): void {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done);
    });
  }

  private async failed(error: unknown): Promise<void> {
    if (error instanceof LeaseLost) {
      this.logger.warn(`${error.message}; standing by`);
      this.role = 'standby';
      return;
    }
    this.failures += 1;
    const message = this.describe(error);
    if (error instanceof ChainStopped) this.stopped = message;
    if (this.failures === 1 || error instanceof ChainStopped) this.logger.error(message);
    await this.report('error', message);
  }

  private async turn(): Promise<Turn> {
    const { repository, holder, tuning } = this.deps;
    const now = Date.now();
    if (!(await repository.claim(this.chain, holder, new Date(now), new Date(now + tuning.leaseMs)))) {
      if (this.role !== 'standby') this.logger.log('another process follows this chain; standing by');
      this.role = 'standby';
      return { more: false };
    }
    if (this.role !== 'holder') {
      this.role = 'holder';
      this.followed = new Set(await repository.followedAddresses(this.chain));
      this.known = await repository.knownTokenContracts(this.chain);
      this.logger.log(`following ${this.chain}: ${this.followed.size} addresses`);
    }
    if (this.stopped !== undefined) throw new ChainStopped(this.stopped);

    const { reader, facts, settings } = this.deps;
    const [chainId, head] = await Promise.all([reader.chainId(), reader.head()]);
    if (chainId !== facts.chainId) {
      throw new Error(
        `the node answers chain id ${chainId}, not ${facts.chainId} (${facts.name}): nothing is written for ${this.chain} until RPC_URL_${this.chain.toUpperCase()} points at ${facts.name}`,
      );
    }
    this.head = head;
    const position = await repository.position(this.chain);
    this.indexed = position.block;

    let at: BlockHeader | undefined;
    if (position.block !== undefined) {
      at = await reader.header(position.block);
      if (at?.hash !== position.hash) {
        await this.undoReorganisation(position);
        return { more: true };
      }
    }

    const target = head - BigInt(settings.confirmations);
    const from = position.block === undefined ? settings.startBlock : position.block + 1n;
    const fresh = await repository.newlyTracked(this.chain, tuning.registerPerTurn);
    let behind = false;
    if (target >= from) {
      const to = min(target, from + BigInt(tuning.rangeBlocks) - 1n);
      const followedNow = new Set([...this.followed, ...fresh]);
      const reading = await reader.readRange(from, to, followedNow);
      const first = reading.headers[0];
      // The node moved between the check above and this reading: the next turn looks again.
      if (position.hash !== undefined && first !== undefined && first.parentHash !== position.hash)
        return { more: true };
      const last = reading.headers[reading.headers.length - 1]!;
      await this.commit(reading, last, fresh, position, (tx) =>
        repository.advance(tx, this.chain, reading.headers, this.keptBlocks()),
      );
      this.indexed = last.number;
      at = last;
      behind = last.number < target;
      this.logProgress(`block ${last.number} of ${target}`);
    } else if (fresh.length > 0 && at !== undefined) {
      await this.commit({ transfers: [], touched: [] }, at, fresh, position, async () => {});
    }

    const backfilling = at === undefined ? false : await this.backfillStep(at);
    await this.report(behind || backfilling ? 'syncing' : 'synced', undefined);
    return { more: behind || backfilling };
  }

  /**
   * Writes one reading in one transaction: tokens first seen, transfers, the balances the reading
   * touched (and the native balances of newly followed addresses), read at `at`; then the hook's
   * own writes (position or backfill progress) and the lease check, so that nothing commits for
   * a process that lost the chain.
   */
  private async commit(
    reading: Reading,
    at: BlockHeader,
    fresh: readonly string[],
    position: Position,
    write: (tx: Sql) => Promise<void>,
  ): Promise<void> {
    const { reader, repository, settings, holder, tuning } = this.deps;
    const touched = new Map<string, HoldingKey>();
    for (const key of reading.touched) touched.set(holdingKey(key), key);
    for (const address of fresh)
      touched.set(holdingKey({ address, token_address: NATIVE_TOKEN }), { address, token_address: NATIVE_TOKEN });

    const unknown = [...new Set([...touched.values()].map((key) => key.token_address))].filter(
      (contract) => contract !== NATIVE_TOKEN && !this.known.has(contract) && !this.notTokens.has(contract),
    );
    const tokens: TokenInput[] = [];
    if (unknown.length > 0) {
      const metadata = await reader.tokenMetadata(unknown, at.number);
      for (const contract of unknown) {
        const token = tokenFromContract(this.deps.facts, contract, metadata.get(contract));
        if (token === undefined) this.notTokens.add(contract);
        else tokens.push(token);
      }
    }
    const recordable = (token: string) => !this.notTokens.has(token);
    const keys = [...touched.values()].filter((key) => recordable(key.token_address));
    const holdings = await this.readHoldings(keys, at);
    const transfers = reading.transfers.filter((transfer) => recordable(transfer.token_address)).map(toRecord);
    const items: RecordInput[] = [...tokens, ...transfers, ...holdings];

    const backfill =
      fresh.length > 0 && position.block !== undefined && position.block >= settings.startBlock
        ? {
            throughBlock: position.block,
            tokenNext: settings.startBlock,
            nativeNext: nativeBackfillStart(settings, position.block),
          }
        : undefined;
    const written = await this.deps.ingest.writeLive(items, async (tx) => {
      if (fresh.length > 0) await repository.follow(tx, this.chain, fresh, backfill, new Date());
      await write(tx);
      await repository.holdLease(tx, this.chain, holder, new Date(Date.now() + tuning.leaseMs));
    });
    if (!written.committed) {
      throw new ChainStopped(`a record read from the chain was refused (${written.reason}); ${this.chain} stops`);
    }
    for (const token of tokens) this.known.add(token.deployments[0]!.address);
    for (const address of fresh) this.followed.add(address);
    if (backfill !== undefined) {
      this.logger.log(
        `${fresh.length} newly tracked addresses: their history up to block ${backfill.throughBlock} is read in the background`,
      );
    }
  }

  /** One step of the oldest backfill: token transfers first (cheap), then native ones (whole blocks). */
  private async backfillStep(at: BlockHeader): Promise<boolean> {
    const { repository, reader, tuning } = this.deps;
    const [backfill] = await repository.backfills(this.chain);
    if (backfill === undefined) return false;
    const next: Backfill = { ...backfill };
    let reading: Reading = { transfers: [], touched: [] };
    if (backfill.tokenNext <= backfill.throughBlock) {
      const to = min(backfill.throughBlock, backfill.tokenNext + BigInt(tuning.tokenBackfillBlocks) - 1n);
      reading = await reader.tokenTransfers(backfill.tokenNext, to, backfill.addresses);
      next.tokenNext = to + 1n;
    } else if (backfill.nativeNext <= backfill.throughBlock) {
      const to = min(backfill.throughBlock, backfill.nativeNext + BigInt(tuning.nativeBackfillBlocks) - 1n);
      reading = await reader.nativeTransfers(backfill.nativeNext, to, new Set(backfill.addresses));
      next.nativeNext = to + 1n;
    }
    await this.commit(reading, at, [], { block: undefined, hash: undefined }, (tx) => repository.progress(tx, next));
    const done = next.tokenNext > next.throughBlock && next.nativeNext > next.throughBlock;
    if (done) {
      this.logger.log(
        `backfill of ${backfill.addresses.length} addresses done (through block ${backfill.throughBlock})`,
      );
    } else {
      this.logProgress(
        `backfill of ${backfill.addresses.length} addresses: token transfers ${share(backfill, next.tokenNext, this.deps.settings.startBlock)}, native transfers from block ${next.nativeNext} to ${backfill.throughBlock}`,
      );
    }
    return true;
  }

  private async undoReorganisation(position: Position): Promise<void> {
    const { repository, reader, holder, tuning } = this.deps;
    const kept = await repository.keptBlocks(this.chain, position.block!);
    let ancestor: BlockHeader | undefined;
    for (const block of kept) {
      const header = await reader.header(block.number);
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
    const holdings = await this.readHoldings(keys, ancestor);
    await this.deps.ingest.rewindChain(this.chain, ancestor.number, holdings, async (tx) => {
      await repository.rewind(tx, this.chain, ancestor);
      await repository.holdLease(tx, this.chain, holder, new Date(Date.now() + tuning.leaseMs));
    });
    this.indexed = ancestor.number;
    this.logger.warn(
      `reorganisation: ${depth} block${depth === 1n ? '' : 's'} after ${ancestor.number} undone, ${keys.length} balances read again`,
    );
  }

  /** The balances of `keys` in the chain's state at block `at`, as holding records of that block's time. */
  private async readHoldings(keys: readonly HoldingKey[], at: BlockHeader): Promise<HoldingInput[]> {
    const balances = await this.deps.reader.balances(keys, at.number);
    return keys.map((key) => ({
      type: 'holding',
      chain: this.chain,
      address: key.address,
      token_address: key.token_address,
      balance: balances.get(holdingKey(key)) ?? '0',
      updated_at: at.time,
    }));
  }

  private keptBlocks(): number {
    return Math.max(128, 2 * this.deps.settings.confirmations);
  }

  private async report(status: FollowerStatus, error: string | undefined): Promise<void> {
    const figures = { head: this.head, indexed: this.indexed, status, error };
    this.deps.onReport(figures);
    if (this.role !== 'holder') return;
    try {
      await this.deps.repository.report(this.chain, this.deps.holder, { ...figures, at: new Date() });
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

  /** An error for a person, without the RPC URLs (providers put API keys in them). */
  private describe(error: unknown): string {
    const raw =
      error instanceof Error
        ? ((error as Error & { shortMessage?: string }).shortMessage ?? error.message)
        : String(error);
    let text = raw;
    for (const url of this.deps.settings.rpcUrls) text = text.split(url).join('<rpc url>');
    return text.replace(/https?:\/\/\S+/g, '<rpc url>').slice(0, 500);
  }
}

function toRecord(transfer: ObservedTransfer): RecordInput {
  return { type: 'transaction', ...transfer };
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

/** The first block of a newly tracked address's native history: NATIVE_BACKFILL_BLOCKS before it was tracked. */
export function nativeBackfillStart(settings: FollowedChainConfig, trackedAt: bigint): bigint {
  if (settings.nativeBackfillBlocks === 'all') return settings.startBlock;
  const from = trackedAt - settings.nativeBackfillBlocks + 1n;
  return from > settings.startBlock ? from : settings.startBlock;
}

function share(backfill: Backfill, next: bigint, start: bigint): string {
  const total = backfill.throughBlock - start + 1n;
  if (total <= 0n) return '100%';
  const done = next - start;
  return `${Number((done * 100n) / total)}%`;
}
