import type { FollowedChainConfig } from '../../config/config';
import type { ChainId } from '../../core/chains/chain-ids';
import type { TokenInput } from '../../core/records/record-input';
import type { Sql } from '../../database/db.service';
import type { BlockHeader, HoldingKey, ObservedTransfer } from './reading';

/**
 * The seam between the follower and a chain family. The follower (`ChainFollower`) owns
 * everything that is the same on every chain: the lease, the position and the kept block hashes,
 * finding and undoing reorganisations, taking in newly tracked addresses, backfills, reporting,
 * and committing each reading through the ingest module's sink in one transaction. A source owns
 * what differs: talking to the node, turning blocks into transfers of tracked addresses, balances,
 * and whatever state of its own it keeps to do so (the UTXO source's tracked outputs).
 *
 * A source reads; it never commits. What it needs written with a reading it hands over as
 * `write`, which runs inside the follower's transaction, and `committed` tells it the reading is
 * in the database, so in-memory state follows the database and never runs ahead of it.
 */
export interface ChainSource {
  readonly chain: ChainId;

  /** Which tracked addresses can be valid on the chain, in SQL terms first (prefixes, lengths), then exactly. */
  readonly addresses: AddressShape;

  /**
   * Whether `readRange` of the next range may run while the reading before it commits: its answer
   * must not depend on what that reading's `write` and `committed` do (it is read from the node
   * alone), and it may be dropped unused (a reorganisation, newly tracked addresses, a failure).
   * Absent: each range is read after the one before it committed. README "A turn".
   */
  readonly readsAhead?: boolean;

  /**
   * Resolves once nothing the source reads on its own is still running (the UTXO source reads the
   * blocks after a range that ended at its read budget while that range commits). The follower
   * awaits it when it stops. Absent: the source reads only when asked.
   */
  settled?(): Promise<void>;

  /**
   * Why the node is not the chain's (another chain id, network or genesis block), for a person and
   * without the node's URL; undefined when it is. Checked before every turn writes anything.
   */
  mismatch(): Promise<string | undefined>;

  /** The node's latest block number. */
  head(): Promise<bigint>;

  /** The node's block at `height`, undefined when it has none. */
  header(height: bigint): Promise<BlockHeader | undefined>;

  /**
   * Called when this process becomes the chain's writer (and after a rewind), before its first
   * reading: the source loads what it keeps in the database.
   */
  prepare(followed: ReadonlySet<string>): Promise<void>;

  /**
   * Blocks `from`..`to` (consecutive, ascending) as transfers of the `followed` addresses, the
   * balances they touched and the blocks' headers. A source may end the range early, one block at
   * least (the UTXO source at its read budget): the follower goes on from the last header. Throws
   * `ChainMoved` when the node's chain changed while it was read.
   */
  readRange(
    from: bigint,
    to: bigint,
    followed: ReadonlySet<string>,
  ): Promise<SourceReading & { headers: BlockHeader[] }>;

  /**
   * Addresses followed from now on, at block `at` (the follower's position): their balances as of
   * `at` (`touched`, or `known` balances), with whatever the source must keep to follow them.
   */
  takeIn(fresh: readonly string[], at: BlockHeader): Promise<SourceReading>;

  /** Where the backfill of addresses taken in at `trackedAt` starts and ends. */
  backfillFor(trackedAt: bigint): BackfillPlan | undefined;

  /** Reads one step of a backfill's history; `next` is the backfill after it. */
  backfillStep(backfill: BackfillState): Promise<{ reading: SourceReading; next: BackfillState }>;

  /** The balances of `keys` at block `at` (key: `holdingKey`); a source that knows them answers from what it keeps. */
  balances(keys: readonly HoldingKey[], at: BlockHeader): Promise<Map<string, string>>;

  /**
   * Token records of token addresses seen for the first time at `at` (undefined for one that is
   * not a token chaintags records). Sources of native-only chains have none to discover.
   */
  discoverTokens(tokenAddresses: readonly string[], at: BlockHeader): Promise<Map<string, TokenInput | undefined>>;

  /**
   * A reorganisation back to `ancestor`: the source's own kept state above it goes (`write`, in
   * the rewind's transaction), and `balances` answers for the ancestor once `committed`.
   */
  rewind(ancestor: BlockHeader): Promise<Pick<SourceReading, 'write' | 'committed' | 'known'>>;
}

/** What a source read: transfers, the balances they touched, and the source's own writes. */
export interface SourceReading {
  transfers: ObservedTransfer[];
  /** Balances the reading may have changed, each once. */
  touched: HoldingKey[];
  /** Balances the source knows already (key: `holdingKey`); the others are read with `balances`. */
  known?: ReadonlyMap<string, string>;
  /** The source's own writes, in the transaction that commits the reading. */
  write?: (tx: Sql) => Promise<void>;
  /** Called once the reading is committed. */
  committed?: () => void;
}

/** A tracked address's possible shapes on a chain: SQL narrows the candidates, `valid` decides. */
export interface AddressShape {
  /** Canonical addresses on the chain start with one of these. */
  prefixes: readonly string[];
  minLength: number;
  maxLength: number;
  valid(address: string): boolean;
}

/** The span of history a backfill reads: token transfers from `tokenNext`, native ones from `nativeNext`, through `throughBlock`. */
export interface BackfillPlan {
  throughBlock: bigint;
  tokenNext: bigint;
  nativeNext: bigint;
}

export interface BackfillState extends BackfillPlan {
  id: number;
  addresses: string[];
}

/**
 * The plan of a source whose history has one side (the Bitcoin family, Solana, TON: an account's
 * own history covers its coins and tokens alike): everything from `nativeBackfillStart` through the
 * block the addresses were taken in at, and no token side.
 */
export function onePassBackfill(settings: FollowedChainConfig, trackedAt: bigint): BackfillPlan {
  return { throughBlock: trackedAt, tokenNext: trackedAt + 1n, nativeNext: nativeBackfillStart(settings, trackedAt) };
}

/** The first block of a newly tracked address's native history: NATIVE_BACKFILL_BLOCKS before it was tracked. */
export function nativeBackfillStart(settings: FollowedChainConfig, trackedAt: bigint): bigint {
  if (settings.nativeBackfillBlocks === 'all') return settings.startBlock;
  const from = trackedAt - settings.nativeBackfillBlocks + 1n;
  return from > settings.startBlock ? from : settings.startBlock;
}
