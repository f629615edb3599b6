import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { findDrift } from '../src/modules/aggregates/aggregates.service';
import { Db } from '../src/database/db.service';
import { raw, sql } from '../src/database/sql';
import { IngestService } from '../src/modules/ingest/ingest.service';
import { evmAddress, evmAddresses, FAMILY_EXAMPLES, tagNames } from './support/addresses';
import { runCli } from './support/cli';
import { addressOn, compareBinary, holdingLine, ndjson, transaction, transactionLine } from './support/factories';
import { untilWaitingForLock, whileRowsLocked } from './support/row-locks';
import { asText, DATABASES, startOnFreshDatabase, TestApp } from './support/test-app';

const NDJSON = 'application/x-ndjson';

describe.each(DATABASES)('tag export and import on %s', (kind) => {
  let t: TestApp;
  let dir: string;

  beforeAll(async () => {
    t = await startOnFreshDatabase(kind);
    dir = mkdtempSync(join(tmpdir(), 'chaintags-tags-files-'));
  });

  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const as = (key: string) => ({
    post: (path: string, body: unknown) =>
      t.http().post(path).set('X-API-Key', key).set('Content-Type', 'application/json').send(JSON.stringify(body)),
    get: (path: string) => t.http().get(path).set('X-API-Key', key),
    del: (path: string) => t.http().delete(path).set('X-API-Key', key),
    exportCsv: () => t.http().get('/v2/export/tags').set('X-API-Key', key).set('Accept', 'text/csv').buffer(true),
    exportNdjson: () => t.http().get('/v2/export/tags').set('X-API-Key', key).buffer(true).parse(asText),
    import: (body: string, type: string, query = '') =>
      t.http().post(`/v2/import/tags${query}`).set('X-API-Key', key).set('Content-Type', type).send(body),
  });

  /**
   * A fresh account (a key of its own) for each test that needs an empty slate. Created in the
   * test's process, as `keys create` does (test/cli-keys.e2e-spec.ts runs the command itself).
   */
  async function account(): Promise<ReturnType<typeof as> & { name: string }> {
    const name = `acct_${Math.random().toString(36).slice(2, 10)}`;
    return { ...as(await t.app.get(AccountsService).createKey(name)), name };
  }

  async function exported(who: ReturnType<typeof as>): Promise<string> {
    const response = await who.exportNdjson().expect(200);
    return response.body as string;
  }

  async function tableCounts(): Promise<Record<string, number>> {
    const db = t.app.get(Db);
    const counts: Record<string, number> = {};
    for (const table of ['tags', 'address_tags', 'tracked_addresses', 'tag_history', 'tag_stats']) {
      counts[table] = await db.count(sql`SELECT COUNT(*) FROM ${raw(table)}`);
    }
    return counts;
  }

  const lines = (text: string) => text.split('\n').filter((line) => line !== '');
  const ndjsonOf = (entries: [string, string[]][]) =>
    entries.map(([address, tags]) => `${JSON.stringify({ address, tags })}\n`).join('');

  describe('GET /v2/export/tags', () => {
    it("streams every tracked address of the account with its sorted tags, in address order, and nobody else's", async () => {
      const alice = await account();
      const other = await account();
      const [a, b, c] = evmAddresses(3).sort(compareBinary) as [string, string, string];
      await alice.post('/v2/tags/zeta_group', [b, a]).expect(200);
      await alice.post('/v2/tags/alpha_group', [b]).expect(200);
      await alice.post('/v2/tags/0', [c, FAMILY_EXAMPLES.bitcoinSegwit.input]).expect(200);
      await other.post('/v2/tags/other_group', [a, evmAddress().canonical]).expect(200);

      const response = await alice.exportNdjson().expect(200);
      expect(response.headers['content-type']).toMatch(/^application\/x-ndjson/);
      const expected = [
        { address: a, tags: ['zeta_group'] },
        { address: b, tags: ['alpha_group', 'zeta_group'] },
        { address: c, tags: ['0'] },
        { address: FAMILY_EXAMPLES.bitcoinSegwit.canonical, tags: ['0'] },
      ].sort((x, y) => compareBinary(x.address, y.address));
      expect(lines(response.body as string).map((line) => JSON.parse(line) as unknown)).toEqual(expected);

      const csv = await alice.exportCsv().expect(200);
      expect(csv.headers['content-type']).toMatch(/^text\/csv/);
      expect(csv.text).toBe(
        `address,tag\n${expected.flatMap((entry) => entry.tags.map((tag) => `${entry.address},${tag}\n`)).join('')}`,
      );
    });

    it('pages through an account larger than one read, and an empty account exports nothing', async () => {
      const alice = await account();
      const addresses = evmAddresses(2300);
      for (let start = 0; start < addresses.length; start += 1000) {
        await alice.post('/v2/tags/big_group', addresses.slice(start, start + 1000)).expect(200);
      }
      const body = await exported(alice);
      const seen = lines(body).map((line) => (JSON.parse(line) as { address: string }).address);
      expect(seen).toEqual([...addresses].sort(compareBinary));
      expect(await exported(await account())).toBe('');
      expect((await (await account()).exportCsv().expect(200)).text).toBe('address,tag\n');
    });

    it('takes no query parameters but the key', async () => {
      const alice = await account();
      const response = await alice.get('/v2/export/tags?format=csv').expect(400);
      expect(response.body.code).toBe('INVALID_QUERY');
    });
  });

  describe('POST /v2/import/tags', () => {
    if (kind === 'postgres') {
      it('creates a tag of the file anew when it is deleted while the import waits for an address', async () => {
        const db = t.app.get(Db);
        const alice = await account();
        const [member, blocker, joiner] = evmAddresses(3) as [string, string, string];
        await alice.post('/v2/tags/race_import', [member]).expect(200);
        await alice.post('/v2/tags/0', [blocker]).expect(200);
        const file = ndjsonOf([
          [blocker, ['race_import']],
          [joiner, ['race_import']],
        ]);
        // The import finds the tag, then waits for the blocker's tracked row (the cap's lock);
        // meanwhile the tag, whose member the file does not name, is deleted.
        const { importing } = await whileRowsLocked(
          db,
          sql`SELECT address FROM tracked_addresses WHERE address = ${blocker} FOR UPDATE`,
          async () => {
            const importing = alice.import(file, NDJSON).then((response) => response);
            await untilWaitingForLock(db);
            await alice.del('/v2/tags/race_import').expect(204);
            // Wrapped: the import goes on once the rows are released.
            return { importing };
          },
        );
        const answer = await importing;
        expect(answer.status).toBe(200);
        expect(answer.body).toMatchObject({ addresses: 2, added: 2, removed: 0 });
        expect(lines(await exported(alice)).map((line) => JSON.parse(line) as unknown)).toEqual(
          [
            { address: blocker, tags: ['race_import'] },
            { address: joiner, tags: ['race_import'] },
            { address: member, tags: ['0'] },
          ].sort((a, b) => compareBinary(a.address, b.address)),
        );
        expect(await findDrift(db)).toEqual([]);
      });

      it('undoes the whole of a merge that went before it, the address the merge tracked included', async () => {
        const db = t.app.get(Db);
        const alice = await account();
        // The merge's address first in address order, so that a replace reading the first tag's
        // members slice by slice would not come back to it.
        const [joiner, kept] = evmAddresses(2).sort(compareBinary) as [string, string];
        await alice.post('/v2/tags/race_first', [kept]).expect(200);
        await alice.post('/v2/tags/race_second', [kept]).expect(200);
        const firstTag = sql`SELECT id FROM tags WHERE name = 'race_first' AND account_id =
          (SELECT account_id FROM tracked_addresses WHERE address = ${kept}) FOR UPDATE`;
        // The merge (a new address, both tags) waits for the first tag's row; the replace (an empty
        // file) waits for the merge. The merge goes first and commits both tags; the replace then
        // removes them all, the new address's too: not its second tag alone (a merge half undone),
        // nor none of its (a replace that missed an address).
        const { merging, replacing } = await whileRowsLocked(db, firstTag, async () => {
          const merging = alice
            .import(`address,tag\n${joiner},race_first\n${joiner},race_second\n`, 'text/csv')
            .then((response) => response);
          await untilWaitingForLock(db);
          const replacing = alice.import('address,tag\n', 'text/csv', '?mode=replace').then((response) => response);
          await untilWaitingForLock(db, 15_000, 2);
          return { merging, replacing };
        });
        expect((await merging).body).toMatchObject({ addresses: 1, added: 2, removed: 0 });
        expect((await replacing).body).toMatchObject({ addresses: 0, added: 0, removed: 4 });
        expect(await exported(alice)).toBe('');
        expect(await findDrift(db)).toEqual([]);
      });

      it('takes turns between two replaces that each track an address the account did not have', async () => {
        const db = t.app.get(Db);
        const alice = await account();
        const [first, second, scratch] = evmAddresses(3) as [string, string, string];
        // Two tags with no members, on an account that tracks nothing.
        for (const tag of ['turn_first', 'turn_second']) {
          await alice.post(`/v2/tags/${tag}`, [scratch]).expect(200);
          await alice.del(`/v2/tags/${tag}/addresses`).send([scratch]).expect(200);
        }
        await alice.del('/v2/tags/0/addresses').send([scratch]).expect(200);
        const tagRows = sql`SELECT tag_id FROM tag_stats
          WHERE tag_id IN (SELECT id FROM tags WHERE name IN ('turn_first', 'turn_second')) ORDER BY tag_id FOR UPDATE`;
        // Each replace tracks its address, then waits for its tag's row to add it. Had the second
        // not waited for the first to commit, neither would have seen the other's address: both
        // kept, where either order leaves one.
        const { replacingFirst, replacingSecond } = await whileRowsLocked(db, tagRows, async () => {
          const replacingFirst = alice
            .import(`address,tag\n${first},turn_first\n`, 'text/csv', '?mode=replace')
            .then((response) => response);
          await untilWaitingForLock(db);
          const replacingSecond = alice
            .import(`address,tag\n${second},turn_second\n`, 'text/csv', '?mode=replace')
            .then((response) => response);
          await untilWaitingForLock(db, 15_000, 2);
          return { replacingFirst, replacingSecond };
        });
        expect((await replacingFirst).body).toMatchObject({ addresses: 1, added: 1, removed: 0 });
        expect((await replacingSecond).body).toMatchObject({ addresses: 1, added: 1, removed: 1 });
        expect(await exported(alice)).toBe(ndjsonOf([[second, ['turn_second']]]));
        expect(await findDrift(db)).toEqual([]);
      });

      it('replaces what a change that went before it did in whole, the addresses it tracked included', async () => {
        const db = t.app.get(Db);
        const alice = await account();
        const [shared, fresh] = evmAddresses(2) as [string, string];
        await alice.post('/v2/tags/0', [shared]).expect(200);
        // The POST (the tracked address and a new one) holds the account's tracked set shared and
        // waits for the tracked row; the replace (an empty file) waits for the set alone. The POST
        // goes first and commits both memberships; the replace then comes after all of it, the new
        // address's membership included, which a lock on the tracked rows alone could not cover.
        const { posting, replacing } = await whileRowsLocked(
          db,
          sql`SELECT address FROM tracked_addresses WHERE address = ${shared} FOR UPDATE`,
          async () => {
            const posting = alice.post('/v2/tags/race_before', [shared, fresh]).then((response) => response);
            await untilWaitingForLock(db);
            const replacing = alice.import('address,tag\n', 'text/csv', '?mode=replace').then((response) => response);
            await untilWaitingForLock(db, 15_000, 2);
            return { posting, replacing };
          },
        );
        expect((await posting).status).toBe(200);
        expect((await replacing).body).toMatchObject({ addresses: 0, added: 0, removed: 2 });
        expect(await exported(alice)).toBe('');
        expect(await findDrift(db)).toEqual([]);
      });
    }

    it('round-trips: an export imported into another account exports identically, as NDJSON and as CSV', async () => {
      const alice = await account();
      const addresses = evmAddresses(40);
      await alice.post('/v2/tags/first_group', addresses.slice(0, 25)).expect(200);
      await alice.post('/v2/tags/second_group', addresses.slice(10, 40)).expect(200);
      await alice.post('/v2/tags/0', [FAMILY_EXAMPLES.ton.input, FAMILY_EXAMPLES.solana.input]).expect(200);
      await alice.post('/v2/tags/third_group', [FAMILY_EXAMPLES.bitcoinCash.input]).expect(200);
      const original = await exported(alice);
      const csv = (await alice.exportCsv().expect(200)).text;

      const bob = await account();
      const answer = await bob.import(original, NDJSON).expect(200);
      expect(answer.body).toEqual({
        addresses: 43,
        added: 25 + 30 + 2 + 1,
        removed: 0,
        unchanged: 0,
        skipped: 0,
        dry_run: false,
      });
      expect(await exported(bob)).toBe(original);
      // The same file again changes nothing.
      const again = await bob.import(original, NDJSON).expect(200);
      expect(again.body).toMatchObject({ added: 0, removed: 0, unchanged: 58 });

      const carol = await account();
      await carol.import(csv, 'text/csv').expect(200);
      expect(await exported(carol)).toBe(original);
      expect((await carol.exportCsv()).text).toBe(csv);
    });

    it('merges by default: the file is added, what the account had stays', async () => {
      const alice = await account();
      const [kept, both, fresh] = evmAddresses(3);
      await alice.post('/v2/tags/kept_group', [kept, both]).expect(200);
      const file = ndjsonOf([
        [both!, ['kept_group', 'new_group']],
        [fresh!, ['new_group']],
      ]);
      const answer = await alice.import(file, NDJSON, '?mode=merge').expect(200);
      expect(answer.body).toEqual({ addresses: 2, added: 2, removed: 0, unchanged: 1, skipped: 0, dry_run: false });
      const tags = (await alice.get(`/v2/addresses/${both}`).expect(200)).body.tags;
      expect(tags).toEqual(['kept_group', 'new_group']);
      expect((await alice.get(`/v2/addresses/${kept}`).expect(200)).body.tags).toEqual(['kept_group']);
    });

    it('replaces: removes exactly what the file lacks, untracks addresses it does not name, and exports the file', async () => {
      const alice = await account();
      const [a, b, c, d, e] = evmAddresses(5).sort(compareBinary) as [string, string, string, string, string];
      await alice.post('/v2/tags/group_one', [a, b, c]).expect(200);
      await alice.post('/v2/tags/group_two', [a, d]).expect(200);
      await alice.post('/v2/tags/0', [e]).expect(200);
      const file = ndjsonOf([
        [a, ['group_one']],
        [b, ['0']],
        [c, ['group_one', 'group_three']],
      ]);
      const answer = await alice.import(file, NDJSON, '?mode=replace').expect(200);
      // Removed: a's group_two, b's group_one, d's group_two, e's 0. Added: c's group_three.
      expect(answer.body).toEqual({ addresses: 3, added: 1, removed: 4, unchanged: 3, skipped: 0, dry_run: false });
      expect(await exported(alice)).toBe(file);
      // The emptied tag is still the account's, with no members; the addresses the file lacks are untracked.
      expect((await alice.get('/v2/tags/group_two').expect(200)).body.stats.address_count).toBe(0);
      expect((await alice.get(`/v2/addresses/${d}`).expect(200)).body.tags).toEqual([]);
    });

    it('answers a dry run with the counts and changes nothing', async () => {
      const alice = await account();
      const [a, b] = evmAddresses(2);
      await alice.post('/v2/tags/dry_group', [a]).expect(200);
      const before = await exported(alice);
      const counts = await tableCounts();
      const file = ndjsonOf([[b!, ['dry_group', 'wet_group']]]);
      const merge = await alice.import(file, NDJSON, '?dry_run=true').expect(200);
      expect(merge.body).toEqual({ addresses: 1, added: 2, removed: 0, unchanged: 0, skipped: 0, dry_run: true });
      const replace = await alice.import(file, NDJSON, '?mode=replace&dry_run=true').expect(200);
      expect(replace.body).toEqual({ addresses: 1, added: 2, removed: 1, unchanged: 0, skipped: 0, dry_run: true });
      expect(await exported(alice)).toBe(before);
      expect(await tableCounts()).toEqual(counts);
      expect((await alice.get('/v2/tags/wet_group')).status).toBe(404);
    });

    it('refuses a file with bad lines, naming each by number (at most 100), and writes nothing', async () => {
      const alice = await account();
      const counts = await tableCounts();
      const good = evmAddress().canonical;
      const file = [
        JSON.stringify({ address: good, tags: ['good_group'] }),
        '',
        JSON.stringify({ address: 'not-an-address', tags: ['good_group'] }),
        JSON.stringify({ address: good, tags: ['No'] }),
        '{broken',
        JSON.stringify({ address: good, tags: ['good_group'] }),
      ].join('\n');
      const response = await alice.import(file, NDJSON).expect(400);
      expect(response.body.code).toBe('INVALID_BODY');
      expect(response.body.details.map((detail: { line: number }) => detail.line)).toEqual([3, 4, 5]);
      expect(response.body.details[0].message).toMatch(/not-an-address/);
      expect(await tableCounts()).toEqual(counts);

      const many = Array.from({ length: 150 }, (_unused, index) => `${good},Bad${index}`).join('\n');
      const csv = await alice.import(`address,tag\n${many}\n`, 'text/csv').expect(400);
      expect(csv.body.details).toHaveLength(100);
      expect(csv.body.details[0].line).toBe(2);
      expect(csv.body.message).toMatch(/150 lines/);

      const headless = await alice.import(`${good},good_group\n`, 'text/csv').expect(400);
      expect(headless.body.details).toEqual([{ line: 1, message: expect.stringMatching(/address,tag/) }]);
      expect((await alice.import('', NDJSON).expect(400)).body.code).toBe('INVALID_BODY');
      expect(await tableCounts()).toEqual(counts);
    });

    it('checks the 50-tag cap for the whole file before writing: 422 naming the addresses', async () => {
      const alice = await account();
      const [full, other] = evmAddresses(2);
      for (const tag of tagNames(49, 'capped')) await alice.post(`/v2/tags/${tag}`, [full]).expect(200);
      const before = await exported(alice);
      // One more tag fits; the file's second line would make 51. Its first line is fine on its own.
      const file = ndjsonOf([
        [other!, ['cap_extra_a']],
        [full!, ['cap_extra_a', 'cap_extra_b', 'capped_0001']],
      ]);
      const response = await alice.import(file, NDJSON).expect(422);
      expect(response.body.code).toBe('TAG_LIMIT_EXCEEDED');
      expect(response.body.details).toEqual([{ address: full, tag_count: 49 }]);
      expect(await exported(alice)).toBe(before);
      // Replacing frees tags first: the same address may then take 50 new ones.
      const fifty = ndjsonOf([[full!, tagNames(50, 'fresh')]]);
      await alice.import(fifty, NDJSON, '?mode=replace').expect(200);
      expect((await alice.get(`/v2/addresses/${full}`).expect(200)).body.tags).toEqual(tagNames(50, 'fresh'));
    });

    it('keeps the cap when imports and POSTs race for the same addresses', async () => {
      const alice = await account();
      const crowd = evmAddresses(6);
      await Promise.all(tagNames(40, 'base').map((tag) => alice.post(`/v2/tags/${tag}`, crowd)));
      const files = [0, 1, 2].map((round) => ndjsonOf(crowd.map((address) => [address, tagNames(6, `file${round}`)])));
      const results = await Promise.all([
        ...files.map((file) => alice.import(file, NDJSON)),
        ...tagNames(6, 'posted').map((tag) => alice.post(`/v2/tags/${tag}`, crowd)),
      ]);
      for (const result of results) expect([200, 422]).toContain(result.status);
      for (const line of lines(await exported(alice))) {
        expect((JSON.parse(line) as { tags: string[] }).tags.length).toBeLessThanOrEqual(50);
      }
      expect(results.some((result) => result.status === 422)).toBe(true);
    });

    it('keeps the aggregates exact, as a POST does', async () => {
      const alice = await account();
      const ingest = t.app.get(IngestService);
      const members = ['ethereum', 'bitcoin', 'solana'].map((chain, index) =>
        addressOn(chain as never, `port-${index}`),
      );
      const transfers = [
        transaction({ chain: 'ethereum', from: members[0], to: addressOn('ethereum', 'port-x') }),
        transaction({ chain: 'ethereum', from: addressOn('ethereum', 'port-y'), to: members[0] }),
      ];
      await ingest.import([
        ndjson([
          holdingLine({
            chain: 'ethereum',
            address: members[0]!,
            token_address: '0',
            balance: '1000',
            updated_at: '2024-05-01T00:00:00.000Z',
          }),
          holdingLine({
            chain: 'bitcoin',
            address: members[1]!,
            token_address: '0',
            balance: '7',
            updated_at: '2024-05-01T00:00:00.000Z',
          }),
          ...transfers.map(transactionLine),
        ]),
      ]);
      const canonical = members.map((member) => member.canonical);
      const y = addressOn('ethereum', 'port-y').canonical;
      await alice.post('/v2/tags/agg_group', [canonical[2]]).expect(200);
      // Tracked untagged before the file gives it a tag: its tracked row's flag flips.
      await alice.post('/v2/tags/0', [y]).expect(200);
      await alice
        .import(
          ndjsonOf([
            ...canonical.map((address): [string, string[]] => [address, ['agg_group', 'agg_other']]),
            [y, ['agg_group']],
          ]),
          NDJSON,
        )
        .expect(200);
      const db = t.app.get(Db);
      expect(await findDrift(db)).toEqual([]);
      const stats = (await alice.get('/v2/tags/agg_group').expect(200)).body.stats;
      expect(stats).toMatchObject({ address_count: 4, token_holding_count: 2, txn_count: 2 });
      await alice.import(ndjsonOf([[canonical[0]!, ['agg_group']]]), NDJSON, '?mode=replace').expect(200);
      expect(await findDrift(db)).toEqual([]);
      expect((await alice.get('/v2/tags/agg_group').expect(200)).body.stats).toMatchObject({
        address_count: 1,
        token_holding_count: 1,
        txn_count: 2,
      });
      expect((await alice.get('/v2/tags/agg_other').expect(200)).body.stats.address_count).toBe(0);
    });

    it('reads a GraphSense TagPack: header fields inherited, labels made tag names, other currencies skipped', async () => {
      const alice = await account();
      const evm = evmAddress();
      const pack = [
        'title: Test TagPack',
        'creator: chaintags tests',
        'currency: BTC',
        'category: exchange',
        'tags:',
        `  - address: ${FAMILY_EXAMPLES.bitcoinLegacy.input}`,
        '    label: Some Exchange',
        `  - address: ${evm.checksummed}`,
        '    currency: ETH',
        '    label: Some Exchange',
        '  - address: LTC1qsomething',
        '    currency: LTC',
        '    label: Elsewhere',
        `  - address: ${FAMILY_EXAMPLES.bitcoinSegwit.input}`,
        '    label: "Hot Wallet #2"',
      ].join('\n');
      const answer = await alice.import(pack, 'application/yaml').expect(200);
      expect(answer.body).toEqual({ addresses: 3, added: 3, removed: 0, unchanged: 0, skipped: 1, dry_run: false });
      expect((await alice.get(`/v2/addresses/${evm.canonical}`).expect(200)).body.tags).toEqual(['some_exchange']);
      expect(
        (await alice.get(`/v2/addresses/${FAMILY_EXAMPLES.bitcoinSegwit.canonical}`).expect(200)).body.tags,
      ).toEqual(['hot_wallet_2']);

      const badPack = [
        'currency: ETH',
        'tags:',
        `  - address: ${FAMILY_EXAMPLES.bitcoinLegacy.input}`,
        '    label: Fine Label',
        '  - address: 0x12',
        '    label: OKX',
      ].join('\n');
      const refused = await alice.import(badPack, 'application/yaml').expect(400);
      expect(refused.body.details.map((detail: { line: number }) => detail.line)).toEqual([3, 5]);
    });

    it('records each change in the history under the calling key', async () => {
      const alice = await account();
      const address = evmAddress().canonical;
      await alice.import(ndjsonOf([[address, ['hist_group']]]), NDJSON).expect(200);
      await alice.import(ndjsonOf([[address, ['0']]]), NDJSON, '?mode=replace').expect(200);
      const history = (await alice.get('/v2/tags/hist_group/history').expect(200)).body;
      const me = (await alice.get('/v2/tags/hist_group/history').expect(200)).body[0].key as string;
      expect(history.map((entry: { action: string; address: string }) => [entry.action, entry.address])).toEqual([
        ['removed', address],
        ['added', address],
      ]);
      expect(me).toHaveLength(12);
      expect(me.startsWith('ctk_')).toBe(true);
    });

    it('refuses other media types, bodies over 100 MiB and unknown parameters', async () => {
      const alice = await account();
      expect((await alice.import('[]', 'application/json').expect(415)).body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      const tooLarge = await t
        .http()
        .post('/v2/import/tags')
        .set('X-API-Key', await t.app.get(AccountsService).createKey(alice.name))
        .set('Content-Type', NDJSON)
        .set('Content-Length', String(100 * 1024 * 1024 + 1))
        // A body declared and never sent leaves nothing else to read on its connection.
        .set('Connection', 'close')
        .send('x')
        .catch((error: { response?: { status: number; body: { code: string } } }) => error.response);
      expect(tooLarge?.status).toBe(413);
      expect(tooLarge?.body.code).toBe('PAYLOAD_TOO_LARGE');
      expect((await alice.import('', NDJSON, '?mode=upsert').expect(400)).body.code).toBe('INVALID_QUERY');
      expect((await alice.import('', NDJSON, '?dry_run=yes').expect(400)).body.code).toBe('INVALID_QUERY');
      expect((await alice.import('', NDJSON, '?replace=true').expect(400)).body.code).toBe('INVALID_QUERY');
    });
  });

  describe('the command line', () => {
    it('exports as the API does and imports with --replace and --dry-run, recorded as cli', async () => {
      const alice = await account();
      const addresses = evmAddresses(5);
      await alice.post('/v2/tags/cli_group', addresses.slice(0, 3)).expect(200);
      await alice.post('/v2/tags/0', addresses.slice(3)).expect(200);

      const ndjsonOut = await runCli(t.databaseUrl, ['tags', 'export', '--account', alice.name]);
      expect(ndjsonOut.code).toBe(0);
      expect(ndjsonOut.stdout).toBe(await exported(alice));
      const csvOut = await runCli(t.databaseUrl, ['tags', 'export', '--account', alice.name, '--csv']);
      expect(csvOut.stdout).toBe((await alice.exportCsv()).text);

      const bob = await account();
      const file = join(dir, 'alice.csv');
      writeFileSync(file, csvOut.stdout);
      const dry = await runCli(t.databaseUrl, ['tags', 'import', '--account', bob.name, file, '--dry-run']);
      expect(dry.code).toBe(0);
      expect(JSON.parse(dry.stdout)).toEqual({
        addresses: 5,
        added: 5,
        removed: 0,
        unchanged: 0,
        skipped: 0,
        dry_run: true,
      });
      expect(await exported(bob)).toBe('');
      const real = await runCli(t.databaseUrl, ['tags', 'import', '--account', bob.name, file]);
      expect(JSON.parse(real.stdout)).toMatchObject({ added: 5, dry_run: false });
      expect(await exported(bob)).toBe(ndjsonOut.stdout);

      const smaller = join(dir, 'smaller.ndjson');
      writeFileSync(smaller, ndjsonOf([[addresses[0]!, ['cli_group']]]));
      const replaced = await runCli(t.databaseUrl, ['tags', 'import', '--account', bob.name, smaller, '--replace']);
      expect(JSON.parse(replaced.stdout)).toMatchObject({ addresses: 1, removed: 4, unchanged: 1 });
      const history = (await bob.get('/v2/tags/cli_group/history').expect(200)).body;
      expect(history).toHaveLength(5);
      expect(new Set(history.map((entry: { key: string }) => entry.key))).toEqual(new Set(['cli']));

      const bad = join(dir, 'bad.ndjson');
      writeFileSync(bad, 'nonsense\n');
      const refused = await runCli(t.databaseUrl, ['tags', 'import', '--account', bob.name, bad]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/line 1: /);
      const nobody = await runCli(t.databaseUrl, ['tags', 'export', '--account', 'nobody_here']);
      expect(nobody.code).toBe(1);
      expect(nobody.stderr).toMatch(/no account nobody_here/);
    });
  });
});
