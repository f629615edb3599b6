import fc from 'fast-check';
import { ApiError } from '../src/core/errors';
import { parseAddress, type ParsedAddress } from '../src/core/addresses';
import type { RecordInput } from '../src/core/records/record-input';
import { totalUsd } from '../src/core/money/valuation';
import { findDrift } from '../src/database/aggregates';
import { Db } from '../src/database/db.service';
import { raw, sql } from '../src/database/sql';
import { RecordSink } from '../src/modules/ingest/sink/record-sink';
import type { SourceBatch } from '../src/modules/ingest/sources/record-source';
import { StatsRepository } from '../src/modules/stats/stats.repository';
import { StatsService } from '../src/modules/stats/stats.service';
import { TagsService } from '../src/modules/tags/tags.service';
import { runCli } from './support/cli';
import { deployment, evmAddress, ndjson, TestAddress } from './support/factories';
import { DATABASES, startOnFreshDatabase, TestApp } from './support/test-app';

/**
 * The kept aggregates (src/database/aggregates.ts) against their reference computation, after
 * every step of random sequences of imports and tag changes, on both databases; then concurrent
 * writers on PostgreSQL; then `stats verify`.
 */

const ADDRESSES = Array.from({ length: 4 }, (_v, index) => evmAddress(`aggregates-${index}`));
const TOKENS = ['0', deployment('tether', 'ethereum').address];
const TIMES = ['2024-01-01T00:00:00Z', '2024-02-01T00:00:00Z', '2024-03-01T00:00:00Z'];
const TAGS = ['alpha_tag', 'beta_tag', '0'];
const ACCOUNTS = ['alice', 'bob'] as const;
const BIG = '9'.repeat(78);

type Step =
  | { kind: 'import'; records: RecordInput[] }
  | { kind: 'assign' | 'remove'; account: (typeof ACCOUNTS)[number]; tag: string; addresses: TestAddress[] }
  | { kind: 'delete'; account: (typeof ACCOUNTS)[number]; tag: string };

const address = fc.constantFrom(...ADDRESSES);
const balance = fc.oneof(
  fc.constant('0'),
  fc.constant(BIG),
  fc.bigInt({ min: 1n, max: 10n ** 20n }).map((value) => value.toString()),
);
const holdingRecord: fc.Arbitrary<RecordInput> = fc.record({
  type: fc.constant('holding' as const),
  chain: fc.constant('ethereum'),
  address: address.map((a) => a.input),
  token_address: fc.constantFrom(...TOKENS),
  balance,
  updated_at: fc.constantFrom(...TIMES),
});
const transactionRecord: fc.Arbitrary<RecordInput> = fc
  .record({
    id: fc.integer({ min: 0, max: 5 }),
    from: fc.option(address, { nil: undefined }),
    to: address,
    value: balance,
  })
  .map(({ id, from, to, value }) => ({
    type: 'transaction' as const,
    id: `aggregates-tx-${id}`,
    chain: 'ethereum',
    token_address: '0',
    from_address: from === undefined ? '0' : from.input,
    to_address: to.input,
    value,
    tx_hash: `0x${id}`,
    block_number: id,
    block_hash: `0xb${id}`,
    block_time: TIMES[id % TIMES.length]!,
  }));
/** Mostly one account's one tag, so that addresses join and leave a tag its members already trade with. */
const account = fc.oneof({ weight: 3, arbitrary: fc.constant(ACCOUNTS[0]) }, fc.constant(ACCOUNTS[1]));
const members = fc.uniqueArray(address, { minLength: 1, maxLength: 2, selector: (a) => a.canonical });
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('import' as const),
      records: fc.array(fc.oneof(holdingRecord, transactionRecord, transactionRecord), { minLength: 1, maxLength: 10 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constantFrom('assign' as const, 'remove' as const),
      account: account,
      tag: fc.oneof({ weight: 3, arbitrary: fc.constant(TAGS[0]!) }, fc.constantFrom(...TAGS.slice(1))),
      addresses: members,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('delete' as const),
      account: fc.constantFrom(...ACCOUNTS),
      tag: fc.constantFrom(...TAGS.slice(0, 2)),
    }),
  },
);

function parsed(addresses: readonly TestAddress[]): ParsedAddress[] {
  return addresses.map((a) => {
    const result = parseAddress(a.input);
    if (!result.ok) throw new Error(`not an address: ${a.input}`);
    return result.address;
  });
}

function oneBatch(records: readonly RecordInput[]): AsyncIterable<SourceBatch> {
  return (async function* () {
    await Promise.resolve();
    yield { items: records.map((record, index) => ({ position: index + 1, record })) };
  })();
}

describe.each(DATABASES)('kept aggregates on %s', (kind) => {
  let t: TestApp;
  let db: Db;
  let sink: RecordSink;
  let tags: TagsService;
  let stats: StatsService;
  let reference: StatsRepository;
  const accountIds = new Map<string, number>();

  beforeAll(async () => {
    t = await startOnFreshDatabase(kind);
    db = t.app.get(Db);
    sink = t.app.get(RecordSink);
    tags = t.app.get(TagsService);
    stats = t.app.get(StatsService);
    reference = t.app.get(StatsRepository);
    for (const name of ACCOUNTS) {
      const [row] = await db.query<{ id: number | string }>(sql`SELECT id FROM accounts WHERE name = ${name}`);
      accountIds.set(name, Number(row!.id));
    }
  }, 60_000);

  afterAll(async () => {
    await t.close();
  });

  async function reset(): Promise<void> {
    // A tag's kept rows go with it (ON DELETE CASCADE).
    for (const table of [
      'address_tags',
      'tags',
      'tracked_addresses',
      'holdings',
      'transactions',
      'address_stats',
      'token_holders',
    ]) {
      await db.execute(sql`DELETE FROM ${raw(table)}`);
    }
  }

  async function apply(s: Step): Promise<void> {
    if (s.kind === 'import') {
      const report = await sink.write(oneBatch(s.records), { policy: 'per-batch' });
      expect(report.invalid).toBe(0);
      return;
    }
    const accountId = accountIds.get(s.account)!;
    try {
      if (s.kind === 'assign') await tags.assign(accountId, s.tag, parsed(s.addresses));
      else if (s.kind === 'remove') await tags.removeFrom(accountId, s.tag, parsed(s.addresses));
      else await tags.delete(accountId, s.tag);
    } catch (error) {
      // Removing from or deleting a tag the account does not have: nothing changes.
      if (!(error instanceof ApiError) || error.code !== 'TAG_NOT_FOUND') throw error;
    }
  }

  /** Every kept table equals the reference, and each tag's stats as served equal the old read-time SQL. */
  async function expectExact(): Promise<void> {
    expect(await findDrift(db)).toEqual([]);
    const tagRows = await db.query<{ id: number | string; account_id: number | string }>(
      sql`SELECT id, account_id FROM tags`,
    );
    const scopes = [
      ...tagRows.map((row) => ({
        kind: 'tag' as const,
        accountId: Number(row.account_id),
        tagId: Number(row.id),
        revision: 0,
      })),
      ...[...accountIds.values()].map((accountId) => ({ kind: 'untagged' as const, accountId })),
    ];
    for (const scope of scopes) {
      const [counts, totals] = await Promise.all([reference.countsForScope(scope), reference.totalsForScope(scope)]);
      expect(await stats.forScope(scope)).toEqual({ ...counts, total_value_usd: totalUsd(totals) });
    }
  }

  it('stay equal to the reference after every step of random imports and tag changes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
        await reset();
        for (const s of steps) {
          await apply(s);
          await expectExact();
        }
      }),
      { numRuns: 30 },
    );
  }, 300_000);

  it('count a transfer between two members once, whichever joined first and whichever end it is', async () => {
    await reset();
    const [a, b] = [ADDRESSES[0]!, ADDRESSES[1]!];
    const alice = accountIds.get('alice')!;
    const transfer = (id: string, from: TestAddress, to: TestAddress): RecordInput => ({
      type: 'transaction',
      id,
      chain: 'ethereum',
      token_address: '0',
      from_address: from.input,
      to_address: to.input,
      value: '1',
      tx_hash: '0x1',
      block_number: 1,
      block_hash: '0xb1',
      block_time: TIMES[0]!,
    });
    const steps: Step[] = [
      { kind: 'assign', account: 'alice', tag: 'alpha_tag', addresses: [a] },
      { kind: 'import', records: [transfer('pair-1', b, a), transfer('pair-2', a, b)] },
      { kind: 'assign', account: 'alice', tag: 'alpha_tag', addresses: [b] },
      { kind: 'remove', account: 'alice', tag: 'alpha_tag', addresses: [a] },
      { kind: 'assign', account: 'alice', tag: 'alpha_tag', addresses: [a] },
    ];
    for (const s of steps) {
      await apply(s);
      await expectExact();
    }
    const scope = await db.query<{ id: number | string }>(sql`SELECT id FROM tags WHERE account_id = ${alice}`);
    expect(
      await stats.forScope({ kind: 'tag', accountId: alice, tagId: Number(scope[0]!.id), revision: 0 }),
    ).toMatchObject({
      address_count: 2,
      txn_count: 2,
    });
  });

  it('stats verify reports no drift, then finds and repairs a changed aggregate', async () => {
    await reset();
    await apply({
      kind: 'import',
      records: [
        {
          type: 'holding',
          chain: 'ethereum',
          address: ADDRESSES[0]!.input,
          token_address: '0',
          balance: '5',
          updated_at: TIMES[0]!,
        },
      ],
    });
    const clean = await runCli(t.databaseUrl, ['stats', 'verify']);
    expect(clean).toMatchObject({ code: 0 });
    expect(JSON.parse(clean.stdout)).toEqual({ exact: true, drift: {}, repaired: false });

    await db.execute(sql`UPDATE token_holders SET holders = holders + 1`);
    const drifted = await runCli(t.databaseUrl, ['stats', 'verify']);
    expect(drifted.code).toBe(1);
    expect(JSON.parse(drifted.stdout)).toEqual({ exact: false, drift: { token_holders: 2 }, repaired: false });
    expect(drifted.stderr).toContain('drift: token_holders: 2 differing rows');

    const repaired = await runCli(t.databaseUrl, ['stats', 'verify', '--repair']);
    expect(repaired.code).toBe(1);
    expect(JSON.parse(repaired.stdout)).toEqual({ exact: false, drift: { token_holders: 2 }, repaired: true });
    expect(await findDrift(db)).toEqual([]);
    expect((await runCli(t.databaseUrl, ['stats', 'verify'])).code).toBe(0);
  }, 120_000);

  if (kind === 'postgres') {
    it('stay exact under concurrent imports and tag changes', async () => {
      await reset();
      const crowd = Array.from({ length: 40 }, (_v, index) => evmAddress(`aggregates-crowd-${index}`));
      const alice = accountIds.get('alice')!;
      await tags.assign(alice, 'crowd_tag', parsed(crowd.slice(0, 20)));
      const importOf = (round: number, writer: number): RecordInput[] =>
        crowd.flatMap((holder, index) => [
          {
            type: 'holding' as const,
            chain: 'ethereum',
            address: holder.input,
            token_address: TOKENS[(index + writer) % 2]!,
            balance: String((round * 7 + index * 3 + writer) % 5),
            updated_at: TIMES[(round + writer) % 3]!,
          },
          {
            type: 'transaction' as const,
            id: `crowd-${(round * 40 + index + writer * 13) % 60}`,
            chain: 'ethereum',
            token_address: '0',
            from_address: holder.input,
            to_address: crowd[(index * 7 + writer + round) % crowd.length]!.input,
            value: '1',
            tx_hash: '0xc',
            block_number: round,
            block_hash: '0xcb',
            block_time: TIMES[round % 3]!,
          },
        ]);
      for (let round = 0; round < 6; round += 1) {
        const slice = (from: number) => parsed(crowd.slice((from + round * 5) % 40, ((from + round * 5) % 40) + 8));
        await Promise.all([
          sink.write(oneBatch(importOf(round, 0)), { policy: 'whole-input' }),
          sink.write(oneBatch(importOf(round, 1)), { policy: 'per-batch' }),
          tags.assign(alice, 'crowd_tag', slice(10)),
          tags.removeFrom(alice, 'crowd_tag', slice(0)),
          tags.assign(alice, round % 2 === 0 ? 'other_crowd' : 'crowd_tag', slice(20)),
        ]);
      }
      expect(await findDrift(db)).toEqual([]);
      const [row] = await db.query<{ n: number | string }>(sql`SELECT COUNT(*) AS n FROM transactions`);
      expect(Number(row!.n)).toBeGreaterThan(40);
    }, 120_000);
  }

  it('keep the ndjson import exact too', async () => {
    await reset();
    const [a, b] = [ADDRESSES[0]!, ADDRESSES[1]!];
    await tags.assign(accountIds.get('alice')!, 'alpha_tag', parsed([a, b]));
    const line = (balance: string) => ({
      type: 'holding',
      chain: 'ethereum',
      address: a.input,
      token_address: '0',
      balance,
      updated_at: TIMES[1],
    });
    for (const lines of [[line('3')], [line('3')], [line('0')]]) {
      expect((await runCli(t.databaseUrl, ['import', '-'], ndjson(lines))).code).toBe(0);
      await expectExact();
    }
  }, 120_000);
});
