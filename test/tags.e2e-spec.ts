import { AddressInfo, connect, Server } from 'node:net';
import { Db } from '../src/database/db.service';
import { evmAddress, evmAddresses, evmAddressWithBadChecksum, FAMILY_EXAMPLES, tagNames } from './support/addresses';
import { DATABASES, freshDatabase, startOnFreshDatabase, startTestApp, TestApp } from './support/test-app';
import { raw, sql } from '../src/database/sql';
import { untilWaitingForLock, whileRowsLocked } from './support/row-locks';
import { compareBinary } from './support/factories';
import { asKey } from './support/fixtures';
import type { Response } from 'supertest';

const EVM_CHAINS = ['ethereum', 'bnb', 'polygon', 'arbitrum', 'optimism', 'base'];

/**
 * A POST with the JSON content type and no body at all, neither a Content-Length nor chunks (as
 * `curl -X POST` sends one without data; Node's and supertest's clients send a length of zero):
 * the answer's raw text.
 */
async function postWithoutBody(server: Server, path: string, key: string): Promise<string> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: localhost\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n`,
    );
  });
}

describe.each(DATABASES)('tags on %s', (kind) => {
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

  async function tableCounts(): Promise<Record<string, number>> {
    const db = t.app.get(Db);
    const counts: Record<string, number> = {};
    for (const table of ['tags', 'address_tags', 'tracked_addresses']) {
      counts[table] = await db.count(sql`SELECT COUNT(*) FROM ${raw(table)}`);
    }
    return counts;
  }

  describe('POST /v2/tags/:tag', () => {
    it('creates the tag and answers one canonical record per distinct address in first-seen order', async () => {
      const evm = evmAddress();
      const body = [
        evm.checksummed,
        FAMILY_EXAMPLES.bitcoinSegwit.input,
        evm.canonical,
        FAMILY_EXAMPLES.bitcoinLegacy.input,
      ];
      const response = await alice().post('/v2/tags/first_tag', body);
      expect(response.status).toBe(200);
      expect(response.body).toEqual([
        { address: evm.canonical, tags: ['first_tag'], chains: EVM_CHAINS },
        { address: FAMILY_EXAMPLES.bitcoinSegwit.canonical, tags: ['first_tag'], chains: ['bitcoin'] },
        { address: FAMILY_EXAMPLES.bitcoinLegacy.canonical, tags: ['first_tag'], chains: ['bitcoin', 'bitcoincash'] },
      ]);
    });

    it('canonicalises every address family and lists all tags of an address, sorted', async () => {
      for (const example of Object.values(FAMILY_EXAMPLES)) {
        await alice().post('/v2/tags/zeta_family', [example.input]).expect(200);
        const { body } = await alice().post('/v2/tags/alpha_family', [example.input]).expect(200);
        expect(body).toEqual([
          {
            address: example.canonical,
            tags: expect.arrayContaining(['alpha_family', 'zeta_family']),
            chains: example.chains,
          },
        ]);
        expect(body[0].tags).toEqual([...body[0].tags].sort());
      }
    });

    it('treats assigning a tag the address already carries as a no-op', async () => {
      const address = evmAddress().canonical;
      await alice().post('/v2/tags/repeat_tag', [address]).expect(200);
      const before = (await alice().get('/v2/tags')).body.find((tag: { tag: string }) => tag.tag === 'repeat_tag');
      const again = await alice().post('/v2/tags/repeat_tag', [address]).expect(200);
      expect(again.body[0].tags).toEqual(['repeat_tag']);
      const after = (await alice().get('/v2/tags')).body.find((tag: { tag: string }) => tag.tag === 'repeat_tag');
      expect(after).toEqual(before);
    });

    it('caps an address at 50 tags with 422 TAG_LIMIT_EXCEEDED, and writes nothing for the whole batch', async () => {
      const [full, fresh] = evmAddresses(2);
      for (const tag of tagNames(50, 'cap')) await alice().post(`/v2/tags/${tag}`, [full]).expect(200);
      const before = await tableCounts();
      const response = await alice().post('/v2/tags/one_too_many', [fresh, full]);
      expect(response.status).toBe(422);
      expect(response.body).toMatchObject({
        statusCode: 422,
        code: 'TAG_LIMIT_EXCEEDED',
        details: [{ address: full, tag_count: 50 }],
      });
      expect(await tableCounts()).toEqual(before);
      await alice().get('/v2/tags/one_too_many').expect(404);
      // Re-assigning one of its 50 tags is still a no-op, not an error; the reserved 0 never counts.
      await alice().post('/v2/tags/cap_0001', [full]).expect(200);
      const tracked = await alice().post('/v2/tags/0', [full]).expect(200);
      expect(tracked.body[0].tags).toHaveLength(50);
    });

    it('holds the cap under 60 parallel requests of distinct tags for one address', async () => {
      const address = evmAddress().canonical;
      const tags = tagNames(60, 'race');
      const responses = await Promise.all(tags.map((tag) => alice().post(`/v2/tags/${tag}`, [address])));
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(50);
      expect(statuses.filter((status) => status === 422)).toHaveLength(10);
      const { body } = await alice().get(`/v2/addresses/${address}`).expect(200);
      expect(body.tags).toHaveLength(50);
    });

    it('holds the cap when parallel batches share addresses', async () => {
      const shared = evmAddresses(3);
      const tags = tagNames(56, 'batch');
      const responses = await Promise.all(
        tags.map((tag, index) => alice().post(`/v2/tags/${tag}`, index % 2 ? [...shared].reverse() : shared)),
      );
      expect(responses.filter((response) => response.status === 200)).toHaveLength(50);
      for (const address of shared) {
        const { body } = await alice().get(`/v2/addresses/${address}`).expect(200);
        expect(body.tags).toHaveLength(50);
      }
    });
  });

  if (kind === 'postgres') {
    it('creates a tag anew when it is deleted while a POST to it waits for an address', async () => {
      const db = t.app.get(Db);
      const [member, blocker, joiner] = evmAddresses(3) as [string, string, string];
      await alice().post('/v2/tags/race_deleted', [member]).expect(200);
      await alice().post('/v2/tags/0', [blocker]).expect(200);
      // The POST finds the tag, then waits for the blocker's tracked row; meanwhile the tag, whose
      // member it does not touch, is deleted.
      const { post } = await whileRowsLocked(
        db,
        sql`SELECT address FROM tracked_addresses WHERE address = ${blocker} FOR UPDATE`,
        async () => {
          const post = alice()
            .post('/v2/tags/race_deleted', [blocker, joiner])
            .then((answer) => answer);
          await untilWaitingForLock(db);
          await alice().del('/v2/tags/race_deleted').expect(204);
          // Wrapped: the POST goes on once the rows are released.
          return { post };
        },
      );
      const response = await post;
      expect(response.status).toBe(200);
      expect(response.body.map((record: { tags: string[] }) => record.tags)).toEqual([
        ['race_deleted'],
        ['race_deleted'],
      ]);
      const { body } = await alice().get('/v2/tags/race_deleted').expect(200);
      expect(body.stats.address_count).toBe(2);
      expect((await alice().get(`/v2/addresses/${member}`).expect(200)).body.tags).toEqual(['0']);
    });

    it('answers TAG_NOT_FOUND to the second of two deletions of a tag sent at once', async () => {
      const db = t.app.get(Db);
      const [member] = evmAddresses(1) as [string];
      await alice().post('/v2/tags/race_deleted_twice', [member]).expect(200);
      const [{ id }] = (await db.query<{ id: number | string }>(
        sql`SELECT id FROM tags WHERE name = 'race_deleted_twice'`,
      )) as [{ id: number | string }];
      // Both find the tag; the first waits for its row, the second for the member's tracked row,
      // which the first holds by then.
      const { first, second } = await whileRowsLocked(
        db,
        sql`SELECT tag_id FROM tag_stats WHERE tag_id = ${Number(id)} FOR UPDATE`,
        async () => {
          const first = alice()
            .del('/v2/tags/race_deleted_twice')
            .then((answer) => answer);
          await untilWaitingForLock(db);
          const second = alice()
            .del('/v2/tags/race_deleted_twice')
            .then((answer) => answer);
          await untilWaitingForLock(db, 15_000, 2);
          return { first, second };
        },
      );
      expect((await first).status).toBe(204);
      const late = await second;
      expect(late.status).toBe(404);
      expect(late.body.code).toBe('TAG_NOT_FOUND');
      await alice().get('/v2/tags/race_deleted_twice').expect(404);
      const removals = await alice().get('/v2/tags/race_deleted_twice/history').expect(200);
      expect(removals.body.map((entry: { action: string }) => entry.action)).toEqual(['removed', 'added']);
    });

    it('answers TAG_NOT_FOUND to a removal from a tag deleted and created again while it waits', async () => {
      const db = t.app.get(Db);
      const [blocker, member] = evmAddresses(2).sort(compareBinary) as [string, string];
      await alice().post('/v2/tags/0', [blocker]).expect(200);
      await alice().post('/v2/tags/race_removed_from', [member]).expect(200);
      // The removal finds the tag and waits for the blocker's tracked row, the first in address
      // order; meanwhile the tag is deleted and created again with the member.
      const { removing } = await whileRowsLocked(
        db,
        sql`SELECT address FROM tracked_addresses WHERE address = ${blocker} FOR UPDATE`,
        async () => {
          const removing = alice()
            .del('/v2/tags/race_removed_from/addresses', [blocker, member])
            .then((answer) => answer);
          await untilWaitingForLock(db);
          await alice().del('/v2/tags/race_removed_from').expect(204);
          await alice().post('/v2/tags/race_removed_from', [member]).expect(200);
          return { removing };
        },
      );
      // Only the order deletion, removal, creation fits both: the removal finds no tag.
      const removal = await removing;
      expect(removal.status).toBe(404);
      expect(removal.body.code).toBe('TAG_NOT_FOUND');
      expect((await alice().get(`/v2/addresses/${member}`).expect(200)).body.tags).toEqual(['race_removed_from']);
    });

    /**
     * A tracked untagged address, and two requests that wait for its tracked row: its untracking,
     * which asked first and goes first, deleting the row that `change` found when it tried to
     * insert its own. Both answers, once the row is released.
     */
    async function untrackedWhileWaiting(
      change: (address: string) => Promise<Response>,
    ): Promise<{ address: string; untrack: Response; change: Response }> {
      const db = t.app.get(Db);
      const address = evmAddress().canonical;
      await alice().post('/v2/tags/0', [address]).expect(200);
      const sent = await whileRowsLocked(
        db,
        sql`SELECT address FROM tracked_addresses WHERE address = ${address} FOR UPDATE`,
        async () => {
          const untrack = alice()
            .del('/v2/tags/0/addresses', [address])
            .then((answer) => answer);
          await untilWaitingForLock(db);
          const changing = change(address);
          await untilWaitingForLock(db, 15_000, 2);
          return { untrack, changing };
        },
      );
      const untrack = await sent.untrack;
      expect(untrack.body).toEqual([{ address, tags: [], chains: EVM_CHAINS }]);
      return { address, untrack, change: await sent.changing };
    }

    it('tracks an address again when its untracking goes first while a POST tagging it waits for its row', async () => {
      const { address, change: tagged } = await untrackedWhileWaiting((address) =>
        alice()
          .post('/v2/tags/race_untracked', [address])
          .then((answer) => answer),
      );
      expect(tagged.status).toBe(200);
      expect(tagged.body).toEqual([{ address, tags: ['race_untracked'], chains: EVM_CHAINS }]);
      // Tracked, with the tag, wherever it is read.
      expect((await alice().get(`/v2/addresses/${address}`).expect(200)).body.tags).toEqual(['race_untracked']);
      const members = await alice().get('/v2/tags/race_untracked/addresses').expect(200);
      expect(members.body).toEqual([{ address, tags: ['race_untracked'], chains: EVM_CHAINS }]);
      const tracked = await t.app
        .get(Db)
        .count(sql`SELECT COUNT(*) FROM tracked_addresses WHERE address = ${address} AND tagged = 1`);
      expect(tracked).toBe(1);
    });

    it('tracks an address again when its untracking goes first while an import tagging it waits for its row', async () => {
      const { address, change: imported } = await untrackedWhileWaiting((address) =>
        t
          .http()
          .post('/v2/import/tags')
          .set('X-API-Key', t.keys.alice)
          .set('Content-Type', 'text/csv')
          .send(`address,tag\n${address},race_imported\n`)
          .then((answer) => answer),
      );
      expect(imported.body).toEqual({
        addresses: 1,
        added: 1,
        removed: 0,
        unchanged: 0,
        skipped: 0,
        dry_run: false,
      });
      expect((await alice().get(`/v2/addresses/${address}`).expect(200)).body.tags).toEqual(['race_imported']);
      expect((await alice().get('/v2/tags/0/addresses?per_page=100').expect(200)).body).not.toContainEqual(
        expect.objectContaining({ address }),
      );
    });
  }

  describe('bad input writes nothing', () => {
    const cases: [string, () => ReturnType<ReturnType<typeof alice>['post']>, number, string][] = [
      ['an invalid tag', () => alice().post('/v2/tags/Bad-Tag', evmAddresses(1)), 400, 'INVALID_TAG'],
      ['a too short tag', () => alice().post('/v2/tags/abcd', evmAddresses(1)), 400, 'INVALID_TAG'],
      [
        'an object body',
        () => alice().post('/v2/tags/valid_tag', { address: evmAddresses(1)[0] }),
        400,
        'INVALID_BODY',
      ],
      ['an empty array', () => alice().post('/v2/tags/valid_tag', []), 400, 'INVALID_BODY'],
      [
        'an array with a number',
        () => alice().post('/v2/tags/valid_tag', [...evmAddresses(1), 5]),
        400,
        'INVALID_BODY',
      ],
      [
        'more than 1000 addresses',
        () => alice().post('/v2/tags/valid_tag', evmAddresses(1001)),
        413,
        'PAYLOAD_TOO_LARGE',
      ],
      [
        'an invalid address among valid ones',
        () => alice().post('/v2/tags/valid_tag', [...evmAddresses(2), '0x1234']),
        400,
        'INVALID_ADDRESS',
      ],
    ];

    it.each(cases)('%s', async (_name, send, status, code) => {
      const before = await tableCounts();
      const response = await send();
      expect(response.status).toBe(status);
      expect(response.body).toMatchObject({ statusCode: status, code });
      expect(await tableCounts()).toEqual(before);
    });

    it('names every invalid address in details, including a bad EIP-55 checksum', async () => {
      const { good, badChecksum } = evmAddressWithBadChecksum();
      const response = await alice().post('/v2/tags/valid_tag', ['nonsense', good, badChecksum]);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('INVALID_ADDRESS');
      expect(
        response.body.details.map((detail: { index: number; address: string }) => [detail.index, detail.address]),
      ).toEqual([
        [0, 'nonsense'],
        [2, badChecksum],
      ]);
    });

    it('answers malformed JSON or none with 400, a missing JSON content type with 415 and a body over 1 MiB with 413', async () => {
      const malformed = await t
        .http()
        .post('/v2/tags/valid_tag')
        .set('X-API-Key', t.keys.alice)
        .set('Content-Type', 'application/json')
        .send('["0x1",');
      expect(malformed.status).toBe(400);
      expect(malformed.body.code).toBe('INVALID_BODY');
      const plain = await t
        .http()
        .post('/v2/tags/valid_tag')
        .set('X-API-Key', t.keys.alice)
        .set('Content-Type', 'text/plain')
        .send('["x"]');
      expect(plain.status).toBe(415);
      expect(plain.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      const none = await t.http().post('/v2/tags/valid_tag').set('X-API-Key', t.keys.alice);
      expect(none.status).toBe(415);
      // The JSON content type and no body at all: an empty body.
      const empty = await postWithoutBody(t.app.getHttpServer(), '/v2/tags/valid_tag', t.keys.alice);
      expect(empty).toMatch(/^HTTP\/1\.1 400 /);
      expect(empty).toContain('"code":"INVALID_BODY"');
      const huge = await alice().post('/v2/tags/valid_tag', ['x'.repeat(1024 * 1024)]);
      expect(huge.status).toBe(413);
      expect(huge.body.code).toBe('PAYLOAD_TOO_LARGE');
    });

    it('checks the query string, the content type and the JSON of the body before the path parameter', async () => {
      // docs/api.md: these come first whatever else is wrong; an invalid tag is the request's other fault.
      const send = (query: string, type: string, body: string) =>
        t.http().post(`/v2/tags/bad${query}`).set('X-API-Key', t.keys.alice).set('Content-Type', type).send(body);
      const body = JSON.stringify([evmAddress().canonical]);
      expect((await send('?limit=1', 'text/plain', '["x"]')).body.code).toBe('INVALID_QUERY');
      expect((await send('', 'text/plain', body)).body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect((await send('', 'application/json', '["0x1",')).body.code).toBe('INVALID_BODY');
      const tooLarge = await send('', 'application/json', JSON.stringify(['x'.repeat(1024 * 1024)]));
      expect(tooLarge.status).toBe(413);
      // With all of those right, the path parameter answers.
      expect((await send('', 'application/json', body)).body.code).toBe('INVALID_TAG');
    });

    it('reads a body only on a route that takes one, and only once the key is checked', async () => {
      await alice().post('/v2/tags/body_ignored', [evmAddress().canonical]).expect(200);
      // DELETE /v2/tags/:tag takes no body: one sent with it, malformed and in a charset JSON is
      // never sent in, is ignored, and the tag is deleted.
      const stray = await t
        .http()
        .delete('/v2/tags/body_ignored')
        .set('X-API-Key', t.keys.alice)
        .set('Content-Type', 'application/json; charset=latin1')
        .send('["0x1",');
      expect(stray.status).toBe(204);
      await alice().get('/v2/tags/body_ignored').expect(404);
      const unkeyed = await t.http().post('/v2/tags/valid_tag').set('Content-Type', 'application/json').send('["0x1",');
      expect(unkeyed.status).toBe(401);
      expect(unkeyed.body.code).toBe('UNAUTHORIZED');
    });

    it('rejects invalid tags on GET and DELETE too, and invalid path addresses', async () => {
      for (const response of [
        await alice().get('/v2/tags/UPPER_case'),
        await alice().get('/v2/tags/abc/addresses'),
        await alice().del('/v2/tags/a-b-c-d-e'),
      ]) {
        expect(response.status).toBe(400);
        expect(response.body.code).toBe('INVALID_TAG');
      }
      const address = await alice().get('/v2/addresses/0xnothex');
      expect(address.status).toBe(400);
      expect(address.body).toMatchObject({ code: 'INVALID_ADDRESS', details: [{ address: '0xnothex' }] });
    });
  });

  describe('reads', () => {
    it('lists tags by name with counts and timestamps, paged', async () => {
      const addresses = evmAddresses(3);
      await alice().post('/v2/tags/listed_b', addresses).expect(200);
      await alice().post('/v2/tags/listed_a', addresses.slice(0, 1)).expect(200);
      const all: { tag: string; address_count: number; created_at: string; updated_at: string }[] = await followPages(
        alice().get,
        '/v2/tags?per_page=100',
      );
      const names = all.map((tag) => tag.tag);
      expect(names).toEqual([...names].sort());
      expect(names).not.toContain('0');
      expect(all.find((tag) => tag.tag === 'listed_b')).toMatchObject({ address_count: 3 });
      expect(all.find((tag) => tag.tag === 'listed_a')!.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const second = await alice().get('/v2/tags?per_page=2&page=2').expect(200);
      expect(second.body.map((tag: { tag: string }) => tag.tag)).toEqual(names.slice(2, 4));
      expect(second.headers.link).toContain('rel="prev"');
      // Past the end: no tags, and the count still names the last page.
      const last = Math.ceil(names.length / 2);
      const past = await alice()
        .get(`/v2/tags?per_page=2&page=${last + 5}`)
        .expect(200);
      expect(past.body).toEqual([]);
      expect(/[?&]page=(\d+)[^>]*>;\s*rel="prev"/.exec(past.headers.link ?? '')?.[1]).toBe(String(last));
    });

    it('lists only the tags whose name starts with prefix, "_" taken as itself, paged and counted alike', async () => {
      const [address] = evmAddresses(1);
      for (const name of ['pfx_exch_a', 'pfx_exch_b', 'pfx_exch_c', 'pfxaexch_d', 'pfx_other'])
        await alice().post(`/v2/tags/${name}`, [address]).expect(200);
      const names = async (query: string) =>
        (await followPages(alice().get, `/v2/tags?${query}`)).map((tag: { tag: string }) => tag.tag);
      expect(await names('prefix=pfx_exch_&per_page=100')).toEqual(['pfx_exch_a', 'pfx_exch_b', 'pfx_exch_c']);
      // "_" is not LIKE's one-character wildcard: pfxaexch_d does not start with pfx_.
      expect(await names('prefix=pfx_&per_page=100')).toEqual(['pfx_exch_a', 'pfx_exch_b', 'pfx_exch_c', 'pfx_other']);
      expect(await names('prefix=pfx&per_page=100')).toContain('pfxaexch_d');
      expect(await names('prefix=pfx_exch_c&per_page=100')).toEqual(['pfx_exch_c']);
      expect(await names('prefix=nothing_starts_so&per_page=100')).toEqual([]);
      // The total counts the matches: two pages of two, the last named by the links.
      const first = await alice().get('/v2/tags?prefix=pfx_exch_&per_page=2').expect(200);
      expect(first.body.map((tag: { tag: string }) => tag.tag)).toEqual(['pfx_exch_a', 'pfx_exch_b']);
      expect(/[?&]page=(\d+)[^>]*>;\s*rel="last"/.exec(first.headers.link ?? '')?.[1]).toBe('2');
      expect(first.headers.link).toContain('prefix=pfx_exch_');
      for (const bad of ['PFX', 'pfx-', 'pfx%', '', 'a'.repeat(65)]) {
        const refused = await alice()
          .get(`/v2/tags?prefix=${encodeURIComponent(bad)}`)
          .expect(400);
        expect(refused.body.code).toBe('INVALID_QUERY');
        expect(refused.body.message).toMatch(/prefix/);
      }
      expect((await alice().get('/v2/tags?prefix=pfx_&prefix=pfx').expect(400)).body.code).toBe('INVALID_QUERY');
    });

    it("lists a tag's addresses by time of assignment, then address, with per_page", async () => {
      const first = evmAddresses(3).sort();
      await alice().post('/v2/tags/ordered_tag', first).expect(200);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const later = evmAddress().canonical;
      await alice().post('/v2/tags/ordered_tag', [later]).expect(200);
      const page1 = await alice().get('/v2/tags/ordered_tag/addresses?per_page=2').expect(200);
      const page2 = await alice().get('/v2/tags/ordered_tag/addresses?per_page=2&page=2').expect(200);
      expect([...page1.body, ...page2.body].map((record: { address: string }) => record.address)).toEqual([
        ...first,
        later,
      ]);
      expect(page1.body[0]).toEqual({ address: first[0], tags: ['ordered_tag'], chains: EVM_CHAINS });
      expect(page1.headers.link).toContain('per_page=2');
    });

    it("lists each of a tag's addresses with all of the account's tags, in binary order, and no other account's", async () => {
      const [shared, alone] = evmAddresses(2);
      await alice().post('/v2/tags/zz_listed', [shared!, alone!]).expect(200);
      await alice().post('/v2/tags/ab_listed', [shared!]).expect(200);
      await alice().post('/v2/tags/ab0listed', [shared!]).expect(200);
      await bob().post('/v2/tags/bob_listed', [shared!]).expect(200);
      const { body } = await alice().get('/v2/tags/zz_listed/addresses').expect(200);
      // Added together: the same time of assignment, so in address order.
      const expected = [
        { address: shared, tags: ['ab0listed', 'ab_listed', 'zz_listed'], chains: EVM_CHAINS },
        { address: alone, tags: ['zz_listed'], chains: EVM_CHAINS },
      ].sort((a, b) => (a.address! < b.address! ? -1 : 1));
      expect(body).toEqual(expected);
      await bob().del('/v2/tags/bob_listed').expect(204);
    });

    it("names a tag's last page, and its count in the list of tags, from the kept count as members come and go", async () => {
      const members = evmAddresses(5);
      await alice().post('/v2/tags/counted_tag', members).expect(200);
      await alice().post('/v2/tags/counted_other', members.slice(0, 2)).expect(200);
      const lastPage = async () => {
        const response = await alice().get('/v2/tags/counted_tag/addresses?per_page=1').expect(200);
        return /[?&]page=(\d+)[^>]*>;\s*rel="last"/.exec(response.headers.link ?? '')?.[1];
      };
      const listed = async () =>
        (await followPages(alice().get, '/v2/tags?per_page=100')).find((tag) => tag.tag === 'counted_tag')
          ?.address_count;
      expect(await lastPage()).toBe('5');
      expect(await listed()).toBe(5);
      await alice().del('/v2/tags/counted_tag/addresses', members.slice(0, 3)).expect(200);
      expect(await lastPage()).toBe('2');
      expect(await listed()).toBe(2);
      await alice()
        .post('/v2/tags/counted_tag', [...members.slice(0, 1), evmAddress().canonical])
        .expect(200);
      expect(await lastPage()).toBe('4');
      expect(await listed()).toBe(4);
      // The page past the end still names the last one.
      const past = await alice().get('/v2/tags/counted_tag/addresses?per_page=1&page=9').expect(200);
      expect(past.body).toEqual([]);
      expect(past.headers.link).toMatch(/[?&]page=4[^>]*>;\s*rel="prev"/);
    });

    it('treats 0 as tracked-without-a-tag everywhere', async () => {
      const address = evmAddress().canonical;
      const tracked = await alice().post('/v2/tags/0', [address]).expect(200);
      expect(tracked.body).toEqual([{ address, tags: ['0'], chains: EVM_CHAINS }]);
      const untagged = (await followPages(alice().get, '/v2/tags/0/addresses?per_page=100')).map(
        (record: { address: string }) => record.address,
      );
      expect(untagged).toContain(address);
      expect((await alice().get('/v2/tags/0')).body).toMatchObject({
        tag: '0',
        stats: { address_count: untagged.length },
      });
      const tagged = await alice().post('/v2/tags/now_tagged', [address]).expect(200);
      expect(tagged.body[0].tags).toEqual(['now_tagged']);
      const untaggedAfter = (await followPages(alice().get, '/v2/tags/0/addresses?per_page=100')).map(
        (record: { address: string }) => record.address,
      );
      expect(untaggedAfter).not.toContain(address);
    });

    it('answers an unknown tag with 404 TAG_NOT_FOUND and an unknown address with empty tags and zero stats', async () => {
      for (const path of ['/v2/tags/never_made', '/v2/tags/never_made/addresses']) {
        const response = await alice().get(path);
        expect(response.status).toBe(404);
        expect(response.body.code).toBe('TAG_NOT_FOUND');
      }
      const address = evmAddress().canonical;
      const { body } = await alice()
        .get(`/v2/addresses/${address.toUpperCase().replace('0X', '0x')}`)
        .expect(200);
      expect(body).toEqual({
        address,
        chains: EVM_CHAINS,
        tags: [],
        stats: { token_holding_count: 0, txn_count: 0, total_value_usd: 0 },
      });
    });
  });

  describe('removal', () => {
    it('removes a tag from addresses, which stay tracked, and deletes a tag outright', async () => {
      const addresses = evmAddresses(3);
      await alice().post('/v2/tags/removable', addresses).expect(200);
      await alice().post('/v2/tags/keeper_tag', [addresses[0]]).expect(200);
      const removed = await alice().del('/v2/tags/removable/addresses', [addresses[0], addresses[1]]).expect(200);
      expect(removed.body).toEqual([
        { address: addresses[0], tags: ['keeper_tag'], chains: EVM_CHAINS },
        { address: addresses[1], tags: ['0'], chains: EVM_CHAINS },
      ]);
      expect((await alice().get('/v2/tags/removable')).body.stats.address_count).toBe(1);
      await alice().del('/v2/tags/removable').expect(204);
      await alice().get('/v2/tags/removable').expect(404);
      expect((await alice().get(`/v2/addresses/${addresses[2]}`)).body.tags).toEqual(['0']);
      const again = await alice().del('/v2/tags/removable');
      expect(again.status).toBe(404);
      expect((await alice().del('/v2/tags/0')).status).toBe(400);
    });

    it('stops tracking untagged addresses removed from 0', async () => {
      const address = evmAddress().canonical;
      await alice().post('/v2/tags/0', [address]).expect(200);
      const { body } = await alice().del('/v2/tags/0/addresses', [address]).expect(200);
      expect(body).toEqual([{ address, tags: [], chains: EVM_CHAINS }]);
    });

    it('keeps the reserved 0 in step with removals, deletions and the tags an address keeps', async () => {
      const [a, b, c] = evmAddresses(3) as [string, string, string];
      const untagged = async () => {
        const listed = (await followPages(alice().get, '/v2/tags/0/addresses?per_page=100')).map(
          (record: { address: string }) => record.address,
        );
        expect((await alice().get('/v2/tags/0').expect(200)).body.stats.address_count).toBe(listed.length);
        return listed.filter((address: string) => [a, b, c].includes(address)).sort();
      };
      await alice().post('/v2/tags/zero_first', [a, b, c]).expect(200);
      await alice().post('/v2/tags/zero_second', [a]).expect(200);
      expect(await untagged()).toEqual([]);
      await alice().del('/v2/tags/zero_first/addresses', [b]).expect(200);
      expect(await untagged()).toEqual([b]);
      await alice().del('/v2/tags/zero_first').expect(204);
      expect(await untagged()).toEqual([b, c].sort());
      // Removing from 0 stops tracking only the untagged: `a` keeps its other tag.
      const untracked = await alice().del('/v2/tags/0/addresses', [a, b]).expect(200);
      expect(untracked.body).toEqual([
        { address: a, tags: ['zero_second'], chains: EVM_CHAINS },
        { address: b, tags: [], chains: EVM_CHAINS },
      ]);
      expect(await untagged()).toEqual([c]);
      await alice().del('/v2/tags/zero_second/addresses', [a]).expect(200);
      expect(await untagged()).toEqual([a, c].sort());
      await alice().post('/v2/tags/zero_first', [c]).expect(200);
      expect(await untagged()).toEqual([a]);
    });

    it('needs a JSON body to remove addresses', async () => {
      const response = await t.http().delete('/v2/tags/keeper_tag/addresses').set('X-API-Key', t.keys.alice);
      expect(response.status).toBe(415);
    });
  });

  describe('account isolation', () => {
    it('keeps tags, memberships, stats and filters to the account that made them', async () => {
      const address = evmAddress().canonical;
      await alice().post('/v2/tags/alice_only', [address]).expect(200);
      await bob().post('/v2/tags/bob_own_tag', [address]).expect(200);

      expect((await followPages(bob().get, '/v2/tags?per_page=100')).map((tag: { tag: string }) => tag.tag)).toEqual([
        'bob_own_tag',
      ]);
      for (const path of [
        '/v2/tags/alice_only',
        '/v2/tags/alice_only/addresses',
        '/v2/token-holdings?tag=alice_only',
        '/v2/transactions?tag=alice_only',
      ]) {
        const response = await bob().get(path);
        expect({ path, status: response.status, code: response.body.code }).toEqual({
          path,
          status: 404,
          code: 'TAG_NOT_FOUND',
        });
      }
      expect((await bob().del('/v2/tags/alice_only')).status).toBe(404);
      expect((await bob().get(`/v2/addresses/${address}`)).body.tags).toEqual(['bob_own_tag']);
      expect((await alice().get(`/v2/addresses/${address}`)).body.tags).toEqual(['alice_only']);
      const bobTagged = await bob().post('/v2/tags/alice_only', [address]).expect(200);
      expect(bobTagged.body[0].tags).toEqual(['alice_only', 'bob_own_tag']);
      expect((await alice().get('/v2/tags/alice_only')).body.stats.address_count).toBe(1);
    });

    it('counts the 50-tag cap per account', async () => {
      const address = evmAddress().canonical;
      for (const tag of tagNames(50, 'alice_cap')) await alice().post(`/v2/tags/${tag}`, [address]).expect(200);
      await bob().post('/v2/tags/bob_free', [address]).expect(200);
    });
  });
});

/** Every item of a paged list, following the Link header's `next` relation. */
async function followPages(
  get: (path: string) => Promise<{ body: any[]; headers: Record<string, string> }>,
  path: string,
): Promise<any[]> {
  const items: any[] = [];
  for (let next: string | undefined = path; next !== undefined;) {
    const response = await get(next);
    items.push(...response.body);
    const match = /<([^>]+)>;\s*rel="next"/.exec(response.headers.link ?? '');
    next = match ? new URL(match[1]!).pathname + new URL(match[1]!).search : undefined;
  }
  return items;
}

describe.each(DATABASES)('tags persist across restarts on %s', (kind) => {
  it('finds every tag and membership after the app restarts on the same database', async () => {
    const db = await freshDatabase(kind);
    const first = await startTestApp({ databaseUrl: db.url });
    const addresses = evmAddresses(4);
    const post = (tag: string, body: string[]) =>
      first
        .http()
        .post(`/v2/tags/${tag}`)
        .set('X-API-Key', first.keys.alice)
        .set('Content-Type', 'application/json')
        .send(body);
    await post('persisted_a', addresses).expect(200);
    await post('persisted_b', addresses.slice(0, 2)).expect(200);
    await post('0', [FAMILY_EXAMPLES.ton.input]).expect(200);
    const tagsBefore = (await first.http().get('/v2/tags').set('X-API-Key', first.keys.alice)).body;
    await first.close();

    const second = await startTestApp({ databaseUrl: db.url, keys: first.keys });
    try {
      const get = (path: string) => second.http().get(path).set('X-API-Key', second.keys.alice).expect(200);
      expect((await get('/v2/tags')).body).toEqual(tagsBefore);
      expect(
        (await get('/v2/tags/persisted_a/addresses')).body.map((record: { address: string }) => record.address).sort(),
      ).toEqual([...addresses].sort());
      expect((await get(`/v2/addresses/${addresses[0]}`)).body.tags).toEqual(['persisted_a', 'persisted_b']);
      expect((await get(`/v2/addresses/${FAMILY_EXAMPLES.ton.input}`)).body.tags).toEqual(['0']);
    } finally {
      await second.close();
      await db.drop();
    }
  });
});
