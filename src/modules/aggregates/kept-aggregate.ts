import type { Sql } from '../../database/db.service';
import type { SqlFragment } from '../../database/sql';

/** A holding as it was and as it is after a write; a balance of `0` stands for no row. */
export interface HoldingChange {
  chain: string;
  token_address: string;
  address: string;
  before: string;
  after: string;
}

/** Ends of a stored transaction. */
export interface TransferEnds {
  from_address: string;
  to_address: string;
}

/** A transaction as it was (undefined: new) and as it is after a write (undefined: removed). */
export interface TransferChange {
  before: TransferEnds | undefined;
  after: TransferEnds | undefined;
}

/** One round of a data write (AggregateWrite.round), as every kept aggregate sees it. */
export interface WriteRound {
  /** The holdings whose balance changed. */
  holdings: readonly HoldingChange[];
  /** The transactions whose ends changed (new, removed or moved). */
  transfers: readonly TransferChange[];
  /** Each address's tags (over every account): read once, after the addresses' rows are locked. */
  tagsOf(): Promise<ReadonlyMap<string, readonly number[]>>;
  /**
   * The addresses whose address_stats row the round changed and whose kept txn_count is above the
   * pairing threshold after it (`pairedAddresses.above`), with that count: filled by address_stats'
   * delta, which runs first.
   */
  overPairing: Map<string, number>;
}

/** What a data write does to one kept table: `round` as changes gather, `finish` before the commit. */
export interface DataDelta {
  round(tx: Sql, round: WriteRound): Promise<void>;
  finish(tx: Sql): Promise<void>;
}

/**
 * What a set of addresses brings to a tag, computed under the tag's row lock (see membership.ts):
 * how many addresses, their holdings above zero per token, and the transactions that count for the
 * tag once they join it (or stop counting once they leave it).
 */
export interface TagPart {
  addresses: number;
  /** The addresses themselves: canonical, distinct, in binary order. */
  members: readonly string[];
  holdings: { chain: string; token_address: string; count: number; balance: bigint }[];
  transactions: number;
}

/**
 * A kept table: its name and key, its rows as kept and as they must be (the reference computation,
 * which `stats verify` compares and `--repair` writes), and how each kind of write moves it. The
 * list KEPT_AGGREGATES (registry.ts) is also the lock order.
 */
export interface KeptAggregate {
  readonly table: string;
  /** The table's key columns. */
  readonly key: readonly string[];
  /** The kept rows to compare, those that count nothing left out (the same as no row). */
  kept(db: Pick<Sql, 'dialect'>): SqlFragment;
  /**
   * The columns `kept` and `reference` answer, in their order, where the table has others that
   * are not compared (left to their defaults by a rewrite); all of the table's when omitted.
   */
  readonly columns?: readonly string[];
  /** The rows as they must be, with the same columns. */
  reference(db: Pick<Sql, 'dialect'>): SqlFragment;
  /** A data write's delta (imports, a follower's blocks, rewinds): one per writing transaction. */
  dataWrite?(): DataDelta;
  /** A tag gains (`sign` 1) or loses (-1) `part`, under the tag's row lock. */
  membersChanged?(tx: Sql, tagId: number, part: TagPart, sign: 1 | -1): Promise<void>;
  /**
   * Addresses are joining the tag: the rows that depend on each of them alone (not on the tag's
   * other members), written before the tag's row lock (or under it, for a tag import); the part
   * they bring as a whole follows in `membersChanged`.
   */
  membersJoining?(tx: Sql, tagId: number, addresses: readonly string[]): Promise<void>;
  /**
   * The tag is being deleted, under its row lock and while its memberships are still there: its
   * rows go, where no foreign key's cascade takes them with the tag.
   */
  tagDeleted?(tx: Sql, tagId: number): Promise<void>;
  /**
   * For a column kept in another module's table (which `stats verify --repair` cannot empty and
   * refill): rewrites it from the reference in place.
   */
  rebuild?(tx: Sql): Promise<void>;
}
