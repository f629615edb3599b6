import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { evmAddress, FAMILY_EXAMPLES } from './support/addresses';
import { compareBinary } from './support/factories';
import { Db } from '../src/database/db.service';
import { findDrift } from '../src/modules/aggregates/aggregates.service';
import { asText, DATABASES, startOnFreshDatabase, TestApp } from './support/test-app';

/**
 * The tag routes against a model of what docs/tags.md says they do: random sequences of tag
 * assignments, removals, deletions, renames, imports (merge and replace, dry runs, NDJSON and CSV) and
 * fills up to the 50-tag cap, by two accounts, over a few addresses in their different spellings.
 * After every step each answer is compared with the model's, and so is each account's whole state:
 * its export, its addresses' records, its list of tags with their counts, each touched tag's
 * addresses and history, and the tracked-untagged set; after a sequence, the kept aggregates are
 * checked exact. The second property sends the steps four at a time, at once: some order of them
 * must give every answer and the state found after them (the changes are serializable). The kept
 * aggregates' own property test (aggregates.e2e-spec) holds the stats to their reference; this one
 * holds the membership rules: the reserved `0`, the cap, atomic refusals, canonical spellings, the
 * history. TAGS_MODEL_RUNS sets the runs of each (15), TAGS_MODEL_SHRINK=0 reports a failure as
 * found, without shrinking it (long searches).
 */

type Account = 'alice' | 'bob';
const ACCOUNTS: Account[] = ['alice', 'bob'];
const CAP = 50;
const UNTAGGED = '0';

/** One address of the pool and the spellings it may be sent in (all of them the same record). */
interface PoolAddress {
  canonical: string;
  spellings: string[];
}

function addressPool(): PoolAddress[] {
  const evm = Array.from({ length: 5 }, () => {
    const { checksummed, canonical } = evmAddress();
    return { canonical, spellings: [checksummed, canonical] };
  });
  const { bitcoinSegwit, bitcoinCash } = FAMILY_EXAMPLES;
  return [
    ...evm,
    { canonical: bitcoinSegwit.canonical, spellings: [bitcoinSegwit.input, bitcoinSegwit.canonical] },
    { canonical: bitcoinCash.canonical, spellings: [bitcoinCash.input, bitcoinCash.canonical] },
  ];
}

/** An address of the pool, by index, in one of its spellings (by index too, modulo theirs). */
interface AddressRef {
  index: number;
  spelling: number;
}

/**
 * A tag by role: the named tags every sequence uses, or one of the fills (`fill` k of a sequence's
 * 52), which is how an address comes near the cap.
 */
type TagRef = { named: number } | { fill: number } | { renamed: number } | { reserved: true };

type Step =
  | { kind: 'assign'; account: Account; tag: TagRef; addresses: AddressRef[] }
  | { kind: 'remove'; account: Account; tag: TagRef; addresses: AddressRef[] }
  | { kind: 'delete'; account: Account; tag: TagRef }
  | { kind: 'rename'; account: Account; tag: TagRef; to: TagRef }
  | {
      kind: 'import';
      account: Account;
      mode: 'merge' | 'replace';
      dryRun: boolean;
      format: 'ndjson' | 'csv';
      lines: { address: AddressRef; tags: TagRef[] }[];
    }
  | { kind: 'fill'; account: Account; address: AddressRef; count: number; from: number };

const POOL_SIZE = 7;
const NAMED = 3;
const FILLS = 52;

const addressRef: fc.Arbitrary<AddressRef> = fc.record({
  index: fc.integer({ min: 0, max: POOL_SIZE - 1 }),
  spelling: fc.integer({ min: 0, max: 1 }),
});
const realTag: fc.Arbitrary<TagRef> = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: NAMED - 1 }).map((named) => ({ named })) },
  { weight: 1, arbitrary: fc.constantFrom(0, 1, FILLS - 1).map((fill) => ({ fill })) },
);
const anyTag: fc.Arbitrary<TagRef> = fc.oneof(
  { weight: 4, arbitrary: realTag },
  { weight: 1, arbitrary: fc.constant({ reserved: true as const }) },
);
/** A rename's new name: mostly one of the names only renames give, which no other step uses. */
const renamedRef: fc.Arbitrary<TagRef> = fc.integer({ min: 0, max: 1 }).map((renamed) => ({ renamed }));
const newName: fc.Arbitrary<TagRef> = fc.oneof(
  { weight: 3, arbitrary: renamedRef },
  { weight: 2, arbitrary: realTag },
  { weight: 1, arbitrary: fc.constant({ reserved: true as const }) },
);
/** The tag a rename names: mostly one the other steps use, sometimes a name a rename gave. */
const renamedTag: fc.Arbitrary<TagRef> = fc.oneof(
  { weight: 4, arbitrary: realTag },
  { weight: 1, arbitrary: renamedRef },
  { weight: 1, arbitrary: fc.constant({ reserved: true as const }) },
);
const account: fc.Arbitrary<Account> = fc.oneof(
  { weight: 3, arbitrary: fc.constant('alice' as const) },
  fc.constant('bob' as const),
);
const someAddresses = fc.array(addressRef, { minLength: 1, maxLength: 4 });

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('assign' as const), account, tag: anyTag, addresses: someAddresses }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('remove' as const), account, tag: anyTag, addresses: someAddresses }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), account, tag: anyTag }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('rename' as const), account, tag: renamedTag, to: newName }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('import' as const),
      account,
      mode: fc.constantFrom('merge' as const, 'replace' as const),
      dryRun: fc.boolean(),
      format: fc.constantFrom('ndjson' as const, 'csv' as const),
      lines: fc.array(
        fc.record({
          address: addressRef,
          tags: fc.oneof(
            { weight: 4, arbitrary: fc.uniqueArray(realTag, { minLength: 1, maxLength: 3, selector: JSON.stringify }) },
            { weight: 1, arbitrary: fc.constant<TagRef[]>([{ reserved: true }]) },
            { weight: 1, arbitrary: realTag.map((tag): TagRef[] => [{ reserved: true }, tag]) },
          ),
        }),
        { maxLength: 4 },
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('fill' as const),
      account,
      address: addressRef,
      count: fc.integer({ min: 47, max: CAP + 1 }),
      from: fc.integer({ min: 0, max: 1 }),
    }),
  },
);

/**
 * A sequence every run tries first, as random ones seldom rename a tag that has members: a rename
 * beside a removal, an assignment to the old name and one to the new (four at once when batched),
 * a rename back, and one onto a name the account has.
 */
const RENAMES: Step[] = [
  {
    kind: 'assign',
    account: 'alice',
    tag: { named: 0 },
    addresses: [
      { index: 0, spelling: 0 },
      { index: 1, spelling: 1 },
    ],
  },
  { kind: 'assign', account: 'alice', tag: { named: 1 }, addresses: [{ index: 1, spelling: 0 }] },
  { kind: 'rename', account: 'alice', tag: { named: 0 }, to: { renamed: 0 } },
  { kind: 'remove', account: 'alice', tag: { named: 0 }, addresses: [{ index: 0, spelling: 1 }] },
  { kind: 'assign', account: 'alice', tag: { named: 0 }, addresses: [{ index: 2, spelling: 0 }] },
  { kind: 'assign', account: 'alice', tag: { renamed: 0 }, addresses: [{ index: 3, spelling: 0 }] },
  { kind: 'rename', account: 'alice', tag: { renamed: 0 }, to: { named: 2 } },
  { kind: 'rename', account: 'alice', tag: { named: 1 }, to: { named: 2 } },
];

interface HistoryEntry {
  action: 'added' | 'removed';
  address: string;
  key: string;
}

/** One account's tags as docs/tags.md describes them. */
class AccountModel {
  /** Tracked addresses and their real tags. */
  readonly tracked = new Map<string, Set<string>>();
  /** Tags that exist (an emptied tag stays until it is deleted). */
  readonly tags = new Set<string>();
  /** Every membership change, oldest first, by tag name (it outlives the tag). */
  readonly history = new Map<string, HistoryEntry[]>();

  constructor(readonly key: string) {}

  tagsOf(address: string): Set<string> {
    return this.tracked.get(address) ?? new Set();
  }

  /** A record's `tags`: sorted, `["0"]` when tracked without a tag, `[]` when not tracked. */
  listed(address: string): string[] {
    const tags = this.tracked.get(address);
    if (tags === undefined) return [];
    return tags.size === 0 ? [UNTAGGED] : [...tags].sort(compareBinary);
  }

  record(tag: string, action: HistoryEntry['action'], address: string): void {
    const entries = this.history.get(tag) ?? [];
    entries.push({ action, address, key: this.key.slice(0, 12) });
    this.history.set(tag, entries);
  }

  add(address: string, tag: string): void {
    const tags = this.tracked.get(address) ?? new Set<string>();
    this.tracked.set(address, tags);
    if (tags.has(tag)) return;
    tags.add(tag);
    this.record(tag, 'added', address);
  }

  remove(address: string, tag: string): boolean {
    const tags = this.tracked.get(address);
    if (tags === undefined || !tags.delete(tag)) return false;
    this.record(tag, 'removed', address);
    return true;
  }

  members(tag: string): string[] {
    return [...this.tracked].filter(([, tags]) => tags.has(tag)).map(([address]) => address);
  }

  copy(): AccountModel {
    const copy = new AccountModel(this.key);
    for (const [address, tags] of this.tracked) copy.tracked.set(address, new Set(tags));
    for (const tag of this.tags) copy.tags.add(tag);
    for (const [tag, entries] of this.history) copy.history.set(tag, [...entries]);
    return copy;
  }
}

/** What an import answers, and the model it leaves (to keep unless refused or a dry run). */
type ImportOutcome =
  | { status: 200; answer: Record<string, number | boolean>; after: AccountModel }
  | { status: 400 }
  | { status: 422; details: { address: string; tag_count: number }[] };

/**
 * docs/tags.md, "Import": the file's (address, tag) pairs, `0` meaning tracked; a replace first
 * removes what the file lacks (untracking the addresses it does not name), the cap is counted after
 * that over the whole file, then the pairs are added.
 */
function imported(
  model: AccountModel,
  pairs: { address: string; tag: string }[],
  mode: 'merge' | 'replace',
  dryRun: boolean,
): ImportOutcome {
  const unique = new Map(pairs.map((pair) => [`${pair.address} ${pair.tag}`, pair]));
  const file = [...unique.values()];
  const named = new Set(file.map((pair) => pair.address));
  const after = model.copy();
  const trackedBefore = new Set(model.tracked.keys());
  let removed = 0;
  if (mode === 'replace') {
    for (const [address, tags] of [...after.tracked]) {
      if (!named.has(address)) {
        removed += tags.size === 0 ? 1 : tags.size;
        for (const tag of [...tags]) after.remove(address, tag);
        after.tracked.delete(address);
        continue;
      }
      for (const tag of [...tags]) if (!unique.has(`${address} ${tag}`)) removed += Number(after.remove(address, tag));
    }
  }
  const real = file.filter((pair) => pair.tag !== UNTAGGED);
  const over = [...named]
    .map((address) => {
      const current = after.tagsOf(address).size;
      const adding = real.filter((pair) => pair.address === address && !after.tagsOf(address).has(pair.tag)).length;
      return { address, tag_count: current, over: current + adding > CAP };
    })
    .filter((row) => row.over)
    .map(({ address, tag_count }) => ({ address, tag_count }))
    .sort((a, b) => compareBinary(a.address, b.address));
  if (over.length > 0) return { status: 422, details: over };

  let newlyTracked = 0;
  for (const pair of file) {
    if (pair.tag === UNTAGGED && !trackedBefore.has(pair.address)) newlyTracked += 1;
  }
  // Tracked from the start of the import, before any removal: a `0` pair of an address the replace
  // untracked is not possible (the file names it).
  let added = 0;
  for (const address of named) if (!after.tracked.has(address)) after.tracked.set(address, new Set());
  for (const tag of [...new Set(real.map((pair) => pair.tag))].sort(compareBinary)) after.tags.add(tag);
  for (const pair of real) {
    if (after.tagsOf(pair.address).has(pair.tag)) continue;
    after.add(pair.address, pair.tag);
    added += 1;
  }
  const untaggedPairs = file.length - real.length;
  return {
    status: 200,
    answer: {
      addresses: named.size,
      added: added + newlyTracked,
      removed,
      unchanged: real.length - added + (untaggedPairs - newlyTracked),
      skipped: 0,
      dry_run: dryRun,
    },
    after,
  };
}

describe.each(DATABASES)('the tag routes against a model of their rules, on %s', (kind) => {
  let t: TestApp;
  const pool = addressPool();
  let sequence = 0;

  beforeAll(async () => {
    t = await startOnFreshDatabase(kind);
  });

  afterAll(async () => {
    await t?.close();
  });

  const keyOf = (who: Account) => t.keys[who];
  const get = (who: Account, path: string) => t.http().get(path).set('X-API-Key', keyOf(who));

  /** The sequence's tag names: its own, so that one sequence's history does not meet another's. */
  function tagName(ref: TagRef, prefix: string): string {
    if ('reserved' in ref) return UNTAGGED;
    if ('named' in ref) return `${prefix}_t${ref.named}`;
    if ('renamed' in ref) return `${prefix}_r${ref.renamed}`;
    return `${prefix}_f${String(ref.fill).padStart(2, '0')}`;
  }
  const spell = (ref: AddressRef) => {
    const address = pool[ref.index]!;
    return { canonical: address.canonical, text: address.spellings[ref.spelling % address.spellings.length]! };
  };

  async function exported(who: Account): Promise<string> {
    const response = await get(who, '/v2/export/tags').buffer(true).parse(asText).expect(200);
    return response.body as string;
  }

  async function listedTags(who: Account): Promise<{ tag: string; address_count: number }[]> {
    const response = await get(who, '/v2/tags?per_page=100').expect(200);
    return (response.body as { tag: string; address_count: number }[]).map(({ tag, address_count }) => ({
      tag,
      address_count,
    }));
  }

  async function history(who: Account, tag: string): Promise<HistoryEntry[]> {
    const response = await get(who, `/v2/tags/${tag}/history?per_page=100`).expect(200);
    const entries = response.body as (HistoryEntry & { at: string })[];
    const times = entries.map((entry) => entry.at);
    expect([...times].sort().reverse()).toEqual(times);
    return entries.map(({ action, address, key }) => ({ action, address, key }));
  }

  /** The account's whole state as the API shows it, against the model. */
  async function expectState(who: Account, model: AccountModel, touched: Iterable<string>): Promise<void> {
    const lines = [...model.tracked.keys()]
      .sort(compareBinary)
      .map((address) => `${JSON.stringify({ address, tags: model.listed(address) })}\n`)
      .join('');
    expect(await exported(who)).toBe(lines);
    // The address route reads an address's tags its own way (with its stats, in one statement).
    for (const { canonical, spellings } of pool) {
      const response = await get(who, `/v2/addresses/${encodeURIComponent(spellings[0]!)}`).expect(200);
      expect({ address: response.body.address, tags: response.body.tags }).toEqual({
        address: canonical,
        tags: model.listed(canonical),
      });
    }
    expect(await listedTags(who)).toEqual(
      [...model.tags].sort(compareBinary).map((tag) => ({ tag, address_count: model.members(tag).length })),
    );
    const untagged = [...model.tracked].filter(([, tags]) => tags.size === 0).map(([address]) => address);
    expect((await get(who, '/v2/tags/0').expect(200)).body.stats.address_count).toBe(untagged.length);
    // Each list of a tag's addresses (its order is by time of assignment: compared sorted), with
    // every address's tags; the tracked-untagged set as `0`'s.
    const byAddress = (a: { address: string }, b: { address: string }) => compareBinary(a.address, b.address);
    for (const tag of new Set([...touched, UNTAGGED])) {
      const response = await get(who, `/v2/tags/${tag}/addresses?per_page=100`);
      if (tag !== UNTAGGED && !model.tags.has(tag)) {
        expect(response.status).toBe(404);
        continue;
      }
      expect(response.status).toBe(200);
      const members = tag === UNTAGGED ? untagged : model.members(tag);
      expect(records(response.body).sort(byAddress)).toEqual(
        members.sort(compareBinary).map((address) => ({ address, tags: model.listed(address) })),
      );
    }
    // Newest first; entries of one change are compared as a set (their order within it is the
    // service's), by sorting both sides.
    const order = (entries: HistoryEntry[]) =>
      entries.map((entry) => `${entry.action} ${entry.address} ${entry.key}`).sort(compareBinary);
    for (const tag of new Set(touched)) {
      if (tag === UNTAGGED) continue;
      expect(order(await history(who, tag))).toEqual(order(model.history.get(tag) ?? []));
    }
  }

  /** Empties both accounts through the API: a replace with an empty CSV, then every tag deleted. */
  async function emptyAccounts(): Promise<void> {
    for (const who of ACCOUNTS) {
      await t
        .http()
        .post('/v2/import/tags?mode=replace')
        .set('X-API-Key', keyOf(who))
        .set('Content-Type', 'text/csv')
        .send('address,tag\n')
        .expect(200);
      for (const { tag } of await listedTags(who))
        await t.http().delete(`/v2/tags/${tag}`).set('X-API-Key', keyOf(who)).expect(204);
    }
  }

  /** A step as the HTTP request it sends, and the (address, tag) pairs of an import or a fill. */
  function requestOf(current: Step, prefix: string): Request {
    const spelledAll = (refs: AddressRef[]) => refs.map(spell);
    if (current.kind === 'assign' || current.kind === 'remove') {
      const tag = tagName(current.tag, prefix);
      const spelled = spelledAll(current.addresses);
      return {
        method: current.kind === 'assign' ? 'post' : 'delete',
        path: current.kind === 'assign' ? `/v2/tags/${tag}` : `/v2/tags/${tag}/addresses`,
        type: 'application/json',
        body: JSON.stringify(spelled.map((address) => address.text)),
        tag,
        addresses: [...new Set(spelled.map((address) => address.canonical))],
        pairs: [],
      };
    }
    if (current.kind === 'delete') {
      const tag = tagName(current.tag, prefix);
      return { method: 'delete', path: `/v2/tags/${tag}`, tag, addresses: [], pairs: [] };
    }
    if (current.kind === 'rename') {
      const tag = tagName(current.tag, prefix);
      const renameTo = tagName(current.to, prefix);
      return {
        method: 'patch',
        path: `/v2/tags/${tag}`,
        type: 'application/json',
        body: JSON.stringify({ name: renameTo }),
        tag,
        renameTo,
        addresses: [],
        pairs: [],
      };
    }
    const lines =
      current.kind === 'fill'
        ? [
            {
              address: spell(current.address),
              tags: Array.from({ length: current.count }, (_unused, k) => tagName({ fill: current.from + k }, prefix)),
            },
          ]
        : current.lines.map((line) => ({
            address: spell(line.address),
            tags: line.tags.map((tag) => tagName(tag, prefix)),
          }));
    const mode = current.kind === 'fill' ? 'merge' : current.mode;
    const dryRun = current.kind === 'fill' ? false : current.dryRun;
    const format = current.kind === 'fill' ? 'ndjson' : current.format;
    return {
      method: 'post',
      path: `/v2/import/tags?mode=${mode}${dryRun ? '&dry_run=true' : ''}`,
      type: format === 'ndjson' ? 'application/x-ndjson' : 'text/csv',
      body:
        format === 'ndjson'
          ? lines.map((line) => `${JSON.stringify({ address: line.address.text, tags: line.tags })}\n`).join('')
          : `address,tag\n${lines.flatMap((line) => line.tags.map((tag) => `${line.address.text},${tag}\n`)).join('')}`,
      addresses: [],
      pairs: lines.flatMap((line) => line.tags.map((tag) => ({ address: line.address.canonical, tag }))),
      mode,
      dryRun,
    };
  }

  async function send(who: Account, request: Request): Promise<Answer> {
    let call = t.http()[request.method](request.path).set('X-API-Key', keyOf(who));
    if (request.type !== undefined) call = call.set('Content-Type', request.type).send(request.body);
    const response = await call;
    const body = response.body as Record<string, unknown> | unknown[];
    if (response.status >= 400) {
      const error = body as { code: string; details?: { address: string; tag_count: number }[] };
      if (response.status !== 422) return { status: response.status, code: error.code };
      const details = [...(error.details ?? [])].sort((a, b) => compareBinary(a.address, b.address));
      return { status: response.status, code: error.code, body: details };
    }
    if (response.status === 204) return { status: 204 };
    if (request.method === 'patch') {
      // A renamed tag's summary, but for its timestamps, which the model does not keep.
      const { tag, address_count } = body as { tag: string; address_count: number };
      return { status: response.status, body: { tag, address_count } };
    }
    return { status: response.status, body: Array.isArray(body) ? records(body) : body };
  }

  async function run(steps: Step[], batched: boolean): Promise<void> {
    sequence += 1;
    const prefix = `m${String(sequence).padStart(3, '0')}`;
    await emptyAccounts();
    let models: Models = { alice: new AccountModel(t.keys.alice), bob: new AccountModel(t.keys.bob) };
    const everyTag = new Set<string>();
    // Sequentially, one step a batch; concurrently, the steps in batches of up to four sent at once.
    const batches: Step[][] = batched ? chunked(steps, 4) : steps.map((current) => [current]);

    for (const [index, batch] of batches.entries()) {
      const requests = batch.map((current) => requestOf(current, prefix));
      const context = `batch ${index + 1} of sequence ${prefix}: ${JSON.stringify(batch)}`;
      try {
        const answers = await Promise.all(batch.map((current, at) => send(current.account, requests[at]!)));
        // Some order of the batch's steps must give every answer and the state found after them.
        const state = await snapshot();
        const tried: string[] = [];
        let found: Models | undefined;
        for (const order of permutations(batch.length)) {
          let trial = models;
          const expected: Answer[] = [];
          for (const at of order) {
            const outcome = simulate(trial, batch[at]!.account, requests[at]!);
            expected[at] = outcome.answer;
            trial = outcome.models;
          }
          const sameState = isDeepStrictEqual(snapshotOf(trial), state);
          if (isDeepStrictEqual(expected, answers) && sameState) {
            found = trial;
            break;
          }
          tried.push(`order ${order.join(',')} (${sameState ? 'same' : 'another'} state): ${JSON.stringify(expected)}`);
        }
        if (found === undefined) {
          // The first order's expectations, compared in full, say what differs.
          const first = batch.reduce<{ models: Models; answers: Answer[] }>(
            (acc, current, at) => {
              const outcome = simulate(acc.models, current.account, requests[at]!);
              return { models: outcome.models, answers: [...acc.answers, outcome.answer] };
            },
            { models, answers: [] },
          );
          let difference = '';
          try {
            expect({ answers, state }).toEqual({ answers: first.answers, state: snapshotOf(first.models) });
          } catch (error) {
            difference = (error as Error).message;
          }
          throw new Error(
            `no order of the batch gives its answers and state; answered ${JSON.stringify(answers)}, where\n` +
              `${tried.join('\n')}\nand against the first order:\n${difference}`,
          );
        }
        models = found;
        const touched = requests.flatMap((request) => [
          ...(request.tag === undefined ? [] : [request.tag]),
          ...(request.renameTo === undefined ? [] : [request.renameTo]),
          ...request.pairs.map((pair) => pair.tag),
        ]);
        // A replace removes tags the file does not name: every tag of the account is touched.
        if (requests.some((request) => request.mode === 'replace')) {
          for (const who of ACCOUNTS) touched.push(...models[who].tags, ...models[who].history.keys());
        }
        for (const tag of touched) everyTag.add(tag);
        for (const who of ACCOUNTS) {
          const own = batch.some((current) => current.account === who) ? touched : [];
          await expectState(who, models[who], own);
        }
      } catch (error) {
        throw new Error(`${context}\n${(error as Error).message}`);
      }
    }
    for (const who of ACCOUNTS) await expectState(who, models[who], everyTag);
    // And what the changes keep besides (the tracked rows' `tagged`, the tags' counts) is exact.
    expect(await findDrift(t.app.get(Db))).toEqual([]);
  }

  /** Both accounts' exports and lists of tags: what a batch's outcome is compared on. */
  async function snapshot(): Promise<Record<Account, { exported: string; tags: unknown }>> {
    const [alice, bob] = await Promise.all(
      ACCOUNTS.map(async (who) => ({ exported: await exported(who), tags: await listedTags(who) })),
    );
    return { alice: alice!, bob: bob! };
  }

  // TAGS_MODEL_RUNS=500 (say) searches longer, as a change to the tag routes deserves.
  const runs = Number(process.env.TAGS_MODEL_RUNS ?? 15);
  it(
    'keeps every answer and the whole state of both accounts as the rules say, step after step',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), (steps) => run(steps, false)),
        { numRuns: runs, endOnFailure: process.env.TAGS_MODEL_SHRINK === '0', examples: [[RENAMES]] },
      );
    },
    Math.max(60_000, runs * 5_000),
  );

  it(
    'gives requests sent at once the answers and the state of one order of them',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 2, maxLength: 12 }), (steps) => run(steps, true)),
        { numRuns: runs, endOnFailure: process.env.TAGS_MODEL_SHRINK === '0', examples: [[RENAMES]] },
      );
    },
    Math.max(60_000, runs * 5_000),
  );
});

/** What a step sends. */
interface Request {
  method: 'post' | 'delete' | 'patch';
  path: string;
  type?: string;
  body?: string;
  /** The tag of an assignment, a removal, a deletion or a rename. */
  tag?: string;
  /** A rename's new name. */
  renameTo?: string;
  /** An assignment's or a removal's distinct canonical addresses, in first-seen order. */
  addresses: string[];
  /** An import's pairs, canonical. */
  pairs: { address: string; tag: string }[];
  mode?: 'merge' | 'replace';
  dryRun?: boolean;
}

/** An answer as compared: its status, an error's code, and the body that matters. */
interface Answer {
  status: number;
  code?: string;
  body?: unknown;
}

type Models = Record<Account, AccountModel>;

/**
 * What docs/tags.md says a request does to the account's model: the answer and the models after it
 * (the acting account's model copied, never changed in place: the batches try several orders).
 */
function simulate(models: Models, who: Account, request: Request): { answer: Answer; models: Models } {
  const before = models[who];
  const model = before.copy();
  const next = { ...models, [who]: model };
  const keep = { ...models };
  const tag = request.tag;
  const recordsOf = (addresses: string[]) => addresses.map((address) => ({ address, tags: model.listed(address) }));

  if (request.path.startsWith('/v2/import/tags')) {
    const empty = request.body === '';
    const outcome = empty
      ? ({ status: 400 } as const)
      : imported(before, request.pairs, request.mode!, request.dryRun!);
    if (outcome.status === 400) return { answer: { status: 400, code: 'INVALID_BODY' }, models: keep };
    if (outcome.status === 422) {
      return { answer: { status: 422, code: 'TAG_LIMIT_EXCEEDED', body: outcome.details }, models: keep };
    }
    return {
      answer: { status: 200, body: outcome.answer },
      models: request.dryRun ? keep : { ...models, [who]: outcome.after },
    };
  }
  if (request.method === 'patch') {
    // docs/tags.md, "Renaming": every member leaves the old name and joins the new one.
    const to = request.renameTo!;
    if (tag === UNTAGGED || to === UNTAGGED) return { answer: { status: 400, code: 'INVALID_TAG' }, models: keep };
    if (!before.tags.has(tag!)) return { answer: { status: 404, code: 'TAG_NOT_FOUND' }, models: keep };
    const members = before.members(tag!);
    const answer = { status: 200, body: { tag: to, address_count: members.length } };
    if (to === tag) return { answer, models: keep };
    if (before.tags.has(to)) return { answer: { status: 409, code: 'TAG_EXISTS' }, models: keep };
    for (const address of members) model.remove(address, tag!);
    for (const address of members) model.add(address, to);
    model.tags.delete(tag!);
    model.tags.add(to);
    return { answer, models: next };
  }
  if (request.method === 'post') {
    const over =
      tag === UNTAGGED
        ? []
        : request.addresses.filter(
            (address) => !before.tagsOf(address).has(tag!) && before.tagsOf(address).size >= CAP,
          );
    if (over.length > 0) {
      const details = over.sort(compareBinary).map((address) => ({ address, tag_count: CAP }));
      return { answer: { status: 422, code: 'TAG_LIMIT_EXCEEDED', body: details }, models: keep };
    }
    for (const address of request.addresses) {
      if (!model.tracked.has(address)) model.tracked.set(address, new Set());
      if (tag !== UNTAGGED) model.add(address, tag!);
    }
    if (tag !== UNTAGGED) model.tags.add(tag!);
    return { answer: { status: 200, body: recordsOf(request.addresses) }, models: next };
  }
  if (request.path.endsWith('/addresses')) {
    if (tag !== UNTAGGED && !before.tags.has(tag!)) {
      return { answer: { status: 404, code: 'TAG_NOT_FOUND' }, models: keep };
    }
    for (const address of request.addresses) {
      if (tag !== UNTAGGED) model.remove(address, tag!);
      else if (model.tracked.get(address)?.size === 0) model.tracked.delete(address);
    }
    return { answer: { status: 200, body: recordsOf(request.addresses) }, models: next };
  }
  if (tag === UNTAGGED) return { answer: { status: 400, code: 'INVALID_TAG' }, models: keep };
  if (!before.tags.has(tag!)) return { answer: { status: 404, code: 'TAG_NOT_FOUND' }, models: keep };
  for (const address of model.members(tag!)) model.remove(address, tag!);
  model.tags.delete(tag!);
  return { answer: { status: 204 }, models: next };
}

/** What snapshot() reads, from the models. */
function snapshotOf(models: Models): Record<Account, { exported: string; tags: unknown }> {
  const of = (model: AccountModel) => ({
    exported: [...model.tracked.keys()]
      .sort(compareBinary)
      .map((address) => `${JSON.stringify({ address, tags: model.listed(address) })}\n`)
      .join(''),
    tags: [...model.tags].sort(compareBinary).map((tag) => ({ tag, address_count: model.members(tag).length })),
  });
  return { alice: of(models.alice), bob: of(models.bob) };
}

function* permutations(count: number): Generator<number[]> {
  if (count === 0) {
    yield [];
    return;
  }
  for (const rest of permutations(count - 1)) {
    for (let at = 0; at <= rest.length; at++) yield [...rest.slice(0, at), count - 1, ...rest.slice(at)];
  }
}

function chunked<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let at = 0; at < items.length; at += size) out.push(items.slice(at, at + size));
  return out;
}

function records(body: unknown): { address: string; tags: string[] }[] {
  return (body as { address: string; tags: string[] }[]).map(({ address, tags }) => ({ address, tags }));
}
