import { randomBytes } from 'node:crypto';
import { Db } from '../src/database/db.service';
import { sql, SqlFragment } from '../src/database/sql';
import { IngestService } from '../src/modules/ingest/ingest.service';
import { tagTransactions, TransactionsRepository } from '../src/modules/transactions/transactions.repository';
import { encodeCursor } from '../src/http/paging/cursor';
import {
  bitcoinLegacyAddress,
  compareBinary,
  deployment,
  evmAddress,
  expectedTransaction,
  ndjson,
  segwitAddress,
  solanaAddress,
  transaction,
  TransactionFixture,
  transactionLine,
} from './support/factories';
import { importLines, parseLinks, tagAddresses } from './support/fixtures';
import { DATABASES, startOnFreshDatabase, startTestApp, TestApp } from './support/test-app';

const TRANSACTION_FIELDS = [
  'block_hash',
  'block_number',
  'block_time',
  'chain',
  'from_address',
  'id',
  'to_address',
  'token_address',
  'tx_hash',
  'value',
];

const DEFAULT_WAYS = { ...tagTransactions };

const at = (minute: number, millis = 0) => new Date(Date.UTC(2024, 4, 1, 12, minute, 0, millis)).toISOString();

describe.each(DATABASES)('GET /v2/transactions on %s', (kind) => {
  let t: TestApp;

  const p = evmAddress('tx-p');
  const q = evmAddress('tx-q');
  const r = evmAddress('tx-r');
  const segwit = segwitAddress('tx-segwit');
  const legacy = bitcoinLegacyAddress('tx-legacy');
  const sol = solanaAddress('tx-sol');
  const usdtEthereum = deployment('tether', 'ethereum').address;
  const usdtBnb = deployment('tether', 'bnb').address;
  const usdcSolana = deployment('usd-coin', 'solana').address;
  const evm = [p, q, r];

  const TXS: TransactionFixture[] = [
    transaction({ id: 'eth-1', chain: 'ethereum', from: p, to: q, block_time: at(1) }),
    transaction({ id: 'eth-2', chain: 'ethereum', token_address: usdtEthereum, from: q, to: p, block_time: at(2) }),
    transaction({ id: 'self', chain: 'ethereum', from: p, to: p, block_time: at(3) }),
    transaction({ id: 'mint', chain: 'bnb', token_address: usdtBnb, from: '0', to: p, block_time: at(4) }),
    // Three rows in one instant: the id breaks the tie, in binary order ("B" < "C" < "a").
    transaction({ id: 'tie-B', chain: 'bnb', from: r, to: q, block_time: at(5) }),
    transaction({ id: 'tie-a', chain: 'bnb', from: q, to: r, block_time: at(5) }),
    transaction({ id: 'tie-C', chain: 'ethereum', from: r, to: p, block_time: at(5) }),
    transaction({ id: 'btc-1', chain: 'bitcoin', from: segwit, to: legacy, block_time: at(6) }),
    transaction({ id: 'millis', chain: 'polygon', from: p, to: r, block_time: at(6, 250) }),
    transaction({ id: 'sol-1', chain: 'solana', token_address: usdcSolana, from: sol, to: sol, block_time: at(7) }),
    transaction({
      id: 'big',
      chain: 'ethereum',
      from: q,
      to: r,
      value: '9'.repeat(78),
      block_number: '999999999999999999',
      block_time: at(8),
    }),
    ...Array.from({ length: 14 }, (_v, index) =>
      transaction({
        id: `fill-${String(index).padStart(2, '0')}`,
        chain: index % 2 === 0 ? 'base' : 'arbitrum',
        from: evm[index % 3]!,
        to: evm[(index + 1) % 3]!,
        block_time: at(10 + index),
      }),
    ),
  ];

  function expected(keep: (tx: TransactionFixture) => boolean = () => true): Record<string, unknown>[] {
    return TXS.filter(keep)
      .sort((x, y) => compareBinary(y.block_time, x.block_time) || compareBinary(y.id, x.id))
      .map(expectedTransaction);
  }

  const sender = (tx: TransactionFixture, address: { canonical: string }) =>
    tx.from !== '0' && tx.from.canonical === address.canonical;
  const recipient = (tx: TransactionFixture, address: { canonical: string }) => tx.to.canonical === address.canonical;
  const party = (tx: TransactionFixture, address: { canonical: string }) =>
    recipient(tx, address) || sender(tx, address);

  beforeAll(async () => {
    t = await startOnFreshDatabase(kind);
    await importLines(t, TXS.map(transactionLine));
    await tagAddresses(t, t.keys.alice, 'traders', [p.input, r.input]).expect(200);
    await tagAddresses(t, t.keys.alice, '0', [sol.input]).expect(200);
    await tagAddresses(t, t.keys.bob, 'bobs_tag', [q.input]).expect(200);
  }, 60_000);

  afterAll(async () => {
    await t.close();
  });

  const get = (query: string, key = t.keys.alice) =>
    t
      .http()
      .get(`/v2/transactions?${query.includes('per_page=') ? query : `per_page=100&${query}`}`)
      .set('X-API-Key', key);

  async function list(query: string): Promise<Record<string, unknown>[]> {
    const response = await get(query);
    expect(response.status).toBe(200);
    expect(response.headers.link).toBeUndefined();
    return response.body as Record<string, unknown>[];
  }

  it('lists every transaction newest first (block_time, then id in binary order), with exactly the spec fields', async () => {
    const body = await list('');
    expect(body).toEqual(expected());
    expect(body.filter((row) => String(row.id).startsWith('tie-')).map((row) => row.id)).toEqual([
      'tie-a',
      'tie-C',
      'tie-B',
    ]);
    for (const row of body) expect(Object.keys(row).sort()).toEqual(TRANSACTION_FIELDS);
  });

  it('retrieves each transaction by its id exactly as the list shows it, and answers 404 for any other id', async () => {
    const all = await list('');
    expect(all.length).toBeGreaterThan(5);
    for (const row of all) {
      const one = await t
        .http()
        .get(`/v2/transactions/${encodeURIComponent(String(row.id))}`)
        .set('X-API-Key', t.keys.bob)
        .expect(200);
      expect(one.body).toEqual(row);
    }
    for (const id of ['nothing-here', 'TIE-A', 'x'.repeat(3000), '%E0%A4%A', 'eth-1%00']) {
      const response = await t.http().get(`/v2/transactions/${id}`).set('X-API-Key', t.keys.alice);
      // The message quotes at most the first 200 characters of the id.
      expect([id.slice(0, 20), response.status, response.body.code, response.body.message.length < 300]).toEqual([
        id.slice(0, 20),
        404,
        'TRANSACTION_NOT_FOUND',
        true,
      ]);
    }
    const unknown = await t.http().get('/v2/transactions/eth-1?verbose=1').set('X-API-Key', t.keys.alice);
    expect([unknown.status, unknown.body.code]).toEqual([400, 'INVALID_QUERY']);
  });

  it('keeps 78-digit values and 18-digit block numbers exact, block_number as a string', async () => {
    const [big] = await list(`address=${q.canonical}&since=${at(7, 999)}&chain=ethereum`);
    expect(big).toMatchObject({ id: 'big', value: '9'.repeat(78), block_number: '999999999999999999' });
    for (const row of await list('')) expect(row.block_number).toMatch(/^\d+$/);
  });

  describe('each filter alone', () => {
    it('address: sender or recipient, any spelling, a transfer to oneself once', async () => {
      for (const address of [p, q, segwit, legacy, sol]) {
        const keep = (tx: TransactionFixture) => party(tx, address);
        expect(expected(keep).length).toBeGreaterThan(0);
        expect(await list(`address=${encodeURIComponent(address.input)}`)).toEqual(expected(keep));
      }
      const mine = await list(`address=${p.canonical}`);
      expect(mine.filter((row) => row.id === 'self')).toHaveLength(1);
      expect((await list(`address=${sol.input}`)).map((row) => row.id)).toEqual(['sol-1']);
    });

    it.each<[string, (tx: TransactionFixture) => boolean]>([
      ['chain=bnb', (tx) => tx.chain === 'bnb'],
      ['chain=dogecoin', () => false],
      ['token_address=0', (tx) => tx.token_address === '0'],
      [`token_address=USDT_ETH`, (tx) => tx.token_address === usdtEthereum],
      [`since=${at(5)}`, (tx) => tx.block_time > at(5)],
      [`since=${at(6).replace('.000Z', '.249Z')}`, (tx) => tx.block_time > at(6, 249)],
      [`since=${at(6).replace('.000Z', 'Z')}`, (tx) => tx.block_time > at(6)],
      ['since=2030-01-01T00:00:00Z', () => false],
      [`until=${at(5)}`, (tx) => tx.block_time <= at(5)],
      [`until=${at(6).replace('.000Z', '.250Z')}`, (tx) => tx.block_time <= at(6, 250)],
      [`until=${at(6).replace('.000Z', '.249Z')}`, (tx) => tx.block_time <= at(6, 249)],
      ['until=2000-01-01T00:00:00Z', () => false],
      [`since=${at(5)}&until=${at(5)}`, () => false],
      [`since=${at(6)}&until=${at(2)}`, () => false],
    ])('%s', async (query, keep) => {
      expect(await list(query.replace('USDT_ETH', usdtEthereum.toUpperCase().replace('0X', '0x')))).toEqual(
        expected(keep),
      );
    });

    it('tag: sent or received by a member, a transfer between two members once; 0: the tracked, untagged', async () => {
      const members = [p, r];
      const keep = (tx: TransactionFixture) => members.some((member) => party(tx, member));
      const rows = await list('tag=traders');
      expect(rows).toEqual(expected(keep));
      expect(rows.filter((row) => row.id === 'millis')).toHaveLength(1);
      expect(await list('tag=0')).toEqual(expected((tx) => party(tx, sol)));
      const bobs = await get('tag=bobs_tag', t.keys.bob).expect(200);
      expect(bobs.body).toEqual(expected((tx) => party(tx, q)));
    });
  });

  describe('filters combined (AND)', () => {
    const inTraders = (tx: TransactionFixture) => party(tx, p) || party(tx, r);
    it.each<[string, (tx: TransactionFixture) => boolean]>([
      ['address=P&chain=ethereum', (tx) => party(tx, p) && tx.chain === 'ethereum'],
      ['address=P&chain=bnb&token_address=USDT_BNB', (tx) => party(tx, p) && tx.token_address === usdtBnb],
      [`address=Q&since=${at(4)}`, (tx) => party(tx, q) && tx.block_time > at(4)],
      // q is no member; its transfers with a member still match both conditions.
      ['address=Q&tag=traders', (tx) => party(tx, q) && inTraders(tx)],
      [`tag=traders&chain=bnb&since=${at(4)}`, (tx) => inTraders(tx) && tx.chain === 'bnb' && tx.block_time > at(4)],
      [`address=P&until=${at(5)}`, (tx) => party(tx, p) && tx.block_time <= at(5)],
      [
        `address=Q&chain=bnb&since=${at(1)}&until=${at(5)}`,
        (tx) => party(tx, q) && tx.chain === 'bnb' && tx.block_time > at(1) && tx.block_time <= at(5),
      ],
      [
        `chain=ethereum&token_address=0&until=${at(5)}`,
        (tx) => tx.chain === 'ethereum' && tx.token_address === '0' && tx.block_time <= at(5),
      ],
      [`token_address=USDT_BNB&until=${at(4)}`, (tx) => tx.token_address === usdtBnb && tx.block_time <= at(4)],
      ['address=P&direction=sent', (tx) => sender(tx, p)],
      ['address=P&direction=received', (tx) => recipient(tx, p)],
      ['address=Q&chain=bnb&direction=received', (tx) => recipient(tx, q) && tx.chain === 'bnb'],
      [`address=Q&direction=sent&until=${at(5)}`, (tx) => sender(tx, q) && tx.block_time <= at(5)],
      // The direction is the address's; the tag keeps rows with a member at either end.
      ['address=Q&tag=traders&direction=sent', (tx) => sender(tx, q) && inTraders(tx)],
      ['chain=ethereum&token_address=0', (tx) => tx.chain === 'ethereum' && tx.token_address === '0'],
      ['address=P&chain=solana', () => false],
    ])('%s', async (template, keep) => {
      const query = template.replace('=P', `=${p.input}`).replace('=Q', `=${q.canonical}`).replace('USDT_BNB', usdtBnb);
      expect(expected(keep).length).toBeGreaterThanOrEqual(0);
      expect(await list(query)).toEqual(expected(keep));
    });
  });

  if (kind === 'sqlite') {
    it.each([
      ['address and chain', { address: 'p', chain: 'ethereum' as const }],
      ['address, chain and token', { address: 'p', chain: 'bnb' as const, tokenAddress: usdtBnb }],
    ])('reads an address on a chain (%s) through the address indexes, not the whole chain', async (_name, filters) => {
      const db = t.app.get(Db);
      const seen: SqlFragment[] = [];
      const capture = jest.spyOn(db, 'query').mockImplementationOnce((statement: SqlFragment) => {
        seen.push(statement);
        return Promise.resolve([]);
      });
      await t.app.get(TransactionsRepository).page({ ...filters, address: [p.canonical] }, 51);
      capture.mockRestore();
      const plan = await db.query<{ detail: string }>(sql`EXPLAIN QUERY PLAN ${seen[0]!}`);
      const indexes = plan.map((step) => /USING (?:COVERING )?INDEX (\w+)/.exec(step.detail)?.[1]).filter(Boolean);
      expect(indexes.sort()).toEqual(['transactions_by_recipient', 'transactions_by_sender']);
    });
  }

  if (kind === 'sqlite') {
    /** The transactions indexes in SQLite's plan of the page statement for `filters` (with traders, if `tagged`). */
    async function indexesRead(
      filters: { chain?: 'ethereum'; tokenAddress?: string },
      tagged: boolean,
      walkAbove: number,
    ): Promise<string[]> {
      const db = t.app.get(Db);
      const [tag] = await db.query<{ id: number; account_id: number }>(
        sql`SELECT id, account_id FROM tags WHERE name = 'traders'`,
      );
      const scope = tagged
        ? { kind: 'tag' as const, accountId: tag!.account_id, tagId: tag!.id, revision: 0 }
        : undefined;
      const seen: SqlFragment[] = [];
      const capture = jest.spyOn(db, 'query').mockImplementation((statement: SqlFragment) => {
        seen.push(statement);
        return Promise.resolve([]);
      });
      Object.assign(tagTransactions, { walkAbove, walkedRow: { postgres: 0, sqlite: 0 } });
      try {
        await t.app.get(TransactionsRepository).page({ ...filters, scope }, 51);
      } finally {
        capture.mockRestore();
        Object.assign(tagTransactions, DEFAULT_WAYS);
      }
      const plan = await db.query<{ detail: string }>(sql`EXPLAIN QUERY PLAN ${seen.at(-1)!}`);
      return plan.flatMap((step) => /USING (?:COVERING )?INDEX (transactions_\w+)/.exec(step.detail)?.[1] ?? []);
    }

    it.each([
      // Each side may come from either index that starts with its end: the members' rows are read
      // whole and sorted (at most the tag's transactions, walkAbove), not in list order.
      ['member by member', Infinity, /^transactions_by_(recipient|pair),transactions_by_sender(_pair)?$/],
      ['walking the list', -1, /^transactions_by_chain_time$/],
    ])("reads a tag's rows on a chain %s through the indexes for that way", async (_way, walkAbove, expected) => {
      const indexes = await indexesRead({ chain: 'ethereum' }, true, walkAbove);
      expect([...new Set(indexes)].sort().join(',')).toMatch(expected);
    });

    it.each([
      ['all transactions', false],
      ['a tag walked', true],
    ])("reads a token's rows without a chain (%s) from each chain's token range", async (_name, tagged) => {
      const indexes = await indexesRead({ tokenAddress: usdtEthereum }, tagged, -1);
      expect(indexes).toHaveLength(13);
      expect(new Set(indexes)).toEqual(new Set(['transactions_by_chain']));
    });
  }

  /** Follows `next` links from the first page; `between` runs before each following page is fetched. */
  async function walk(query: string, between: () => Promise<void> = async () => {}) {
    const pages: Record<string, unknown>[][] = [];
    let url: string | undefined = `/v2/transactions?${query}`;
    while (url !== undefined) {
      const response = await t.http().get(url).expect(200);
      pages.push(response.body);
      const links = parseLinks(response.headers.link);
      expect(links.last).toBeUndefined();
      expect(links.prev).toBeUndefined();
      if (pages.length === 1) expect(links.first).toBeUndefined();
      else expect(new URL(links.first!).searchParams.has('after')).toBe(false);
      for (const href of Object.values(links)) {
        const params = new URL(href).searchParams;
        for (const [name, value] of new URLSearchParams(query)) expect(params.get(name)).toBe(value);
      }
      url = links.next === undefined ? undefined : new URL(links.next).pathname + new URL(links.next).search;
      if (url !== undefined) await between();
    }
    return pages;
  }

  describe.each([
    ['walking the list', 0],
    ['member by member', Infinity],
  ])("a tag's rows read %s", (_way, walkAbove) => {
    const inTraders = (tx: TransactionFixture) => party(tx, p) || party(tx, r);
    beforeAll(() => {
      Object.assign(tagTransactions, { walkAbove, walkedRow: { postgres: 0, sqlite: 0 } });
    });
    afterAll(() => {
      Object.assign(tagTransactions, DEFAULT_WAYS);
    });

    it.each<[string, (tx: TransactionFixture) => boolean]>([
      ['tag=traders', inTraders],
      ['tag=traders&chain=ethereum', (tx) => inTraders(tx) && tx.chain === 'ethereum'],
      ['tag=traders&token_address=0', (tx) => inTraders(tx) && tx.token_address === '0'],
      ['tag=traders&chain=bnb&token_address=USDT_BNB', (tx) => inTraders(tx) && tx.token_address === usdtBnb],
      [`tag=traders&since=${at(5)}`, (tx) => inTraders(tx) && tx.block_time > at(5)],
      [`tag=traders&until=${at(5)}`, (tx) => inTraders(tx) && tx.block_time <= at(5)],
      [
        `tag=traders&token_address=0&since=${at(1)}&until=${at(6, 250)}`,
        (tx) => inTraders(tx) && tx.token_address === '0' && tx.block_time > at(1) && tx.block_time <= at(6, 250),
      ],
      ['tag=traders&chain=bitcoin', () => false],
      ['tag=traders&direction=sent', (tx) => sender(tx, p) || sender(tx, r)],
      ['tag=traders&direction=received', (tx) => recipient(tx, p) || recipient(tx, r)],
      [
        'tag=traders&chain=bnb&token_address=USDT_BNB&direction=received',
        (tx) => (recipient(tx, p) || recipient(tx, r)) && tx.token_address === usdtBnb,
      ],
      ['tag=0&direction=received', (tx) => recipient(tx, sol)],
      ['tag=0', (tx) => party(tx, sol)],
    ])('%s, in full and page by page', async (template, keep) => {
      const query = template.replace('USDT_BNB', usdtBnb);
      expect(await list(query)).toEqual(expected(keep));
      const pages = await walk(`api_key=${t.keys.alice}&per_page=2&${query}`);
      expect(pages.flat()).toEqual(expected(keep));
    });

    it("bob's tag: its member's rows, none of alice's tags", async () => {
      expect((await get('tag=bobs_tag', t.keys.bob).expect(200)).body).toEqual(expected((tx) => party(tx, q)));
    });
  });

  it('pages by cursor through every row once, Link next/first repeating every parameter, never last', async () => {
    const pages = await walk(`api_key=${t.keys.alice}&per_page=4&chain=ethereum`);
    const all = expected((tx) => tx.chain === 'ethereum');
    expect(pages.flat()).toEqual(all);
    expect(pages.map((page) => page.length)).toEqual([
      4,
      ...Array.from({ length: pages.length - 1 }, (_v, i) =>
        i === pages.length - 2 ? all.length - 4 * (pages.length - 1) : 4,
      ),
    ]);
  });

  it("pages an address's rows exactly wherever a page ends: in either branch, inside a tie, at the end", async () => {
    // r sends and receives within one instant (tie-B, tie-a, tie-C), so a page can end in either
    // branch and between rows of the same block_time; sol only sends to itself.
    for (const address of [p, q, r, sol]) {
      const all = expected((tx) => party(tx, address));
      for (const perPage of [1, 2, 3, 5, all.length, all.length + 1]) {
        const pages = await walk(`api_key=${t.keys.alice}&per_page=${perPage}&address=${address.canonical}`);
        expect(pages.flat()).toEqual(all);
        expect(pages.every((page, index) => page.length === perPage || index === pages.length - 1)).toBe(true);
      }
    }
    for (const [direction, end] of [
      ['sent', sender],
      ['received', recipient],
    ] as const) {
      for (const address of [p, r]) {
        const all = expected((tx) => end(tx, address));
        expect(all.length).toBeGreaterThan(1);
        const pages = await walk(
          `api_key=${t.keys.alice}&per_page=1&address=${address.canonical}&direction=${direction}`,
        );
        expect(pages.flat()).toEqual(all);
      }
    }
    // A transfer to oneself is both sent and received.
    for (const direction of ['sent', 'received']) {
      expect((await list(`address=${p.canonical}&direction=${direction}`)).some((row) => row.id === 'self')).toBe(true);
    }
    const latest = await get(`address=${r.canonical}&per_page=1&since=${at(4)}`).expect(200);
    expect(latest.body).toEqual(expected((tx) => party(tx, r)).slice(0, 1));
    expect(await list(`address=${r.canonical}&since=2030-01-01T00:00:00Z`)).toEqual([]);
  });

  it('tiles the list with windows that share their ends: since=A&until=B, then since=B&until=C, each row once', async () => {
    const ends = ['2000-01-01T00:00:00Z', at(2), at(5), at(6, 249), at(6, 250), at(8), '2030-01-01T00:00:00Z'];
    for (const filter of ['', `&address=${r.canonical}`, '&tag=traders', '&chain=ethereum']) {
      const windows: Record<string, unknown>[][] = [];
      for (let i = 0; i + 1 < ends.length; i += 1) {
        // Paged two at a time: the cursor and until both bound each page.
        const pages = await walk(`api_key=${t.keys.alice}&per_page=2&since=${ends[i]}&until=${ends[i + 1]}${filter}`);
        windows.unshift(pages.flat());
      }
      const whole = await list(filter.slice(1));
      expect(whole.length).toBeGreaterThan(2);
      expect(windows.flat()).toEqual(whole);
      expect(windows.filter((window) => window.length > 0).length).toBeGreaterThan(1);
    }
  });

  it('stays exact while newer rows are inserted between page fetches, also on the sender/recipient branches', async () => {
    const ingest = t.app.get(IngestService);
    let minute = 0;
    const insertNewer = async () => {
      minute += 1;
      const newer = [
        transaction({
          id: `new-${kind}-${minute}-a`,
          chain: 'ethereum',
          from: p,
          to: q,
          block_time: `2025-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`,
        }),
        transaction({
          id: `new-${kind}-${minute}-b`,
          chain: 'base',
          from: r,
          to: p,
          block_time: `2025-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`,
        }),
      ];
      const report = await ingest.import([ndjson(newer.map(transactionLine))]);
      expect(report.committed).toBe(true);
    };
    // Each walk starts from what is stored at that moment, rows inserted by earlier walks included.
    for (const [query, perPage] of [
      ['', 3],
      [`address=${p.canonical}&since=${at(0)}`, 2],
      ['tag=traders&since=2000-01-01T00:00:00Z', 5],
    ] as const) {
      const before = await list(query);
      const pages = await walk(
        `api_key=${t.keys.alice}&per_page=${perPage}${query === '' ? '' : `&${query}`}`,
        insertNewer,
      );
      expect(pages.length).toBeGreaterThan(2);
      expect(pages.flat()).toEqual(before);
    }
    expect(minute).toBeGreaterThan(10);
  });

  it('accepts a cursor after a restart: the signing secret is stored in the database', async () => {
    const first = await get(`api_key=${t.keys.alice}&per_page=2`).expect(200);
    const next = parseLinks(first.headers.link).next!;
    const other = await startTestApp({ databaseUrl: t.databaseUrl, keys: t.keys });
    try {
      const url = new URL(next);
      const again = await other
        .http()
        .get(url.pathname + url.search)
        .expect(200);
      const here = await t
        .http()
        .get(url.pathname + url.search)
        .expect(200);
      expect(again.body).toEqual(here.body);
      expect(again.body).toHaveLength(2);
    } finally {
      await other.close();
    }
  });

  describe('errors', () => {
    it('answers a forged, garbled or foreign cursor with 400 INVALID_QUERY', async () => {
      const first = await get('per_page=2').expect(200);
      const cursor = new URL(parseLinks(first.headers.link).next!).searchParams.get('after')!;
      const [payload, mac] = cursor.split('.') as [string, string];
      const forgedPayload = Buffer.from(JSON.stringify(['2099-01-01T00:00:00.000Z', 'zzz'])).toString('base64url');
      const foreign = encodeCursor({ time: '2024-05-01T12:05:00.000Z', id: 'tie-a' }, randomBytes(32));
      // The MAC's first character changed: all six of its bits count, so the MAC is another one.
      const garbledMac = `${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`;
      for (const after of [
        `${forgedPayload}.${mac}`,
        `${payload}.${garbledMac}`,
        payload,
        foreign,
        'garbage',
        '',
        `${cursor}x`,
        "'; DROP TABLE transactions; --",
        'x'.repeat(5000),
      ]) {
        const response = await get(`after=${encodeURIComponent(after)}`);
        expect({ after, status: response.status, code: response.body.code }).toEqual({
          after,
          status: 400,
          code: 'INVALID_QUERY',
        });
      }
    });

    it.each([
      '2024-05-01',
      '2024-05-01T12:00:00',
      '2024-05-01T12:00Z',
      '2024-05-01T12:00:00+00:00',
      '2024-05-01 12:00:00Z',
      '2024-02-30T00:00:00Z',
      '2024-05-01T24:00:00Z',
      '2024-05-01T12:00:00.1234Z',
      '1714564800',
      'yesterday',
      '',
    ])('answers %j as since and as until with 400 INVALID_QUERY', async (instant) => {
      for (const parameter of ['since', 'until']) {
        const response = await get(`${parameter}=${encodeURIComponent(instant)}`);
        expect(response.status).toBe(400);
        expect(response.body).toMatchObject({ code: 'INVALID_QUERY', details: [{ parameter }] });
      }
    });

    it.each([
      ['chain=tron', 'INVALID_QUERY', 400],
      ['chain=', 'INVALID_QUERY', 400],
      ['before=abc', 'INVALID_QUERY', 400],
      ['page=2', 'INVALID_QUERY', 400],
      ['per_page=101', 'INVALID_QUERY', 400],
      ['address=0x12', 'INVALID_ADDRESS', 400],
      ['address=bc1notanaddress', 'INVALID_ADDRESS', 400],
      [`chain=solana&token_address=${usdtEthereum}`, 'INVALID_ADDRESS', 400],
      ['tag=x', 'INVALID_TAG', 400],
      ['tag=bobs_tag', 'TAG_NOT_FOUND', 404],
      ['direction=sent', 'INVALID_QUERY', 400],
      ['chain=ethereum&direction=received', 'INVALID_QUERY', 400],
      ['address=P&direction=in', 'INVALID_QUERY', 400],
      ['address=P&direction=', 'INVALID_QUERY', 400],
      ['address=P&direction=sent&direction=received', 'INVALID_QUERY', 400],
      ['tag=traders&direction=SENT', 'INVALID_QUERY', 400],
    ])('%s → %s', async (template, code, status) => {
      const query = template.replace('=P', `=${p.canonical}`);
      const response = await get(query);
      expect(response.status).toBe(status);
      expect(response.body).toMatchObject({ statusCode: status, code });
      if (query.includes('direction'))
        expect(response.body.details).toEqual([expect.objectContaining({ parameter: 'direction' })]);
    });
  });
});
