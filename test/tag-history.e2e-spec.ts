import { randomBytes } from 'node:crypto';
import { encodeCursor } from '../src/http/paging/cursor';
import { evmAddress, evmAddresses, tagNames } from './support/addresses';
import { runCli } from './support/cli';
import { compareBinary } from './support/factories';
import { DATABASES, startOnFreshDatabase, TestApp } from './support/test-app';
import { asKey } from './support/fixtures';

interface Entry {
  at: string;
  action: 'added' | 'removed';
  address: string;
  key: string;
}

describe.each(DATABASES)('tag history on %s', (kind) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startOnFreshDatabase(kind);
  });

  afterAll(async () => {
    await t.close();
  });

  const as = (key: string) => asKey(t, key);
  const alice = () => as(t.keys.alice);
  const bob = () => as(t.keys.bob);

  async function history(who: ReturnType<typeof as>, tag: string, query = ''): Promise<Entry[]> {
    const response = await who.get(`/v2/tags/${tag}/history${query}`).expect(200);
    return response.body as Entry[];
  }

  const moves = (entries: Entry[]) => entries.map((entry) => [entry.action, entry.address]);

  it('records one "added" per newly tagged address with the first 12 characters of the key, and nothing for a no-op', async () => {
    const [a, b] = evmAddresses(2).sort(compareBinary) as [string, string];
    const before = Date.now();
    await alice().post('/v2/tags/hist_posted', [a, b]).expect(200);
    const first = await history(alice(), 'hist_posted');
    expect(first).toHaveLength(2);
    for (const entry of first) {
      expect(entry).toEqual({
        at: expect.any(String),
        action: 'added',
        address: expect.any(String),
        key: t.keys.alice.slice(0, 12),
      });
      expect(new Date(entry.at).toISOString()).toBe(entry.at);
      expect(Date.parse(entry.at)).toBeGreaterThanOrEqual(before - 1000);
    }
    expect(first.map((entry) => entry.address).sort(compareBinary)).toEqual([a, b]);
    // Again, in another spelling: nothing changes, nothing is recorded.
    await alice()
      .post('/v2/tags/hist_posted', [a.toUpperCase().replace('0X', '0x'), b])
      .expect(200);
    expect(await history(alice(), 'hist_posted')).toEqual(first);
    expect(JSON.stringify(first)).not.toContain(t.keys.alice);
  });

  it('records "removed" only for addresses that carried the tag, and a refused request records nothing', async () => {
    const [member, stranger] = evmAddresses(2);
    await alice().post('/v2/tags/hist_removal', [member]).expect(200);
    await alice().del('/v2/tags/hist_removal/addresses', [member, stranger]).expect(200);
    await alice().del('/v2/tags/hist_removal/addresses', [member]).expect(200);
    expect(moves(await history(alice(), 'hist_removal'))).toEqual([
      ['removed', member],
      ['added', member],
    ]);

    const full = evmAddress().canonical;
    for (const tag of tagNames(50, 'hist_cap')) await alice().post(`/v2/tags/${tag}`, [full]).expect(200);
    const fresh = evmAddress().canonical;
    await alice().post('/v2/tags/hist_refused', [fresh, full]).expect(422);
    expect(await history(alice(), 'hist_refused')).toEqual([]);
  });

  it('records a "removed" for every member when the tag is deleted, and outlives it', async () => {
    const members = evmAddresses(3);
    await alice().post('/v2/tags/hist_deleted', members).expect(200);
    await alice().del('/v2/tags/hist_deleted').expect(204);
    await alice().get('/v2/tags/hist_deleted').expect(404);
    const entries = await history(alice(), 'hist_deleted');
    expect(entries).toHaveLength(6);
    expect(entries.slice(0, 3).every((entry) => entry.action === 'removed')).toBe(true);
    expect(
      entries
        .slice(0, 3)
        .map((entry) => entry.address)
        .sort(compareBinary),
    ).toEqual([...members].sort(compareBinary));
    // Created again under the same name, the tag continues its history.
    await alice().post('/v2/tags/hist_deleted', [members[0]]).expect(200);
    const continued = await history(alice(), 'hist_deleted');
    expect(continued).toHaveLength(7);
    expect(moves(continued.slice(0, 1))).toEqual([['added', members[0]]]);
  });

  it('lists newest first and pages with the after cursor, skipping and repeating nothing while rows are added', async () => {
    const addresses = evmAddresses(7);
    for (const address of addresses) await alice().post('/v2/tags/hist_paged', [address]).expect(200);
    const whole = await history(alice(), 'hist_paged');
    expect(whole.map((entry) => entry.address)).toEqual([...addresses].reverse());
    for (let index = 1; index < whole.length; index += 1) {
      expect(whole[index - 1]!.at >= whole[index]!.at).toBe(true);
    }

    const seen: string[] = [];
    let url: string | undefined = `/v2/tags/hist_paged/history?per_page=3&api_key=${t.keys.alice}`;
    let pages = 0;
    while (url !== undefined) {
      const response: { body: unknown; headers: Record<string, unknown> } = await t.http().get(url).expect(200);
      seen.push(...(response.body as Entry[]).map((entry) => entry.address));
      const link: string = (response.headers.link as string | undefined) ?? '';
      if (pages > 0) expect(link).toContain('rel="first"');
      expect(link).not.toContain('rel="last"');
      const next: string | undefined = /<([^>]+)>; rel="next"/.exec(link)?.[1];
      url = next === undefined ? undefined : new URL(next).pathname + new URL(next).search;
      if (pages === 0) {
        expect(next).toContain('per_page=3');
        // Newer rows arrive between pages; the following pages neither shift nor repeat.
        await alice().post('/v2/tags/hist_paged', evmAddresses(2)).expect(200);
      }
      pages += 1;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(whole.map((entry) => entry.address));
  });

  it('filters by address (any spelling), since and until, and refuses bad values and cursors', async () => {
    const target = evmAddress();
    const other = evmAddress().canonical;
    await alice().post('/v2/tags/hist_filter', [target.canonical, other]).expect(200);
    const cut = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await alice().del('/v2/tags/hist_filter/addresses', [target.canonical]).expect(200);

    expect(moves(await history(alice(), 'hist_filter', `?address=${target.checksummed}`))).toEqual([
      ['removed', target.canonical],
      ['added', target.canonical],
    ]);
    expect(moves(await history(alice(), 'hist_filter', `?since=${cut}`))).toEqual([['removed', target.canonical]]);
    expect(await history(alice(), 'hist_filter', `?since=${cut}&address=${other}`)).toEqual([]);
    expect(await history(alice(), 'hist_filter', '?since=2000-01-01T00:00:00Z')).toHaveLength(3);
    // until is the window's other end, inclusive: the two additions were made at or before the cut.
    expect(moves(await history(alice(), 'hist_filter', `?until=${cut}`)).sort()).toEqual(
      [
        ['added', target.canonical],
        ['added', other],
      ].sort(),
    );
    expect(moves(await history(alice(), 'hist_filter', `?until=${cut}&address=${other}`))).toEqual([['added', other]]);
    expect(await history(alice(), 'hist_filter', `?since=${cut}&until=${cut}`)).toEqual([]);
    expect(await history(alice(), 'hist_filter', '?until=2000-01-01T00:00:00Z')).toEqual([]);
    const [added] = await history(alice(), 'hist_filter', `?address=${other}`);
    expect(await history(alice(), 'hist_filter', `?address=${other}&until=${added!.at}`)).toHaveLength(1);

    const bad = async (query: string, code: string) =>
      expect((await alice().get(`/v2/tags/hist_filter/history${query}`).expect(400)).body.code).toBe(code);
    await bad('?since=yesterday', 'INVALID_QUERY');
    await bad('?until=2026-12-01', 'INVALID_QUERY');
    await bad('?address=0x1234', 'INVALID_ADDRESS');
    await bad('?after=garbage', 'INVALID_QUERY');
    await bad('?per_page=0', 'INVALID_QUERY');
    await bad('?tag=hist_filter', 'INVALID_QUERY');
    await bad(`?after=${encodeCursor({ time: cut, id: '1' }, randomBytes(32), 'tag history')}`, 'INVALID_QUERY');
    // A cursor this server issued for the transactions list is no cursor here.
    const page = await alice().get('/v2/tags/hist_filter/history?per_page=1').expect(200);
    const next = /<([^>]+)>; rel="next"/.exec(page.headers.link as string)![1]!;
    const cursor = new URL(next).searchParams.get('after')!;
    await alice().get(`/v2/tags/hist_filter/history?after=${cursor}`).expect(200);
    const transactions = await alice().get(`/v2/transactions?after=${cursor}`).expect(400);
    expect(transactions.body.code).toBe('INVALID_QUERY');
  });

  it("answers [] for another account's tag, an unknown tag and 0; 400 for a malformed tag", async () => {
    await alice().post('/v2/tags/hist_private', evmAddresses(2)).expect(200);
    expect(await history(bob(), 'hist_private')).toEqual([]);
    expect(await history(alice(), 'hist_private')).toHaveLength(2);
    expect(await history(alice(), 'hist_never_was')).toEqual([]);
    await alice().post('/v2/tags/0', evmAddresses(1)).expect(200);
    expect(await history(alice(), '0')).toEqual([]);
    expect((await alice().get('/v2/tags/Bad-Tag/history').expect(400)).body.code).toBe('INVALID_TAG');
    await t.http().get('/v2/tags/hist_private/history').expect(401);
  });

  it('records changes made on the command line under "cli"', async () => {
    const address = evmAddress().canonical;
    // The test app's API_KEYS name alice's account "alice".
    const imported = await runCli(
      t.databaseUrl,
      ['tags', 'import', '--account', 'alice', '--format', 'csv', '-'],
      `address,tag\n${address},hist_cli_tag\n`,
    );
    expect(imported.code).toBe(0);
    expect(await history(alice(), 'hist_cli_tag')).toEqual([
      { at: expect.any(String), action: 'added', address, key: 'cli' },
    ]);
  });
});
