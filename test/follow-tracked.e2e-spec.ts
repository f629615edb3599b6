import { chainFacts } from '../src/core/chains/chain-registry';
import { Db } from '../src/database/db.service';
import { sql } from '../src/database/sql';
import { cursorBefore, FollowRepository, TRACKED_START, TrackedCursor } from '../src/modules/follow/follow.repository';
import { addressShapeFor } from '../src/modules/follow/sources';
import { FollowClient, randomAddress } from './support/follow-client';
import { DATABASES, DatabaseKind, startOnFreshDatabase, TestApp } from './support/test-app';

/**
 * How a follower finds newly tracked addresses (migration 1763700000140): by reading on from a
 * cursor in the order the tracked rows became visible, never past a row that may still commit.
 * On a real database; no node is needed (the follow rows are written as the follower writes them).
 */

const CHAIN = 'ethereum';
const HOLDER = 'tracked-test';
const SHAPE = addressShapeFor(chainFacts(CHAIN))!;

describe.each(DATABASES)('newly tracked addresses, on %s', (kind: DatabaseKind) => {
  let t: TestApp;
  let db: Db;
  let repository: FollowRepository;
  let api: FollowClient;

  beforeAll(async () => {
    t = await startOnFreshDatabase(kind);
    db = t.app.get(Db);
    repository = new FollowRepository(db);
    api = new FollowClient(t);
    const now = new Date();
    await repository.claim(CHAIN, HOLDER, now, new Date(now.getTime() + 60_000));
  });

  afterAll(async () => {
    await t?.close();
  });

  /** The follower's report of a turn, with its cursor. */
  function reportWith(tracked: TrackedCursor): Promise<void> {
    return repository.report(CHAIN, HOLDER, { head: 1n, status: 'synced', error: undefined, at: new Date(), tracked });
  }

  /** Everything from `after` on, `limit` at a time, as the follower reads it: each batch followed before the next read. */
  async function readAll(after: TrackedCursor, limit: number): Promise<{ batches: string[][]; cursor: TrackedCursor }> {
    const batches: string[][] = [];
    let cursor = after;
    for (;;) {
      const { addresses, next } = await repository.newlyTracked(CHAIN, SHAPE, cursor, limit);
      expect(cursorBefore(next, cursor)).toBe(false);
      if (addresses.length > 0) {
        await db.transaction((tx) => repository.follow(tx, CHAIN, addresses, undefined, new Date()));
        batches.push(addresses);
      }
      cursor = next;
      if (addresses.length < limit) return { batches, cursor };
    }
  }

  it('reads on from its cursor: each address once, in batches, none followed or of another shape', async () => {
    const first = Array.from({ length: 7 }, () => randomAddress());
    await api.tag('first', first);
    await api.tag('bitcoin', ['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq']);
    const { batches, cursor } = await readAll(TRACKED_START, 3);
    expect(batches.map((batch) => batch.length)).toEqual([3, 3, 1]);
    expect(batches.flat().sort()).toEqual([...first].sort());

    // Nothing new: the cursor stays where it is, or moves on.
    const again = await repository.newlyTracked(CHAIN, SHAPE, cursor, 3);
    expect(again.addresses).toEqual([]);
    expect(cursorBefore(again.next, cursor)).toBe(false);

    // Only what was tracked since; an address tagged again (another tag) is not new.
    const second = [randomAddress(), randomAddress()];
    await api.tag('second', [...second, first[0]!]);
    const later = await readAll(again.next, 100);
    expect(later.batches.flat().sort()).toEqual([...second].sort());

    // From the start, everything is followed: nothing comes back.
    expect((await repository.newlyTracked(CHAIN, SHAPE, TRACKED_START, 100)).addresses).toEqual([]);
  });

  it('keeps its cursor with the status it reports, for the next process', async () => {
    const { cursor } = await readAll(TRACKED_START, 100);
    await reportWith(cursor);
    expect(await repository.trackedCursor(CHAIN)).toEqual(cursor);
    const fresh = randomAddress();
    await api.tag('third', [fresh]);
    expect((await repository.newlyTracked(CHAIN, SHAPE, await repository.trackedCursor(CHAIN), 100)).addresses).toEqual(
      [fresh],
    );
    await readAll(cursor, 100);
  });

  if (kind === 'postgres') {
    it('does not move past a transaction still open: what it tracks is found once it commits', async () => {
      const { cursor } = await readAll(TRACKED_START, 100);
      const [{ account_id: account } = { account_id: '' }] = await db.query<{ account_id: string }>(
        sql`SELECT account_id FROM tracked_addresses LIMIT 1`,
      );
      const slow = randomAddress();
      const quick = randomAddress();
      let seen: { addresses: string[]; next: TrackedCursor } | undefined;
      // `slow` is inserted first (its transaction has the lower id) and commits last.
      await db.transaction(async (tx) => {
        await tx.execute(
          sql`INSERT INTO tracked_addresses (account_id, address, created_at) VALUES (${account}, ${slow}, ${new Date().toISOString()})`,
        );
        await api.tag('quick', [quick]);
        seen = await repository.newlyTracked(CHAIN, SHAPE, cursor, 100);
        await db.transaction((follow) => repository.follow(follow, CHAIN, seen!.addresses, undefined, new Date()));
      });
      expect(seen!.addresses).toEqual([quick]);
      const after = await repository.newlyTracked(CHAIN, SHAPE, seen!.next, 100);
      expect(after.addresses).toEqual([slow]);
    });

    it('starts over in a cluster other than the one its cursor and the rows were ordered in (a restored dump)', async () => {
      const { cursor } = await readAll(TRACKED_START, 100);
      await reportWith(cursor);
      expect(await repository.trackedCursor(CHAIN)).toEqual(cursor);
      expect(await repository.settleRestoredOrder()).toBe(0);
      // What a dump of another cluster brings: orders and a cursor far beyond this cluster's ids.
      const tracked = await db.execute(sql`UPDATE tracked_addresses SET tracked_order = CAST('90000000000' AS xid8)`);
      await db.execute(
        sql`UPDATE followers SET tracked_order = '90000000000', tracked_cluster = '1' WHERE chain = ${CHAIN}`,
      );
      const fresh = randomAddress();
      await api.tag('restored', [fresh]);

      expect(await repository.trackedCursor(CHAIN)).toEqual(TRACKED_START);
      expect(await repository.settleRestoredOrder()).toBe(tracked);
      const { batches, cursor: next } = await readAll(TRACKED_START, 100);
      expect(batches.flat()).toEqual([fresh]);
      // No order is left beyond the ids this cluster has handed out. (Not its oldest running
      // transaction: the cluster is shared, and another suite's open transaction may be older than
      // the one that tracked `fresh`.)
      const [{ n }] = (await db.query<{ n: string }>(
        sql`SELECT COUNT(*) AS n FROM tracked_addresses WHERE tracked_order >= pg_snapshot_xmax(pg_current_snapshot())`,
      )) as [{ n: string }];
      expect(Number(n)).toBe(0);
      expect(cursorBefore(next, TRACKED_START)).toBe(false);
    });
  }
});
