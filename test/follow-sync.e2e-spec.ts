import { DataSource } from 'typeorm';
import { parseConfig } from '../src/config/config';
import { BackfillAddressCount1763700000260 } from '../src/database/migrations/1763700000260-backfill-address-count';
import { Db } from '../src/database/db.service';
import { sql, SqlFragment } from '../src/database/sql';
import { FollowRepository, TRACKED_START } from '../src/modules/follow/follow.repository';
import { SyncService } from '../src/modules/follow/sync.service';
import type { SyncDto } from '../src/modules/follow/dto/sync.dto';
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
    // The chain has a node in the settings, but this process follows nothing: the rows say all.
    t = await startOnFreshDatabase(kind, { env: { RPC_URL_ETHEREUM: 'http://127.0.0.1:9', FOLLOW: 'off' } });
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

  /** The follower's row as its last turn before any take-in reported it: synced, at block 100. */
  async function reportSynced(): Promise<void> {
    await repository.report(CHAIN, HOLDER, {
      head: 100n,
      status: 'synced',
      error: undefined,
      at: new Date(),
      tracked: TRACKED_START,
    });
  }

  async function finishBackfills(): Promise<void> {
    for (const backfill of await repository.backfills(CHAIN)) {
      const done = { ...backfill, tokenNext: backfill.throughBlock + 1n, nativeNext: backfill.throughBlock + 1n };
      await db.transaction((tx) => repository.progress(tx, done));
    }
  }

  it('is syncing from the tag until the backfill is done, wherever the take-in commits among its reads', async () => {
    const api = new FollowClient(t);
    await reportSynced();
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

  it('counts the addresses whose history is still read, on /v2/sync and /metrics', async () => {
    const api = new FollowClient(t);
    await reportSynced();
    const sync = async () => (await api.get<SyncDto[]>('/v2/sync')).find((row) => row.chain === CHAIN)!;
    const gauge = async () =>
      /^chaintags_follower_backfill_addresses\{chain="ethereum"\} (\d+)$/m.exec(
        (await t.http().get('/metrics').expect(200)).text,
      )?.[1];
    // What the test before left: an address tracked and not taken in, backfills not done.
    const left = await db.query<{ address: string }>(sql`SELECT address FROM tracked_addresses`);
    await db.transaction((tx) =>
      repository.follow(
        tx,
        CHAIN,
        left.map((row) => row.address),
        undefined,
        new Date(),
      ),
    );
    await finishBackfills();
    expect(await sync()).toMatchObject({ status: 'synced', backfill_addresses: 0 });

    const first = [randomAddress(), randomAddress(), randomAddress()];
    const second = [randomAddress(), randomAddress()];
    await db.transaction((tx) => repository.follow(tx, CHAIN, first, PLAN, new Date()));
    await db.transaction((tx) => repository.follow(tx, CHAIN, second, PLAN, new Date()));
    // Followed without history to read: not counted.
    await db.transaction((tx) => repository.follow(tx, CHAIN, [randomAddress()], undefined, new Date()));
    expect(await sync()).toMatchObject({ status: 'syncing', backfill_addresses: 5 });
    expect(await gauge()).toBe('5');
    // Another chain's count is its own; a chain nobody follows still shows what is left.
    expect((await api.get<SyncDto[]>('/v2/sync')).find((row) => row.chain === 'base')).toMatchObject({
      status: 'off',
      backfill_addresses: 0,
    });

    const [oldest] = await repository.backfills(CHAIN);
    await db.transaction((tx) =>
      repository.progress(tx, {
        ...oldest!,
        tokenNext: oldest!.throughBlock + 1n,
        nativeNext: oldest!.throughBlock + 1n,
      }),
    );
    expect(await sync()).toMatchObject({ status: 'syncing', backfill_addresses: 2 });
    await finishBackfills();
    expect(await sync()).toMatchObject({ status: 'synced', backfill_addresses: 0 });
    expect(await gauge()).toBe('0');
  });

  it('counts the addresses of backfills recorded before the count was kept (migration 1763700000260)', async () => {
    const migration = new BackfillAddressCount1763700000260();
    const runner = t.app.get(DataSource).createQueryRunner();
    try {
      await finishBackfills();
      await migration.down(runner);
      const addresses = [[randomAddress(), randomAddress(), randomAddress()], [randomAddress()], []];
      for (const list of addresses) {
        await db.execute(
          sql`INSERT INTO follower_backfills (chain, through_block, token_next, native_next, addresses, created_at)
              VALUES (${CHAIN}, 100, 1, 98, ${JSON.stringify(list)}, ${new Date().toISOString()})`,
        );
      }
      await migration.up(runner);
    } finally {
      await runner.release();
    }
    const counted = await db.query<{ address_count: number | string }>(
      sql`SELECT address_count FROM follower_backfills WHERE chain = ${CHAIN} ORDER BY id`,
    );
    expect(counted.map((row) => Number(row.address_count))).toEqual([3, 1, 0]);
    await finishBackfills();
  });
});
