import fc from 'fast-check';
import { ApiError } from '../src/core/errors';
import { parseAddress, type ParsedAddress } from '../src/core/addresses';
import type { HoldingInput, RecordInput } from '../src/core/records/record-input';
import { totalUsd } from '../src/core/money/valuation';
import {
  AggregateWrite,
  busyAddresses,
  findDrift,
  keptTables,
  pairedAddresses,
  quietReads,
  readMembersPart,
  shareAddresses,
} from '../src/modules/aggregates/aggregates.service';
import { binaryOrder } from '../src/core/text/binary-order';
import { Db } from '../src/database/db.service';
import { raw, sql } from '../src/database/sql';
import { RecordSink } from '../src/modules/ingest/sink/record-sink';
import type { SourceBatch } from '../src/modules/ingest/sources/record-source';
import { StatsRepository } from '../src/modules/stats/stats.repository';
import { StatsService } from '../src/modules/stats/stats.service';
import { ReservedSetCounts, reservedSets, type ReservedSetPlan } from '../src/modules/stats/reserved-set-counts';
import type { TagPair } from '../src/modules/tags/portability/tag-files';
import { TagPortabilityRepository } from '../src/modules/tags/tag-portability.repository';
import { TagsService } from '../src/modules/tags/tags.service';
import { runCli } from './support/cli';
import { deployment, evmAddress, TestAddress } from './support/factories';
import { importLines } from './support/fixtures';
import { untilWaitingForLock, whileRowsLocked } from './support/row-locks';
import { DATABASES, startOnFreshDatabase, TestApp } from './support/test-app';
import type { NamedScope, TagScope } from '../src/core/tags/tag-scope';

/**
 * The kept aggregates (src/modules/aggregates/) against their reference computation, after
 * every step of random sequences of imports and tag changes, on both databases; then concurrent
 * writers on PostgreSQL; then `stats verify`.
 */

const DEFAULT_REMEMBERED = reservedSets.remembered;
const ADDRESSES = Array.from({ length: 4 }, (_v, index) => evmAddress(`aggregates-${index}`));
const TOKENS = ['0', deployment('tether', 'ethereum').address];
const TIMES = ['2024-01-01T00:00:00Z', '2024-02-01T00:00:00Z', '2024-03-01T00:00:00Z'];
const TAGS = ['alpha_tag', 'beta_tag', '0'];
const ACCOUNTS = ['alice', 'bob'] as const;
const BIG = '9'.repeat(78);

/**
 * How a tag change finds the transactions between the addresses it adds or removes and the tag's
 * members: reading the addresses' transactions before the tag's lock, or (busy addresses) counting
 * them against the members under it, by reading the addresses' pair index entries (`busyRead`;
 * PostgreSQL only, SQLite looks them up) or by looking each member up; and between two paired
 * addresses (`pairedAbove`: paired by the data write that takes them over it), from their kept
 * counts. Where addresses are read before the lock, a statement reads the other ends of at most
 * `entries` transactions (by the addresses' kept counts), so that a change splits them.
 */
const LOOKUPS = {
  read: { perMember: Infinity, atLeast: Infinity, lookedUpPerMember: Infinity, pairedAbove: Infinity, entries: 3 },
  lookup: { perMember: 0, atLeast: 0, lookedUpPerMember: 0, pairedAbove: Infinity },
  busyRead: { perMember: 0, atLeast: 0, lookedUpPerMember: Infinity, pairedAbove: Infinity },
  // Addresses with two transactions or fewer read before the lock; of the others, those with more
  // transactions than the tag has members looked up, the rest read under the lock: all in one change.
  mixed: { perMember: 0, atLeast: 2, lookedUpPerMember: 1, pairedAbove: Infinity, entries: 1 },
  // Every address paired by its first transaction, busy and looked up.
  pairedLookup: { perMember: 0, atLeast: 0, lookedUpPerMember: 0, pairedAbove: 0 },
  // Addresses paired once they have two transactions, while others are not: all kinds in one change.
  pairedMixed: { perMember: 0, atLeast: 2, lookedUpPerMember: 1, pairedAbove: 1 },
} as const;
type Lookup = keyof typeof LOOKUPS;
const DEFAULT_LOOKUP = { ...busyAddresses };
const DEFAULT_PAIRED = { ...pairedAddresses };
const DEFAULT_QUIET_READS = { ...quietReads };

function useLookup(lookup: Lookup): void {
  const { pairedAbove, entries, ...busy } = { entries: DEFAULT_QUIET_READS.entriesPerStatement, ...LOOKUPS[lookup] };
  Object.assign(busyAddresses, busy);
  pairedAddresses.above = pairedAbove;
  quietReads.entriesPerStatement = entries;
}

type Step =
  | { kind: 'import'; records: RecordInput[]; policy?: 'per-batch' | 'whole-input' }
  | { kind: 'tagImport'; account: (typeof ACCOUNTS)[number]; mode: 'merge' | 'replace'; pairs: TagPair[] }
  | { kind: 'assign' | 'remove'; account: (typeof ACCOUNTS)[number]; tag: string; addresses: TestAddress[] }
  | { kind: 'delete'; account: (typeof ACCOUNTS)[number]; tag: string }
  | { kind: 'rewind'; block: number };

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
      // A file import (whole-input) runs alone among data writers; a live write's batch shares.
      policy: fc.constantFrom('per-batch' as const, 'whole-input' as const),
    }),
  },
  // A tag file imported, merged into the account's tags or replacing them all.
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('tagImport' as const),
      account: account,
      mode: fc.constantFrom('merge' as const, 'replace' as const),
      pairs: fc.uniqueArray(
        fc.record({ address: address.map((a) => a.canonical), tag: fc.constantFrom(...TAGS.slice(0, 2)) }),
        { maxLength: 4, selector: (pair) => `${pair.address} ${pair.tag}` },
      ),
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
  // A reorganisation takes the transactions above a block away (pairs of addresses lose them).
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rewind' as const), block: fc.integer({ min: 0, max: 4 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('delete' as const),
      account: fc.constantFrom(...ACCOUNTS),
      tag: fc.constantFrom(...TAGS.slice(0, 2)),
    }),
  },
);

function transfer(id: string, from: TestAddress, to: TestAddress, time = TIMES[0]!, block = 1): RecordInput {
  return {
    type: 'transaction',
    id,
    chain: 'ethereum',
    token_address: '0',
    from_address: from.input,
    to_address: to.input,
    value: '1',
    tx_hash: `0x${id}`,
    block_number: block,
    block_hash: `0xb${block}`,
    block_time: time,
  };
}

function holding(holder: TestAddress, token: string, balance: string, time = TIMES[0]!): RecordInput {
  return { type: 'holding', chain: 'ethereum', address: holder.input, token_address: token, balance, updated_at: time };
}

/**
 * An import of `groups` groups of 500 distinct records (written with `rowsPerBatch: 500`, the sink
 * writes and hands over changes per 500 distinct keys) among `crowd`: each group writes every
 * holding of the crowd and the same transactions again, with other balances and ends, so that rows written in one round change in
 * later ones (holdings going to zero and back, transactions moving between addresses).
 */
function roundsImport(crowd: readonly TestAddress[], groups: number): RecordInput[] {
  const records: RecordInput[] = [];
  for (let group = 0; group < groups; group += 1) {
    const time = TIMES[group % 3];
    crowd.forEach((holder, index) => {
      for (const token of TOKENS) {
        const balance = (index + group) % 3 === 0 ? '0' : String(((index + 1) * 37 + group) % 1000);
        records.push(holding(holder, token, balance, time));
      }
    });
    for (let index = 0; records.length < (group + 1) * 500; index += 1) {
      const from = crowd[(index + group * 5) % crowd.length]!;
      const to = crowd[(index * 3 + group) % crowd.length]!;
      records.push(transfer(`rounds-${index}`, from, to, time));
    }
  }
  return records;
}

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
    for (const table of ['address_tags', 'tags', 'tracked_addresses', 'holdings', 'transactions', 'paired_addresses']) {
      await db.execute(sql`DELETE FROM ${raw(table)}`);
    }
    // Every kept table, whatever the registry holds.
    for (const table of keptTables().reverse()) await db.execute(sql`DELETE FROM ${raw(table)}`);
  }

  /** A tag file of `pairs` imported into `account`'s tags, as the import route runs it. */
  function importTags(account: number, pairs: TagPair[], mode: 'merge' | 'replace') {
    return t.app.get(TagPortabilityRepository).importPairs(
      account,
      () =>
        (async function* () {
          await Promise.resolve();
          yield pairs;
        })(),
      { mode, dryRun: false },
      50,
      { key: 'test_key', now: new Date().toISOString() },
    );
  }

  async function apply(s: Step): Promise<void> {
    if (s.kind === 'import') {
      const report = await sink.write(oneBatch(s.records), { policy: s.policy ?? 'per-batch' });
      expect(report.invalid).toBe(0);
      return;
    }
    if (s.kind === 'tagImport') {
      expect((await importTags(accountIds.get(s.account)!, s.pairs, s.mode)).ok).toBe(true);
      return;
    }
    if (s.kind === 'rewind') {
      await sink.rewind('ethereum', BigInt(s.block), []);
      return;
    }
    const accountId = accountIds.get(s.account)!;
    try {
      if (s.kind === 'assign') await tags.assign(accountId, s.tag, parsed(s.addresses), 'test_key');
      else if (s.kind === 'remove') await tags.removeFrom(accountId, s.tag, parsed(s.addresses), 'test_key');
      else await tags.delete(accountId, s.tag, 'test_key');
    } catch (error) {
      // Removing from or deleting a tag the account does not have: nothing changes.
      if (!(error instanceof ApiError) || error.code !== 'TAG_NOT_FOUND') throw error;
    }
  }

  /** Every kept table equals the reference, and each tag's stats as served equal the old read-time SQL. */
  async function expectExact(): Promise<void> {
    expect(await findDrift(db)).toEqual([]);
    const tagRows = await db.query<{ id: number | string; account_id: number | string; name: string }>(
      sql`SELECT id, account_id, name FROM tags`,
    );
    const scopes: [TagScope, NamedScope][] = [
      ...tagRows.map((row): [TagScope, NamedScope] => [
        { kind: 'tag', accountId: Number(row.account_id), tagId: Number(row.id), revision: 0 },
        { kind: 'named', accountId: Number(row.account_id), name: row.name },
      ]),
      ...[...accountIds.values()].map((accountId): [TagScope, NamedScope] => [
        { kind: 'untagged', accountId },
        { kind: 'untagged', accountId },
      ]),
    ];
    for (const [scope, named] of scopes) {
      const [counts, totals] = await Promise.all([reference.countsForScope(scope), reference.totalsForScope(scope)]);
      expect(await stats.forScope(named)).toEqual({ ...counts, total_value_usd: totalUsd(totals) });
    }
  }

  afterEach(() => {
    Object.assign(busyAddresses, DEFAULT_LOOKUP);
    Object.assign(pairedAddresses, DEFAULT_PAIRED);
    Object.assign(quietReads, DEFAULT_QUIET_READS);
  });

  it('stay equal to the reference after every step of random imports and tag changes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Lookup>(...(Object.keys(LOOKUPS) as Lookup[])),
        fc.array(step, { minLength: 1, maxLength: 8 }),
        async (lookup, steps) => {
          useLookup(lookup);
          await reset();
          for (const s of steps) {
            await apply(s);
            await expectExact();
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 300_000);

  it.each(Object.keys(LOOKUPS) as Lookup[])(
    'count a transfer between two members once, whichever joined first and whichever end it is (%s)',
    async (lookup) => {
      useLookup(lookup);
      await reset();
      const [a, b] = [ADDRESSES[0]!, ADDRESSES[1]!];
      const alice = accountIds.get('alice')!;
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
      expect(await stats.forScope({ kind: 'named', accountId: alice, name: 'alpha_tag' })).toMatchObject({
        address_count: 2,
        txn_count: 2,
      });
    },
  );

  it.each(Object.keys(LOOKUPS) as Lookup[])(
    'count a big tag against few new counterparties, and an address with no row yet, exactly (%s)',
    async (lookup) => {
      useLookup(lookup);
      await reset();
      const crowd = Array.from({ length: 14 }, (_v, index) => evmAddress(`aggregates-big-${index}`));
      const [newcomer, stranger, quiet] = [
        evmAddress('aggregates-newcomer'),
        evmAddress('aggregates-stranger'),
        evmAddress('aggregates-quiet'),
      ];
      await apply({
        kind: 'import',
        records: [
          ...crowd.map((member, index) => transfer(`big-${index}`, member, crowd[(index + 1) % crowd.length]!)),
          transfer('big-in', crowd[0]!, newcomer),
          transfer('big-out', newcomer, crowd[5]!),
          transfer('big-stranger', newcomer, stranger),
          transfer('big-self', newcomer, newcomer),
          holding(newcomer, TOKENS[1]!, '12'),
        ],
      });
      const steps: Step[] = [
        // A new tag: its first addresses are counted from their kept transaction counts.
        { kind: 'assign', account: 'alice', tag: 'alpha_tag', addresses: crowd.slice(0, 7) },
        // Members already: their other ends are looked up among the members.
        { kind: 'assign', account: 'alice', tag: 'alpha_tag', addresses: crowd.slice(7) },
        // Fourteen members against two counterparties: those are looked up, not the members read.
        { kind: 'assign', account: 'alice', tag: 'alpha_tag', addresses: [newcomer, quiet] },
        { kind: 'remove', account: 'alice', tag: 'alpha_tag', addresses: [newcomer, crowd[0]!] },
        { kind: 'assign', account: 'alice', tag: 'alpha_tag', addresses: [newcomer, stranger] },
        { kind: 'remove', account: 'alice', tag: 'alpha_tag', addresses: [...crowd, newcomer, stranger, quiet] },
        { kind: 'assign', account: 'alice', tag: 'alpha_tag', addresses: [stranger, newcomer] },
        // Deleted with a member that holds a token: its kept rows go with it.
        { kind: 'delete', account: 'alice', tag: 'alpha_tag' },
      ];
      for (const s of steps) {
        await apply(s);
        await expectExact();
      }
    },
  );

  it("count the reserved tag's transactions between two of its addresses once, from their kept rows", async () => {
    await reset();
    const [a, b, c, d, e] = ['a', 'b', 'c', 'd', 'e'].map((name) => evmAddress(`aggregates-untagged-${name}`)) as [
      TestAddress,
      TestAddress,
      TestAddress,
      TestAddress,
      TestAddress,
    ];
    await apply({
      kind: 'import',
      records: [
        // Between members both ways, to itself, and with an address that is not a member.
        transfer('untagged-ab', a, b),
        transfer('untagged-ba', b, a),
        transfer('untagged-bc', b, c),
        transfer('untagged-cc', c, c),
        transfer('untagged-ae', a, e),
        transfer('untagged-ea', e, a),
        holding(c, TOKENS[1]!, '5'),
        holding(d, TOKENS[1]!, '0'),
      ],
    });
    const alice = accountIds.get('alice')!;
    await tags.assign(alice, '0', parsed([a, b, c, d]), 'test_key');
    await expectExact();
    const untagged = { kind: 'untagged' as const, accountId: alice };
    // Each of the six once; d's zero balance is not a holding.
    expect(await stats.forScope(untagged)).toMatchObject({ address_count: 4, token_holding_count: 1, txn_count: 6 });
    // Tagged, b leaves the set: its transactions with a and c now count for them alone.
    await tags.assign(alice, 'alpha_tag', parsed([b]), 'test_key');
    await expectExact();
    expect(await stats.forScope(untagged)).toMatchObject({ address_count: 3, txn_count: 6 });
    await tags.assign(alice, 'alpha_tag', parsed([a]), 'test_key');
    await expectExact();
    expect(await stats.forScope(untagged)).toMatchObject({ address_count: 2, txn_count: 2 });
  });

  it("read the reserved tag's transactions between its addresses again only for those a write changed", async () => {
    await reset();
    const [a, b, c, e] = ['a', 'b', 'c', 'e'].map((name) => evmAddress(`aggregates-memo-${name}`)) as [
      TestAddress,
      TestAddress,
      TestAddress,
      TestAddress,
    ];
    await apply({ kind: 'import', records: [transfer('memo-ab', a, b), transfer('memo-ae', a, e)] });
    const alice = accountIds.get('alice')!;
    await tags.assign(alice, '0', parsed([a, b, c]), 'test_key');
    const untagged = { kind: 'untagged' as const, accountId: alice };
    const plan = jest.spyOn(ReservedSetCounts.prototype, 'plan');
    // The served counts against the reference, and which members' received entries that read.
    const read = async (): Promise<string[]> => {
      plan.mockClear();
      const served = await stats.forScope(untagged);
      const [counts, totals] = await Promise.all([
        reference.countsForScope(untagged),
        reference.totalsForScope(untagged),
      ]);
      expect(served).toEqual({ ...counts, total_value_usd: totalUsd(totals) });
      const [result] = plan.mock.results;
      return [...(result!.value as ReservedSetPlan).read].sort(binaryOrder);
    };
    const names = (...addresses: TestAddress[]) => addresses.map((address) => address.canonical).sort(binaryOrder);
    try {
      expect(await read()).toEqual(names(a, b, c));
      expect(await stats.forScope(untagged)).toMatchObject({ txn_count: 2 });
      // A write between c and b: only their entries again.
      await apply({ kind: 'import', records: [transfer('memo-cb', c, b)] });
      expect(await read()).toEqual(names(b, c));
      expect(await read()).toEqual([]);
      // Transactions moved behind the kept rows' back (a → e becomes a → c), then rewritten by
      // `stats verify --repair`: the rows it writes carry no version, and are read every time.
      await db.execute(sql`UPDATE transactions SET to_address = ${c.canonical} WHERE to_address = ${e.canonical}`);
      expect((await stats.verify(true)).repaired).toBe(true);
      expect(await read()).toEqual(names(a, b, c));
      expect(await stats.forScope(untagged)).toMatchObject({ txn_count: 3 });
      await db.execute(sql`UPDATE transactions SET from_address = ${e.canonical} WHERE from_address = ${c.canonical}`);
      expect((await stats.verify(true)).repaired).toBe(true);
      expect(await read()).toEqual(names(a, b, c));
      // a → b and a → c between two of them, e → b with b alone.
      expect(await stats.forScope(untagged)).toMatchObject({ txn_count: 3 });
      // A write stamps them again; then b is tagged: a set of other addresses is read whole.
      await apply({ kind: 'import', records: [transfer('memo-ba', b, a), transfer('memo-cc', c, e)] });
      expect(await read()).toEqual(names(a, b, c));
      expect(await read()).toEqual([]);
      await tags.assign(alice, 'alpha_tag', parsed([b]), 'test_key');
      expect(await read()).toEqual(names(a, c));
      expect(await stats.forScope(untagged)).toMatchObject({ address_count: 2, txn_count: 4 });
      // A set over the limit is not remembered: counted whole, on every read.
      reservedSets.remembered = 1;
      await apply({ kind: 'import', records: [transfer('memo-ca', c, a)] });
      for (const _again of [1, 2]) {
        plan.mockClear();
        const [counts, totals] = await Promise.all([
          reference.countsForScope(untagged),
          reference.totalsForScope(untagged),
        ]);
        expect(await stats.forScope(untagged)).toEqual({ ...counts, total_value_usd: totalUsd(totals) });
        expect(plan).not.toHaveBeenCalled();
      }
      expect(await stats.forScope(untagged)).toMatchObject({ address_count: 2, txn_count: 5 });
    } finally {
      plan.mockRestore();
      reservedSets.remembered = DEFAULT_REMEMBERED;
    }
  });

  it('count a busy address against the members by lookups with the default costs, exactly', async () => {
    await reset();
    const exchange = evmAddress('aggregates-busy');
    const customer = evmAddress('aggregates-customer');
    const member = evmAddress('aggregates-member');
    const partner = evmAddress('aggregates-partner');
    const newcomer = evmAddress('aggregates-newcomer');
    const alice = accountIds.get('alice')!;
    // One more transaction than a quiet address may have, all with someone outside the tag.
    const trades = Array.from({ length: busyAddresses.atLeast + 1 }, (_v, index) =>
      index % 2 === 0 ? transfer(`busy-${index}`, exchange, customer) : transfer(`busy-${index}`, customer, exchange),
    );
    await apply({
      kind: 'import',
      records: [
        ...trades,
        transfer('busy-member-in', member, exchange),
        transfer('busy-member-out', exchange, member),
        transfer('busy-partner', partner, exchange),
        transfer('busy-members', member, partner),
        // A quiet address joining with the busy one: one transaction each way between them and the tag.
        transfer('busy-newcomer-in', exchange, newcomer),
        transfer('busy-newcomer-out', newcomer, member),
      ],
    });
    await tags.assign(alice, 'alpha_tag', parsed([member, partner]), 'test_key');
    await tags.assign(alice, 'alpha_tag', parsed([exchange, newcomer]), 'test_key');
    await expectExact();
    const scope = { kind: 'named' as const, accountId: alice, name: 'alpha_tag' };
    // The trades, the three with members, the one between members and the newcomer's two, each once.
    expect(await stats.forScope(scope)).toMatchObject({ address_count: 4, txn_count: busyAddresses.atLeast + 7 });
    await tags.removeFrom(alice, 'alpha_tag', parsed([exchange]), 'test_key');
    await expectExact();
    // The members' four with the exchange, the one between member and partner, the newcomer's to member.
    expect(await stats.forScope(scope)).toMatchObject({ address_count: 3, txn_count: 6 });
  });

  it('pair addresses as a write takes them over the threshold, count each pair once, and take a rewind off', async () => {
    await reset();
    pairedAddresses.above = 2;
    const [a, b, c] = ['a', 'b', 'c'].map((name) => evmAddress(`aggregates-pair-${name}`)) as [
      TestAddress,
      TestAddress,
      TestAddress,
    ];
    const alice = accountIds.get('alice')!;
    // A round per record: b goes over two transactions in the third, a in the fourth; c stays at two.
    await sink.write(
      oneBatch([
        transfer('pair-1', a, b),
        transfer('pair-2', b, c),
        transfer('pair-3', a, b),
        transfer('pair-4', b, a, TIMES[0], 5),
        transfer('pair-5', a, c, TIMES[0], 5),
      ]),
      { policy: 'whole-input', changesPerRound: 1, rowsPerBatch: 1 },
    );
    const pairs = async () =>
      (
        await db.query<{ from_address: string; to_address: string; n: number | string }>(
          sql`SELECT from_address, to_address, n FROM address_pairs WHERE n <> 0 ORDER BY from_address, to_address`,
        )
      ).map((row) => [row.from_address, row.to_address, Number(row.n)]);
    const paired = await db.query<{ address: string }>(sql`SELECT address FROM paired_addresses ORDER BY address`);
    expect(paired.map((row) => row.address)).toEqual([a.canonical, b.canonical].sort());
    expect(await pairs()).toEqual(
      [
        [a.canonical, b.canonical, 2],
        [b.canonical, a.canonical, 1],
      ].sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
    );
    expect(await findDrift(db)).toEqual([]);
    // Joined together, then c against their pairs: every transaction once.
    await tags.assign(alice, 'alpha_tag', parsed([a, b]), 'test_key');
    await tags.assign(alice, 'alpha_tag', parsed([c]), 'test_key');
    await expectExact();
    const scope = { kind: 'named' as const, accountId: alice, name: 'alpha_tag' };
    expect(await stats.forScope(scope)).toMatchObject({ address_count: 3, txn_count: 5 });
    // The rewind takes b's transaction to a off its pair; a and b stay paired below the threshold.
    await sink.rewind('ethereum', 4n, []);
    expect(await pairs()).toEqual([[a.canonical, b.canonical, 2]]);
    await expectExact();
    await tags.removeFrom(alice, 'alpha_tag', parsed([a]), 'test_key');
    await apply({ kind: 'import', records: [transfer('pair-6', a, b)] });
    await tags.assign(alice, 'alpha_tag', parsed([a]), 'test_key');
    expect(await pairs()).toEqual([[a.canonical, b.canonical, 3]]);
    await expectExact();
    expect(await stats.forScope(scope)).toMatchObject({ address_count: 3, txn_count: 4 });
  });

  it('stay exact when an import updates them in many rounds', async () => {
    await reset();
    const crowd = Array.from({ length: 24 }, (_v, index) => evmAddress(`aggregates-rounds-${index}`));
    const alice = accountIds.get('alice')!;
    await tags.assign(alice, 'alpha_tag', parsed(crowd.slice(0, 10)), 'test_key');
    await tags.assign(alice, 'beta_tag', parsed(crowd.slice(6, 16)), 'test_key');
    const rounds = jest.spyOn(AggregateWrite.prototype, 'round');
    try {
      const report = await sink.write(oneBatch(roundsImport(crowd, 5)), {
        policy: 'whole-input',
        changesPerRound: 1,
        rowsPerBatch: 500,
      });
      expect(report.committed).toBe(true);
      // A round after each of the five groups of 500, and the last one before the commit.
      expect(rounds).toHaveBeenCalledTimes(6);
    } finally {
      rounds.mockRestore();
    }
    await expectExact();
  }, 120_000);

  if (kind === 'postgres') {
    it('leave half of each address_stats page free for updated rows (migration 1763700000050)', async () => {
      const [table] = await db.query<{ reloptions: string[] | null }>(
        sql`SELECT reloptions FROM pg_class WHERE relname = 'address_stats'`,
      );
      expect(table!.reloptions).toEqual(['fillfactor=50']);
    });
  }

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

  it("stats verify finds and repairs the tracked addresses' tagged flag in place", async () => {
    await reset();
    const alice = accountIds.get('alice')!;
    const [first, second, third] = ADDRESSES as [TestAddress, TestAddress, TestAddress];
    await tags.assign(alice, 'flag_tag', parsed([first, second]), 'test_key');
    await tags.assign(alice, '0', parsed([third]), 'test_key');
    expect(await findDrift(db)).toEqual([]);

    await db.execute(sql`UPDATE tracked_addresses SET tagged = 1 - tagged`);
    const drifted = await runCli(t.databaseUrl, ['stats', 'verify']);
    expect(JSON.parse(drifted.stdout)).toEqual({ exact: false, drift: { tracked_addresses: 3 }, repaired: false });
    const repaired = await runCli(t.databaseUrl, ['stats', 'verify', '--repair']);
    expect(JSON.parse(repaired.stdout)).toMatchObject({ repaired: true });
    expect(await findDrift(db)).toEqual([]);
    const flags = await db.query<{ address: string; tagged: number | string }>(
      sql`SELECT address, tagged FROM tracked_addresses ORDER BY address`,
    );
    expect(flags.map((row) => [row.address, Number(row.tagged)])).toEqual(
      [
        [first.canonical, 1],
        [second.canonical, 1],
        [third.canonical, 0],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    // Every tracked row is still there: the flag was rewritten, the table not emptied.
    expect(flags).toHaveLength(3);
  }, 120_000);

  if (kind === 'postgres') {
    // With each way of counting a change's transactions with the members: a POST without busy
    // addresses writes its memberships before the tag's lock, one with them under it.
    it.each(Object.keys(LOOKUPS) as Lookup[])(
      'stay exact under concurrent imports and tag changes (%s)',
      async (lookup) => {
        useLookup(lookup);
        await reset();
        const crowd = Array.from({ length: 40 }, (_v, index) => evmAddress(`aggregates-crowd-${index}`));
        const alice = accountIds.get('alice')!;
        await tags.assign(alice, 'crowd_tag', parsed(crowd.slice(0, 20)), 'test_key');
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
            tags.assign(alice, 'crowd_tag', slice(10), 'test_key'),
            tags.removeFrom(alice, 'crowd_tag', slice(0), 'test_key'),
            tags.assign(alice, round % 2 === 0 ? 'other_crowd' : 'crowd_tag', slice(20), 'test_key'),
            // The tracked rows' flag: a tag deleted with its members while addresses join it again, and
            // untagged addresses tracked and untracked.
            ...(round % 2 === 1
              ? [
                  tags.delete(alice, 'other_crowd', 'test_key'),
                  tags.assign(alice, 'other_crowd', slice(15), 'test_key'),
                ]
              : [tags.assign(alice, '0', slice(30), 'test_key')]),
            tags.removeFrom(alice, '0', slice(25), 'test_key'),
          ]);
        }
        expect(await findDrift(db)).toEqual([]);
        const [row] = await db.query<{ n: number | string }>(sql`SELECT COUNT(*) AS n FROM transactions`);
        expect(Number(row!.n)).toBeGreaterThan(40);
      },
      120_000,
    );

    // Random steps sent a few at a time, at once: whatever order PostgreSQL gives them, the kept
    // tables equal the reference after each batch, and no step fails (a deadlock victim runs again).
    // AGGREGATES_CONCURRENT_RUNS=1000 searches longer, as a change to the locking deserves.
    const concurrentRuns = Number(process.env.AGGREGATES_CONCURRENT_RUNS ?? 50);
    it(
      'stay equal to the reference after random imports, rewinds and tag changes sent at once',
      async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.constantFrom<Lookup>(...(Object.keys(LOOKUPS) as Lookup[])),
            fc.array(fc.array(step, { minLength: 2, maxLength: 5 }), { minLength: 1, maxLength: 4 }),
            async (lookup, batches) => {
              useLookup(lookup);
              await reset();
              for (const batch of batches) {
                const failed = (await Promise.allSettled(batch.map(apply))).flatMap((result, index) =>
                  result.status === 'rejected'
                    ? [`step ${index + 1} (${batch[index]!.kind}): ${String(result.reason)}`]
                    : [],
                );
                expect(failed).toEqual([]);
                await expectExact();
              }
            },
          ),
          { numRuns: concurrentRuns, endOnFailure: process.env.AGGREGATES_SHRINK === '0' },
        );
      },
      Math.max(60_000, concurrentRuns * 5_000),
    );
  }

  if (kind === 'postgres') {
    it('share-lock the row of every address a change adds, with or without transactions, and read their counts', async () => {
      await reset();
      const [active, other, quiet, fresh] = ADDRESSES as [TestAddress, TestAddress, TestAddress, TestAddress];
      const report = await sink.write(oneBatch([transfer('lock-1', active, other)]), { policy: 'per-batch' });
      expect(report.invalid).toBe(0);
      // `quiet` has a row with no transactions; `fresh` has none until the change creates it.
      await db.execute(
        sql`INSERT INTO address_stats (address, holding_count, txn_count) VALUES (${quiet.canonical}, 0, 0)`,
      );
      const addresses = [active, quiet, fresh].map((address) => address.canonical);
      const refused: Record<string, string> = {};
      const part = await db.transaction(async (tx) => {
        const part = await readMembersPart(tx, 0, addresses, true);
        // While the change holds them, a data write's upsert of any of the three rows waits: for the
        // share lock, or for the change's own insert of the row to commit (here until lock_timeout).
        for (const address of addresses) {
          try {
            await db.transaction(async (writer) => {
              await writer.execute(sql`SET LOCAL lock_timeout = '100ms'`);
              await writer.execute(
                sql`INSERT INTO address_stats (address, holding_count, txn_count) VALUES (${address}, 0, 1)
                    ON CONFLICT (address) DO UPDATE SET txn_count = address_stats.txn_count + 1`,
              );
            });
            refused[address] = 'written';
          } catch (error) {
            refused[address] = (error as { code?: string }).code ?? String(error);
          }
        }
        return part;
      });
      expect(refused).toEqual(Object.fromEntries(addresses.map((address) => [address, '55P03'])));
      expect(addresses.map((address) => part.transactionCounts.get(address) ?? 0)).toEqual([1, 0, 0]);
      expect(part.transactions).toBe(1);
    });

    it('count a transaction once when two requests create the same tag at once', async () => {
      await reset();
      const [first, second, blocker] = ADDRESSES as [TestAddress, TestAddress, TestAddress];
      const alice = accountIds.get('alice')!;
      // The second request's address trades with both of the first one's, both ways.
      const report = await sink.write(
        oneBatch([
          transfer('race-1', first, second),
          transfer('race-2', second, blocker),
          transfer('race-3', blocker, second),
          transfer('race-4', first, blocker),
          holding(second, TOKENS[0]!, '5'),
        ]),
        { policy: 'per-batch' },
      );
      expect(report.invalid).toBe(0);
      await tags.assign(alice, '0', parsed([blocker]), 'test_key');
      // The first request creates the tag and waits for the blocker's tracked row; the second waits
      // for the first one's creation to commit, then finds the tag with members and counts its
      // transactions with them.
      const { creating, joining } = await whileRowsLocked(
        db,
        sql`SELECT address FROM tracked_addresses WHERE address = ${blocker.canonical} FOR UPDATE`,
        async () => {
          const creating = tags.assign(alice, 'race_tag', parsed([first, blocker]), 'test_key');
          await untilWaitingForLock(db);
          const joining = tags.assign(alice, 'race_tag', parsed([second]), 'test_key');
          await untilWaitingForLock(db, 15_000, 2);
          // Wrapped: both go on once the row is released.
          return { creating: { done: creating }, joining: { done: joining } };
        },
      );
      await Promise.all([creating.done, joining.done]);
      expect(await findDrift(db)).toEqual([]);
      const [kept] = await db.query<{ address_count: number | string; txn_count: number | string }>(
        sql`SELECT s.address_count, s.txn_count FROM tag_stats s JOIN tags t ON t.id = s.tag_id WHERE t.name = 'race_tag'`,
      );
      expect([Number(kept!.address_count), Number(kept!.txn_count)]).toEqual([3, 4]);
    }, 60_000);

    it('count a transaction once when its other end joins the tag between a change reading it and locking the tag', async () => {
      await reset();
      const [joiner, counterparty, member] = ADDRESSES as [TestAddress, TestAddress, TestAddress];
      const alice = accountIds.get('alice')!;
      const report = await sink.write(
        oneBatch([transfer('late-1', joiner, counterparty), transfer('late-2', counterparty, joiner)]),
        { policy: 'per-batch' },
      );
      expect(report.invalid).toBe(0);
      await tags.assign(alice, 'late_tag', parsed([member]), 'test_key');
      await tags.assign(alice, '0', parsed([joiner]), 'test_key');
      // The first request reads the joiner's transactions (their other end not a member yet), then
      // waits for the joiner's tracked row; the counterparty joins the tag meanwhile.
      const adding = await whileRowsLocked(
        db,
        sql`SELECT address FROM tracked_addresses WHERE address = ${joiner.canonical} FOR UPDATE`,
        async () => {
          const adding = tags.assign(alice, 'late_tag', parsed([joiner]), 'test_key');
          await untilWaitingForLock(db);
          await tags.assign(alice, 'late_tag', parsed([counterparty]), 'test_key');
          return { done: adding };
        },
      );
      await adding.done;
      expect(await findDrift(db)).toEqual([]);
      const [kept] = await db.query<{ address_count: number | string; txn_count: number | string }>(
        sql`SELECT s.address_count, s.txn_count FROM tag_stats s JOIN tags t ON t.id = s.tag_id WHERE t.name = 'late_tag'`,
      );
      expect([Number(kept!.address_count), Number(kept!.txn_count)]).toEqual([3, 2]);
    }, 60_000);

    it('leave a transaction another write commits above the block while a rewind waits, and its counts, in place', async () => {
      await reset();
      const [a, b, c] = ADDRESSES as [TestAddress, TestAddress, TestAddress];
      await sink.write(oneBatch([transfer('rewind-held', a, b, TIMES[0], 5)]), { policy: 'per-batch' });
      // The rewind locks the transactions above block 1 and waits for the held one; a live write
      // commits another one above it meanwhile, which the rewind's lock did not see.
      const rewinding = await whileRowsLocked(
        db,
        sql`SELECT id FROM transactions WHERE id = 'rewind-held' FOR UPDATE`,
        async () => {
          const rewinding = sink.rewind('ethereum', 1n, []);
          await untilWaitingForLock(db);
          const report = await sink.write(oneBatch([transfer('rewind-late', b, c, TIMES[0], 6)]), {
            policy: 'per-batch',
          });
          expect(report.invalid).toBe(0);
          return { done: rewinding };
        },
      );
      await rewinding.done;
      const left = await db.query<{ id: string }>(sql`SELECT id FROM transactions ORDER BY id`);
      expect(left.map((row) => row.id)).toEqual(['rewind-late']);
      expect(await findDrift(db)).toEqual([]);
    }, 60_000);

    it('count a transaction once when two live writes find its row gone, deleted by a rewind while they waited', async () => {
      await reset();
      const [a, b] = ADDRESSES as [TestAddress, TestAddress];
      await sink.write(oneBatch([transfer('rewound', a, b, TIMES[0], 5)]), { policy: 'per-batch' });
      // A rewind and then two live writes of the same transaction wait for its row. The writes'
      // inserts found it there; by the time each locks it the rewind has deleted it. Written
      // blind, each would count it as new: one inserts it, the other overwrites that insert.
      const racing = await whileRowsLocked(
        db,
        sql`SELECT id FROM transactions WHERE id = 'rewound' FOR UPDATE`,
        async () => {
          const rewinding = sink.rewind('ethereum', 1n, []);
          await untilWaitingForLock(db);
          const first = sink.write(oneBatch([transfer('rewound', a, b, TIMES[0], 5)]), { policy: 'per-batch' });
          await untilWaitingForLock(db, 15_000, 2);
          const second = sink.write(oneBatch([transfer('rewound', a, b, TIMES[0], 5)]), { policy: 'per-batch' });
          await untilWaitingForLock(db, 15_000, 3);
          return { done: Promise.all([rewinding, first, second]) };
        },
      );
      const [, ...reports] = await racing.done;
      expect(reports.map((report) => report.invalid)).toEqual([0, 0]);
      const left = await db.query<{ id: string }>(sql`SELECT id FROM transactions ORDER BY id`);
      expect(left.map((row) => row.id)).toEqual(['rewound']);
      expect(await findDrift(db)).toEqual([]);
      const [kept] = await db.query<{ txn_count: number | string }>(
        sql`SELECT txn_count FROM address_stats WHERE address = ${a.canonical}`,
      );
      expect(Number(kept!.txn_count)).toBe(1);
    }, 60_000);

    it('count a holding once when a live write inserts it while a rewind that writes it waits', async () => {
      await reset();
      const [first, second] = [...ADDRESSES].sort((a, b) => binaryOrder(a.canonical, b.canonical)) as [
        TestAddress,
        TestAddress,
      ];
      await sink.write(oneBatch([holding(first, TOKENS[0]!, '3')]), { policy: 'per-batch' });
      // The rewind writes both holdings and waits for the first one's row; the second one's row,
      // not there when it began, is inserted by a live write meanwhile.
      const rewinding = await whileRowsLocked(
        db,
        sql`SELECT address FROM holdings WHERE address = ${first.canonical} FOR UPDATE`,
        async () => {
          const rewinding = sink.rewind('ethereum', 1n, [
            holding(first, TOKENS[0]!, '4') as HoldingInput,
            holding(second, TOKENS[0]!, '5') as HoldingInput,
          ]);
          await untilWaitingForLock(db);
          const writing = sink.write(oneBatch([holding(second, TOKENS[0]!, '6', TIMES[2])]), { policy: 'per-batch' });
          // Either the write goes through, or it waits for the rewind's own insert of that row.
          await Promise.race([writing, untilWaitingForLock(db, 15_000, 2)]);
          return { done: Promise.all([rewinding, writing]) };
        },
      );
      await rewinding.done;
      expect(await findDrift(db)).toEqual([]);
      const [kept] = await db.query<{ holding_count: number | string }>(
        sql`SELECT holding_count FROM address_stats WHERE address = ${second.canonical}`,
      );
      expect(Number(kept!.holding_count)).toBe(1);
    }, 60_000);

    it('let a file import through when a tag change finds a member it left out gone from the tag', async () => {
      await reset();
      const [first, second] = [...ADDRESSES].sort((a, b) => binaryOrder(a.canonical, b.canonical)) as [
        TestAddress,
        TestAddress,
      ];
      const alice = accountIds.get('alice')!;
      await tags.assign(alice, 'gone_tag', parsed([first]), 'test_key');
      const [{ id }] = (await db.query<{ id: number | string }>(sql`SELECT id FROM tags WHERE name = 'gone_tag'`)) as [
        { id: number | string },
      ];
      // The deletion holds the member's tracked row and waits for the tag's row; the POST left the
      // member out of its first reading (it carried the tag), so it finds it gone only under the
      // tracked rows; the file writes both addresses' rows in order and waits for one the POST shares.
      // Had the POST not share-locked the member first, the file would hold its row and wait for the
      // other one, which the POST then holds while reading the member: a deadlock.
      const { deleting, assigning, importing } = await whileRowsLocked(
        db,
        sql`SELECT tag_id FROM tag_stats WHERE tag_id = ${Number(id)} FOR UPDATE`,
        async () => {
          const deleting = tags.delete(alice, 'gone_tag', 'test_key');
          await untilWaitingForLock(db);
          const assigning = tags.assign(alice, 'gone_tag', parsed([first, second]), 'test_key');
          await untilWaitingForLock(db, 15_000, 2);
          const importing = sink.write(oneBatch([transfer('gone-1', first, second)]), { policy: 'whole-input' });
          await untilWaitingForLock(db, 15_000, 3);
          return { deleting: { done: deleting }, assigning: { done: assigning }, importing: { done: importing } };
        },
      );
      await deleting.done;
      const report = await importing.done;
      expect(report.committed).toBe(true);
      const tagged = await assigning.done;
      expect(tagged.map((entry) => entry.address).sort()).toEqual([first.canonical, second.canonical].sort());
      expect(await findDrift(db)).toEqual([]);
      const [kept] = await db.query<{ address_count: number | string; txn_count: number | string }>(
        sql`SELECT s.address_count, s.txn_count FROM tag_stats s JOIN tags t ON t.id = s.tag_id WHERE t.name = 'gone_tag'`,
      );
      expect([Number(kept!.address_count), Number(kept!.txn_count)]).toEqual([2, 1]);
    }, 60_000);

    // A tag import of two tags, one address each: slice by slice, the second tag's row would be
    // taken while the first one's is held, had the import not taken every address of its file at once.
    const tagImport = (mode: 'merge' | 'replace') => (low: TestAddress, high: TestAddress) =>
      importTags(
        accountIds.get('alice')!,
        [
          { address: low.canonical, tag: 'letgo_first' },
          { address: high.canonical, tag: 'letgo_second' },
        ],
        mode,
      );
    // Each tag change that takes address_stats rows, on addresses `low` and `high` (in key order),
    // and the kept address and transaction counts after it, summed over the tags named `letgo…`.
    const lettingGo: [string, (low: TestAddress, high: TestAddress) => Promise<unknown>, [number, number]][] = [
      [
        'a POST',
        (low, high) => tags.assign(accountIds.get('alice')!, 'letgo_tag', parsed([low, high]), 'test_key'),
        [3, 2],
      ],
      [
        'a removal',
        (low, high) => tags.removeFrom(accountIds.get('alice')!, 'letgo_tag', parsed([low, high]), 'test_key'),
        [1, 1],
      ],
      ['a tag import', tagImport('merge'), [4, 5]],
      // Replacing the account's tags, `letgo_tag` loses both its members.
      ['a tag import that replaces', tagImport('replace'), [2, 3]],
    ];
    it.each(lettingGo)(
      'let a data write that waits for an address row of %s have it before its deadlock check',
      async (_kind, change, [addressCount, txnCount]) => {
        await reset();
        const [low, high, third] = [...ADDRESSES].sort((a, b) => binaryOrder(a.canonical, b.canonical)) as [
          TestAddress,
          TestAddress,
          TestAddress,
        ];
        const alice = accountIds.get('alice')!;
        await sink.write(
          oneBatch([transfer('letgo-1', low, high), transfer('letgo-2', high, third), holding(low, TOKENS[0]!, '3')]),
          { policy: 'per-batch' },
        );
        await tags.assign(alice, 'letgo_tag', parsed([low, third]), 'test_key');
        const [setting] = await db.query<{ ms: number | string }>(
          sql`SELECT setting AS ms FROM pg_settings WHERE name = 'deadlock_timeout'`,
        );
        const deadlockMs = Number(setting!.ms);
        // A file import's rounds as the rows see them: an earlier round holds `high`'s row; the tag
        // change share-locks `low`'s and waits for `high`'s; the import's next round needs `low`'s.
        // Both would wait on each other, and had the import begun waiting first, PostgreSQL's
        // deadlock check would roll the import back. The change lets go of `low` before that check:
        // the import has it within nine tenths of deadlock_timeout, or fails here on its lock_timeout.
        let changing: Promise<unknown> | undefined;
        await db.transaction(async (tx) => {
          await tx.query(sql`SELECT address FROM address_stats WHERE address = ${high.canonical} FOR UPDATE`);
          changing = change(low, high);
          await untilWaitingForLock(db);
          await tx.execute(raw(`SET LOCAL lock_timeout = '${Math.round((deadlockMs * 9) / 10)}ms'`));
          await tx.execute(
            sql`UPDATE address_stats SET txn_count = txn_count WHERE address IN (${low.canonical}, ${high.canonical})`,
          );
        });
        await changing;
        expect(await findDrift(db)).toEqual([]);
        const kept = await db.query<{ address_count: number | string; txn_count: number | string }>(
          sql`SELECT SUM(s.address_count) AS address_count, SUM(s.txn_count) AS txn_count
              FROM tag_stats s JOIN tags t ON t.id = s.tag_id WHERE t.name LIKE 'letgo%'`,
        );
        expect([Number(kept[0]!.address_count), Number(kept[0]!.txn_count)]).toEqual([addressCount, txnCount]);
        // The lock_timeout holds for taking those rows only: the change's later waits (a tracked row,
        // a tag's row) last as long as they must.
        const [after] = await db.transaction(async (tx) => {
          await shareAddresses(tx, [low.canonical, high.canonical]);
          return tx.query<{ lock_timeout: string }>(sql`SHOW lock_timeout`);
        });
        expect(after!.lock_timeout).toBe('0');
      },
      60_000,
    );

    it('let a file import through when a replace must remove a member that a POST it waited for added', async () => {
      await reset();
      const [joining, kept] = [...ADDRESSES].sort((a, b) => binaryOrder(a.canonical, b.canonical)) as [
        TestAddress,
        TestAddress,
      ];
      const alice = accountIds.get('alice')!;
      await tags.assign(alice, 'replaced_tag', parsed([kept]), 'test_key');
      const [tag] = await db.query<{ id: number | string }>(sql`SELECT id FROM tags WHERE name = 'replaced_tag'`);
      // A POST adding `joining` waits for the tag's row, holding the account's tracked set and
      // `joining`'s address_stats row; a replace that keeps only `kept` waits for the set; a file
      // import of a transfer between the two waits for `joining`'s row. Once the POST commits, the
      // replace must remove `joining`: had it read the account's members before it held the set, it
      // would find `joining` only then, and wait for its row (held by the import by then) while
      // holding `kept`'s, which the import waits for; the import, waiting first, would be rolled back.
      const racing = await whileRowsLocked(
        db,
        sql`SELECT tag_id FROM tag_stats WHERE tag_id = ${Number(tag!.id)} FOR UPDATE`,
        async () => {
          const posting = tags.assign(alice, 'replaced_tag', parsed([joining]), 'test_key');
          await untilWaitingForLock(db);
          const replacing = importTags(alice, [{ address: kept.canonical, tag: 'replaced_tag' }], 'replace');
          await untilWaitingForLock(db, 15_000, 2);
          const importing = sink.write(oneBatch([transfer('replaced-1', joining, kept)]), { policy: 'whole-input' });
          await untilWaitingForLock(db, 15_000, 3);
          return { done: Promise.all([posting, replacing, importing]) };
        },
      );
      const [, replaced, imported] = await racing.done;
      expect(imported.committed).toBe(true);
      expect(replaced).toEqual({ ok: true, counts: { addresses: 1, added: 0, removed: 1, unchanged: 1 } });
      const members = await db.query<{ address: string }>(
        sql`SELECT address FROM address_tags WHERE tag_id = ${Number(tag!.id)}`,
      );
      expect(members.map((row) => row.address)).toEqual([kept.canonical]);
      expect(await findDrift(db)).toEqual([]);
    }, 60_000);

    it('run file imports that share rows one after the other, beside live writes, all committed', async () => {
      await reset();
      const crowd = Array.from({ length: 40 }, (_v, index) => evmAddress(`aggregates-files-${index}`));
      const [left, right] = [crowd.slice(0, 20), crowd.slice(20)];
      await tags.assign(
        accountIds.get('alice')!,
        'files_tag',
        parsed(crowd.filter((_a, index) => index % 3 === 0)),
        'test_key',
      );
      // Each file writes one half, then the other: two at once would each hold the half the other
      // needs next (holdings, transactions and address_stats rows) if they were not run in turn.
      const file = (first: TestAddress[], second: TestAddress[]) => [
        ...roundsImport(first, 1),
        ...roundsImport(second, 2).slice(500),
      ];
      const live = (round: number) =>
        (async function* () {
          for (let batch = 0; batch < 6; batch += 1) {
            await Promise.resolve();
            const ends = [crowd[(batch * 7 + round) % 40]!, crowd[(batch * 11 + 3) % 40]!];
            yield {
              items: [
                { position: 1, record: transfer(`live-${round}-${batch}`, ends[0]!, ends[1]!) },
                { position: 2, record: holding(ends[1]!, TOKENS[0]!, String(batch + round + 1), TIMES[2]) },
              ],
            };
          }
        })();
      for (let round = 0; round < 3; round += 1) {
        const reports = await Promise.all([
          sink.write(oneBatch(file(left, right)), { policy: 'whole-input', changesPerRound: 1 }),
          sink.write(oneBatch(file(right, left)), { policy: 'whole-input', changesPerRound: 1 }),
          sink.write(live(round), { policy: 'per-batch' }),
        ]);
        expect(reports.map((report) => report.committed)).toEqual([true, true, true]);
        expect(await findDrift(db)).toEqual([]);
      }
      const [row] = await db.query<{ n: number | string }>(
        sql`SELECT COUNT(*) AS n FROM transactions WHERE id LIKE 'live-%'`,
      );
      expect(Number(row!.n)).toBe(18);
    }, 120_000);
  }

  if (kind === 'postgres') {
    it('stay exact when requests tag a new tag at once, other tags share addresses and an import runs rounds', async () => {
      await reset();
      const crowd = Array.from({ length: 48 }, (_v, index) => evmAddress(`aggregates-busy-${index}`));
      const [alice, bob] = [accountIds.get('alice')!, accountIds.get('bob')!];
      await sink.write(oneBatch(roundsImport(crowd, 2)), { policy: 'whole-input' });
      for (let round = 0; round < 4; round += 1) {
        // The requests that waited for the tag's creation find it with members: each way of finding
        // their transactions with them in turn.
        useLookup((['read', 'pairedLookup', 'busyRead', 'pairedMixed'] as const)[round % 4]!);
        const tag = `fresh_tag_${round}`;
        const slice = (from: number, length: number) => parsed(crowd.slice(from, from + length));
        const results = await Promise.allSettled([
          // Four requests for a tag none of them finds: they queue on its creation, then on its row.
          ...[0, 1, 2, 3].map((part) => tags.assign(alice, tag, slice(part * 12, 12), 'test_key')),
          // Another account's tag over the same addresses: shared locks, no queue.
          tags.assign(bob, 'beta_tag', slice((round * 11) % 36, 12), 'test_key'),
          tags.removeFrom(bob, 'beta_tag', slice((round * 7) % 40, 8), 'test_key').catch((error: unknown) => {
            if (!(error instanceof ApiError) || error.code !== 'TAG_NOT_FOUND') throw error;
          }),
          sink.write(oneBatch(roundsImport(crowd, 3).slice(round * 100)), {
            policy: 'whole-input',
            changesPerRound: 1,
          }),
        ]);
        expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
        expect(await findDrift(db)).toEqual([]);
      }
    }, 180_000);
  }

  it('stay exact when requests on different tags and on the same tag add the same addresses at once', async () => {
    await reset();
    const crowd = Array.from({ length: 30 }, (_v, index) => evmAddress(`aggregates-shared-${index}`));
    const [alice, bob] = [accountIds.get('alice')!, accountIds.get('bob')!];
    await sink.write(oneBatch(roundsImport(crowd, 1)), { policy: 'whole-input' });
    const slice = (from: number, length: number) => parsed(crowd.slice(from, from + length));
    const results = await Promise.allSettled([
      tags.assign(alice, 'alpha_tag', slice(0, 12), 'test_key'),
      tags.assign(alice, 'alpha_tag', slice(8, 12), 'test_key'),
      tags.assign(alice, 'beta_tag', slice(4, 14), 'test_key'),
      tags.assign(bob, 'alpha_tag', slice(10, 20), 'test_key'),
      tags.assign(bob, 'gamma_tag', slice(16, 14), 'test_key'),
    ]);
    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    await expectExact();
    // Later requests over the same addresses, after a transaction between the tags' members.
    await apply({ kind: 'import', records: [transfer('shared-late', crowd[0]!, crowd[29]!)] });
    await Promise.all([
      tags.assign(alice, 'beta_tag', slice(0, 4), 'test_key'),
      tags.removeFrom(bob, 'alpha_tag', slice(10, 5), 'test_key'),
    ]);
    await expectExact();
  }, 60_000);

  if (kind === 'postgres') {
    it('let a tag change go through between the rounds of an import that wrote to the tag', async () => {
      await reset();
      const [member, joiner] = [evmAddress('aggregates-member'), evmAddress('aggregates-joiner')];
      const filler = Array.from({ length: 30 }, (_v, index) => evmAddress(`aggregates-filler-${index}`));
      const alice = accountIds.get('alice')!;
      await tags.assign(alice, 'alpha_tag', parsed([member]), 'test_key');
      // A first group of 500 that writes to the tag's member only, then a group that reaches the joiner.
      const records: RecordInput[] = [
        holding(member, TOKENS[1]!, '5'),
        ...Array.from({ length: 499 }, (_v, index) =>
          transfer(`filler-${index}`, filler[index % 30]!, filler[(index * 7 + 1) % 30]!),
        ),
        holding(joiner, TOKENS[1]!, '7'),
        transfer('member-joiner', member, joiner),
      ];
      let change: Promise<unknown> | undefined;
      let settled = false;
      const afterFirstGroup = async () => {
        if (change !== undefined) return;
        // The import holds the member's row now and has gathered the tag's part; the joiner it has not reached.
        change = tags.assign(alice, 'alpha_tag', parsed([joiner]), 'test_key').finally(() => (settled = true));
        for (let waited = 0; !settled && waited < 15_000; waited += 20) {
          const [waiting] = await db.query<{ n: number | string }>(
            sql`SELECT COUNT(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          );
          if (Number(waiting!.n) > 0) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        // Had the import locked the tag's row in that round, the change would wait for it here,
        // holding the joiner's row that the import needs next: a deadlock.
        expect(settled).toBe(true);
      };
      const report = await sink.write(oneBatch(records), {
        policy: 'whole-input',
        changesPerRound: 1,
        rowsPerBatch: 500,
        hooks: [{ afterBatch: afterFirstGroup }],
      });
      expect(report.committed).toBe(true);
      await change;
      await expectExact();
    }, 60_000);
  }

  it('keep the ndjson import exact too', async () => {
    await reset();
    const [a, b] = [ADDRESSES[0]!, ADDRESSES[1]!];
    await tags.assign(accountIds.get('alice')!, 'alpha_tag', parsed([a, b]), 'test_key');
    const line = (balance: string) => ({
      type: 'holding',
      chain: 'ethereum',
      address: a.input,
      token_address: '0',
      balance,
      updated_at: TIMES[1],
    });
    for (const lines of [[line('3')], [line('3')], [line('0')]]) {
      await importLines(t, lines);
      await expectExact();
    }
  }, 120_000);
});
