import { Injectable } from '@nestjs/common';
import type { ChainId } from '../../core/chains/chain-ids';
import { Db, Sql } from '../../database/db.service';
import { chunks, join, rows, sql, type SqlFragment } from '../../database/sql';
import type { AddressShape, BackfillPlan, BackfillState } from './chain-source';
import { LeaseLost } from '../../workers/leased-worker';

/** Where a follower stands: the last block whose data is committed, none before the first commit. */
export interface Position {
  block: bigint | undefined;
  hash: string | undefined;
}

export type FollowerStatus = 'syncing' | 'synced' | 'error';

/**
 * How far a follower has read the tracked addresses, in the order they became visible
 * (`tracked_addresses.tracked_order`, then the address): every address of the chain's shape up to
 * it is followed, or found not valid on the chain. `order` is a decimal string (PostgreSQL's
 * transaction ids are 64-bit).
 */
export interface TrackedCursor {
  order: string;
  address: string;
}

/** Before every tracked address. */
export const TRACKED_START: TrackedCursor = { order: '0', address: '' };

/** `a` is before `b` in the cursor's order. */
export function cursorBefore(a: TrackedCursor, b: TrackedCursor): boolean {
  const orderA = BigInt(a.order);
  const orderB = BigInt(b.order);
  return orderA < orderB || (orderA === orderB && a.address < b.address);
}

function earlierCursor(a: TrackedCursor, b: TrackedCursor): TrackedCursor {
  return cursorBefore(b, a) ? b : a;
}

function laterCursor(a: TrackedCursor, b: TrackedCursor): TrackedCursor {
  return cursorBefore(a, b) ? b : a;
}

export interface FollowerRow {
  chain: string;
  head_block: string | number | null;
  indexed_block: string | number | null;
  status: string;
  error: string | null;
  reported_at: Date | string | null;
}

/**
 * The followers' own tables (migration 1763700000040) and what they read of others: the tracked
 * addresses and a chain's known token deployments. Lease times are this process's clock, as for
 * the price poller: hosts sharing a database differ by far less than a lease lasts.
 */
@Injectable()
export class FollowRepository {
  constructor(private readonly db: Db) {}

  /**
   * Takes the chain's lease when it is free or lapsed, or extends it when `holder` has it. The
   * chain's row is created on the first claim.
   */
  async claim(chain: ChainId, holder: string, now: Date, until: Date): Promise<boolean> {
    await this.db.execute(
      sql`INSERT INTO followers (chain, status) VALUES (${chain}, 'syncing') ON CONFLICT (chain) DO NOTHING`,
    );
    const changed = await this.db.execute(
      sql`UPDATE followers SET holder = ${holder}, lease_until = ${until.toISOString()}
          WHERE chain = ${chain} AND (holder = ${holder} OR holder IS NULL OR lease_until < ${now.toISOString()})`,
    );
    return changed === 1;
  }

  async release(chain: ChainId, holder: string): Promise<void> {
    await this.db.execute(
      sql`UPDATE followers SET holder = NULL, lease_until = NULL WHERE chain = ${chain} AND holder = ${holder}`,
    );
  }

  /**
   * Inside a write transaction, before its commit: fails it unless `holder` still holds the lease,
   * and extends the lease. A lease that lapsed while nobody took it is still this holder's: only a
   * claim changes the holder. The row lock this takes on PostgreSQL also queues a concurrent claim
   * behind the commit, so a process that takes over reads the position this one committed.
   */
  async holdLease(tx: Sql, chain: ChainId, holder: string, until: Date): Promise<void> {
    const changed = await tx.execute(
      sql`UPDATE followers SET lease_until = ${until.toISOString()} WHERE chain = ${chain} AND holder = ${holder}`,
    );
    if (changed !== 1) throw new LeaseLost(`another process follows ${chain} now`);
  }

  async position(chain: ChainId): Promise<Position> {
    const [row] = await this.db.query<{ indexed_block: string | number | null; indexed_hash: string | null }>(
      sql`SELECT indexed_block, indexed_hash FROM followers WHERE chain = ${chain}`,
    );
    return {
      block: row?.indexed_block === null || row === undefined ? undefined : BigInt(row.indexed_block),
      hash: row?.indexed_hash ?? undefined,
    };
  }

  /**
   * Moves the position to the last of `blocks` (ascending, consecutive) and keeps their hashes,
   * forgetting those `keep` blocks or more below it.
   */
  async advance(
    tx: Sql,
    chain: ChainId,
    blocks: readonly { number: bigint; hash: string }[],
    keep: number,
  ): Promise<void> {
    const last = blocks[blocks.length - 1];
    if (last === undefined) return;
    for (const chunk of chunks(blocks)) {
      await tx.execute(
        sql`INSERT INTO follower_blocks (chain, number, hash) VALUES ${rows(chunk.map((b) => [chain, b.number.toString(), b.hash]))}
            ON CONFLICT (chain, number) DO UPDATE SET hash = excluded.hash`,
      );
    }
    await tx.execute(
      sql`DELETE FROM follower_blocks WHERE chain = ${chain} AND number <= ${(last.number - BigInt(keep)).toString()}`,
    );
    await tx.execute(
      sql`UPDATE followers SET indexed_block = ${last.number.toString()}, indexed_hash = ${last.hash} WHERE chain = ${chain}`,
    );
  }

  /**
   * After a reorganisation: the position goes back to `ancestor`, the hashes above it are
   * forgotten, and backfills stop at it (the blocks above are followed again, for every address).
   */
  async rewind(tx: Sql, chain: ChainId, ancestor: { number: bigint; hash: string }): Promise<void> {
    const above = ancestor.number.toString();
    await tx.execute(sql`DELETE FROM follower_blocks WHERE chain = ${chain} AND number > ${above}`);
    await tx.execute(
      sql`UPDATE follower_backfills SET through_block = ${above} WHERE chain = ${chain} AND through_block > ${above}`,
    );
    await tx.execute(
      sql`UPDATE followers SET indexed_block = ${above}, indexed_hash = ${ancestor.hash} WHERE chain = ${chain}`,
    );
  }

  /** The kept hashes at and below `block`, newest first. */
  async keptBlocks(chain: ChainId, block: bigint): Promise<{ number: bigint; hash: string }[]> {
    const found = await this.db.query<{ number: string | number; hash: string }>(
      sql`SELECT number, hash FROM follower_blocks WHERE chain = ${chain} AND number <= ${block.toString()} ORDER BY number DESC`,
    );
    return found.map((row) => ({ number: BigInt(row.number), hash: row.hash }));
  }

  /** What GET /v2/sync and the log show, and the cursor on the tracked addresses; written by the lease holder only. */
  async report(
    chain: ChainId,
    holder: string,
    figures: {
      head: bigint | undefined;
      status: FollowerStatus;
      error: string | undefined;
      at: Date;
      tracked: TrackedCursor;
    },
  ): Promise<void> {
    await this.db.execute(
      sql`UPDATE followers SET head_block = ${figures.head === undefined ? null : figures.head.toString()},
          status = ${figures.status}, error = ${figures.error ?? null}, reported_at = ${figures.at.toISOString()},
          tracked_order = ${figures.tracked.order}, tracked_address = ${figures.tracked.address},
          tracked_cluster = ${this.cluster()}
          WHERE chain = ${chain} AND holder = ${holder}`,
    );
  }

  async rows(): Promise<FollowerRow[]> {
    return this.db.query<FollowerRow>(
      sql`SELECT chain, head_block, indexed_block, status, error, reported_at FROM followers`,
    );
  }

  /** Per chain, how many addresses have backfills not done (chains without any are left out). */
  async backfillAddresses(): Promise<Map<string, number>> {
    const found = await this.db.query<{ chain: string; addresses: number | string }>(
      sql`SELECT chain, SUM(address_count) AS addresses FROM follower_backfills GROUP BY chain`,
    );
    return new Map(found.map((row) => [row.chain, Number(row.addresses)]));
  }

  async followedAddresses(chain: ChainId): Promise<string[]> {
    const found = await this.db.query<{ address: string }>(
      sql`SELECT address FROM follower_addresses WHERE chain = ${chain}`,
    );
    return found.map((row) => row.address);
  }

  /**
   * Addresses some account tracks (any tag, the reserved `0` included) after `after` in the order
   * they became visible (migration 1763700000140), that the chain's follower does not follow yet
   * and that have one of the chain's address shapes, at most `limit` of them, leaving out those of
   * that shape found invalid on the chain (`skipForeign`). The tags module stores addresses in
   * canonical form, so a prefix and a length narrow them in SQL. What is read costs what was
   * tracked since the cursor, not every tracked address.
   *
   * `next` is where the follower may read on from once these are followed: past every row read
   * when fewer than `limit` came back, otherwise past the last one; never past the horizon, below
   * which every row is final. Rows above it that were read come back next time unless followed by
   * then (the NOT EXISTS), so a long transaction that tracks addresses delays no other's.
   */
  async newlyTracked(
    chain: ChainId,
    shape: AddressShape,
    after: TrackedCursor,
    limit: number,
  ): Promise<{ addresses: string[]; next: TrackedCursor }> {
    const horizon: TrackedCursor = { order: await this.trackedHorizon(), address: '' };
    const found = await this.db.query<{ tracked_order: string | number; address: string }>(
      sql`SELECT tr.tracked_order, tr.address FROM tracked_addresses tr
          WHERE ${this.afterCursor(after)}
            AND (${shapeCondition(shape)})
            AND length(tr.address) BETWEEN ${shape.minLength} AND ${shape.maxLength}
            AND NOT EXISTS (SELECT 1 FROM follower_addresses f WHERE f.chain = ${chain} AND f.address = tr.address)
            AND NOT EXISTS (SELECT 1 FROM follower_foreign_addresses x WHERE x.chain = ${chain} AND x.address = tr.address)
          ORDER BY tr.tracked_order, tr.address LIMIT ${limit}`,
    );
    const last = found[found.length - 1];
    const reached =
      found.length === limit && last !== undefined
        ? { order: String(last.tracked_order), address: last.address }
        : horizon;
    return {
      // An address several accounts track comes once.
      addresses: [...new Set(found.map((row) => row.address))],
      next: laterCursor(after, earlierCursor(reached, horizon)),
    };
  }

  /**
   * The follower's cursor on the tracked addresses (where the last turn that reported left it);
   * from the start when it was kept by another PostgreSQL cluster (below).
   */
  async trackedCursor(chain: ChainId): Promise<TrackedCursor> {
    const [row] = await this.db.query<{
      tracked_order: string | null;
      tracked_address: string | null;
      tracked_cluster: string | null;
      cluster: string | null;
    }>(
      sql`SELECT tracked_order, tracked_address, tracked_cluster, ${this.cluster()} AS cluster FROM followers WHERE chain = ${chain}`,
    );
    if (row?.tracked_order === undefined || row.tracked_order === null) return TRACKED_START;
    if (row.tracked_cluster !== row.cluster) return TRACKED_START;
    return { order: row.tracked_order, address: row.tracked_address ?? '' };
  }

  /** PostgreSQL's cluster (`system_identifier`, fixed by initdb), whose transaction ids the orders are; NULL on SQLite. */
  private cluster(): SqlFragment {
    return this.db.dialect === 'postgres'
      ? sql`(SELECT CAST(system_identifier AS text) FROM pg_control_system())`
      : sql`NULL`;
  }

  /**
   * PostgreSQL's transaction ids belong to a cluster: a database restored from a logical dump
   * (pg_dump) into another cluster keeps its rows' `tracked_order` and the followers' cursors,
   * which mean nothing there (pg_upgrade and physical copies keep the ids and the cluster's
   * identity). A cursor kept by another cluster starts over (`trackedCursor`), and rows whose
   * order lies beyond any id this cluster has handed out, where no cursor would ever pass them,
   * are set to 0; every follower then reads the tracked addresses once from the start, and finds
   * them followed. One look along the index when there are none; run when a process takes a chain.
   */
  async settleRestoredOrder(): Promise<number> {
    if (this.db.dialect !== 'postgres') return 0;
    return this.db.execute(
      sql`UPDATE tracked_addresses SET tracked_order = '0'
          WHERE tracked_order >= pg_snapshot_xmax(pg_current_snapshot())`,
    );
  }

  /**
   * The order below which every tracked row is final: on PostgreSQL the oldest transaction still
   * running (each one below it has committed or rolled back), on SQLite one past the last number
   * handed out (its writers take turns).
   */
  private async trackedHorizon(): Promise<string> {
    const statement =
      this.db.dialect === 'postgres'
        ? sql`SELECT CAST(pg_snapshot_xmin(pg_current_snapshot()) AS text) AS horizon`
        : sql`SELECT CAST(value + 1 AS text) AS horizon FROM tracked_clock WHERE id = 1`;
    const [row] = await this.db.query<{ horizon: string }>(statement);
    return row!.horizon;
  }

  private afterCursor(after: TrackedCursor): SqlFragment {
    return this.db.dialect === 'postgres'
      ? sql`(tr.tracked_order, tr.address) > (CAST(${after.order} AS xid8), ${after.address})`
      : sql`(tr.tracked_order, tr.address) > (${Number(after.order)}, ${after.address})`;
  }

  /**
   * Whether some history is still to be read: a tracked address of the chain's shape that is not
   * followed yet, or a backfill not done.
   *
   * Two statements, each seeing what was committed when it started (PostgreSQL's read committed),
   * so their order matters: a take-in commits an address's follow row and its backfill together.
   * Read in this order, an address found followed had its take-in committed before the backfills
   * are read, so its backfill shows there until done. Read the other way round, a take-in
   * committing between the two would show neither the address as new nor its backfill.
   */
  async historyPending(chain: ChainId, shape: AddressShape): Promise<boolean> {
    const { addresses } = await this.newlyTracked(chain, shape, await this.trackedCursor(chain), 50);
    if (addresses.some((address) => shape.valid(address))) return true;
    const [backfill] = await this.db.query(sql`SELECT id FROM follower_backfills WHERE chain = ${chain} LIMIT 1`);
    return backfill !== undefined;
  }

  /** Remembers tracked addresses that look like the chain's but are not valid on it, so they are not read again. */
  async skipForeign(chain: ChainId, addresses: readonly string[]): Promise<void> {
    for (const chunk of chunks(addresses)) {
      await this.db.execute(
        sql`INSERT INTO follower_foreign_addresses (chain, address) VALUES ${rows(chunk.map((address) => [chain, address]))}
            ON CONFLICT (chain, address) DO NOTHING`,
      );
    }
  }

  /** Starts following `addresses`, with the backfill of their history when there is one to read. */
  async follow(
    tx: Sql,
    chain: ChainId,
    addresses: readonly string[],
    backfill: BackfillPlan | undefined,
    at: Date,
  ): Promise<void> {
    for (const chunk of chunks(addresses)) {
      await tx.execute(
        sql`INSERT INTO follower_addresses (chain, address) VALUES ${rows(chunk.map((address) => [chain, address]))}
            ON CONFLICT (chain, address) DO NOTHING`,
      );
    }
    if (backfill === undefined) return;
    await tx.execute(
      sql`INSERT INTO follower_backfills (chain, through_block, token_next, native_next, addresses, address_count, created_at)
          VALUES (${chain}, ${backfill.throughBlock.toString()}, ${backfill.tokenNext.toString()},
                  ${backfill.nativeNext.toString()}, ${JSON.stringify(addresses)}, ${addresses.length}, ${at.toISOString()})`,
    );
  }

  async backfills(chain: ChainId): Promise<BackfillState[]> {
    const found = await this.db.query<{
      id: number | string;
      through_block: number | string;
      token_next: number | string;
      native_next: number | string;
      addresses: string;
    }>(
      sql`SELECT id, through_block, token_next, native_next, addresses FROM follower_backfills
          WHERE chain = ${chain} ORDER BY id`,
    );
    return found.map((row) => ({
      id: Number(row.id),
      throughBlock: BigInt(row.through_block),
      tokenNext: BigInt(row.token_next),
      nativeNext: BigInt(row.native_next),
      addresses: JSON.parse(row.addresses) as string[],
    }));
  }

  /** Records a backfill's progress; one that has read everything goes. */
  async progress(tx: Sql, backfill: BackfillState): Promise<void> {
    if (backfill.tokenNext > backfill.throughBlock && backfill.nativeNext > backfill.throughBlock) {
      await tx.execute(sql`DELETE FROM follower_backfills WHERE id = ${backfill.id}`);
      return;
    }
    await tx.execute(
      sql`UPDATE follower_backfills SET token_next = ${backfill.tokenNext.toString()}, native_next = ${backfill.nativeNext.toString()}
          WHERE id = ${backfill.id}`,
    );
  }

  /** The chain's token contracts that belong to a token already (imported, seeded or discovered). */
  async knownTokenContracts(chain: ChainId): Promise<Set<string>> {
    const found = await this.db.query<{ address: string }>(
      sql`SELECT address FROM token_deployments WHERE chain = ${chain}`,
    );
    return new Set(found.map((row) => row.address));
  }

  /**
   * The followed addresses' holdings on the chain that blocks after `since` may have changed: those
   * written at or after that time (blocks may share a second, so "at" too).
   */
  async holdingsWrittenSince(chain: ChainId, since: string): Promise<{ address: string; token_address: string }[]> {
    return this.db.query<{ address: string; token_address: string }>(
      sql`SELECT h.address, h.token_address FROM holdings h
          JOIN follower_addresses f ON f.chain = h.chain AND f.address = h.address
          WHERE h.chain = ${chain} AND h.updated_at >= ${since}`,
    );
  }
}

/** Canonical addresses starting with one of the shape's prefixes (none holds a LIKE wildcard). */
function shapeCondition(shape: AddressShape): SqlFragment {
  return join(
    shape.prefixes.map((prefix) => sql`tr.address LIKE ${`${prefix}%`}`),
    ' OR ',
  );
}
