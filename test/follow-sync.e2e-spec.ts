import { parseConfig } from '../src/config/config';
import { Db } from '../src/database/db.service';
import type { SqlFragment } from '../src/database/sql';
import { FollowRepository, TRACKED_START } from '../src/modules/follow/follow.repository';
import { SyncService } from '../src/modules/follow/sync.service';
import { FollowClient, randomAddress } from './support/follow-client';
import { DATABASES, DatabaseKind, startOnFreshDatabase, TestApp } from './support/test-app';

/**
 * `GET /v2/sync` (contract §10: syncing until every backfill is done) on a real database, while a
 * follower takes in a newly tracked address: its follow row and its backfill commit together,
 * between any two of the statements the answer is read with. No node is needed: the take-in is
 * written as the follower writes it.
 */

const CHAIN = 'ethereum';
const HOLDER = 'sync-test';
const PLAN = { throughBlock: 100n, tokenNext: 1n, nativeNext: 98n };
const CONFIG = parseConfig({ RPC_URL_ETHEREUM: 'http://127.0.0.1:9', FOLLOW_INTERVAL_MS: '100' });

describe.each(DATABASES)('history still to read, on %s', (kind: DatabaseKind) => {
  let t: TestApp;
  let db: Db;
  let repository: FollowRepository;

  beforeAll(async () => {
    t = await startOnFreshDatabase(kind);
    db = t.app.get(Db);
    repository = new FollowRepository(db);
    const now = new Date();
    await repository.claim(CHAIN, HOLDER, now, new Date(now.getTime() + 60_000));
  });

  afterAll(async () => {
    await t?.close();
  });

  /**
   * A SyncService whose statements go to the database as usual, except that right after the
   * `after`-th one the follower takes `address` in (follow row and backfill, one transaction).
   * `tookIn` tells whether the answer was read with that many statements or more.
   */
  function interleaved(address: string, after: number): { sync: SyncService; tookIn: () => boolean } {
    let statements = 0;
    let tookIn = false;
    const reads = {
      dialect: db.dialect,
      query: async <T>(statement: SqlFragment): Promise<T[]> => {
        const answer = await db.query<T>(statement);
        statements += 1;
        if (statements === after) {
          await db.transaction((tx) => repository.follow(tx, CHAIN, [address], PLAN, new Date()));
          tookIn = true;
        }
        return answer;
      },
    } as unknown as Db;
    return { sync: new SyncService(CONFIG, new FollowRepository(reads)), tookIn: () => tookIn };
  }

  async function finishBackfills(): Promise<void> {
    for (const backfill of await repository.backfills(CHAIN)) {
      const done = { ...backfill, tokenNext: backfill.throughBlock + 1n, nativeNext: backfill.throughBlock + 1n };
      await db.transaction((tx) => repository.progress(tx, done));
    }
  }

  it('is syncing from the tag until the backfill is done, wherever the take-in commits among its reads', async () => {
    const api = new FollowClient(t);
    await repository.report(CHAIN, HOLDER, {
      head: 100n,
      status: 'synced',
      error: undefined,
      at: new Date(),
      tracked: TRACKED_START,
    });
    const status = async (sync: SyncService) => (await sync.list()).find((row) => row.chain === CHAIN)!.status;
    const plain = new SyncService(CONFIG, repository);

    expect(await status(plain)).toBe('synced');
    for (let after = 1; ; after += 1) {
      const address = randomAddress();
      await api.tag('latecomer', [address]);
      const { sync, tookIn } = interleaved(address, after);
      // The follower's row says synced, as its last turn before the take-in reported.
      expect(await status(sync)).toBe('syncing');
      if (!tookIn()) break;
      expect(await repository.followedAddresses(CHAIN)).toContain(address);
      await finishBackfills();
      expect(await status(plain)).toBe('synced');
    }
  });
});
