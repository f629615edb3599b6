import { ChainId } from '../src/core/chains/chain-ids';
import { TOKENS } from '../src/database/reference-data';
import {
  bitcoinLegacyAddress,
  cashAddress,
  compareBinary,
  deployment,
  dogecoinAddress,
  evmAddress,
  HoldingFixture,
  holdingLine,
  moveAddress,
  priceLine,
  segwitAddress,
  solanaAddress,
  TestAddress,
  tonAddress,
} from './support/factories';
import { importLines, parseLinks, tagAddresses } from './support/fixtures';
import { DATABASES, startOnFreshDatabase, TestApp } from './support/test-app';

const HOLDING_FIELDS = [
  'address',
  'balance',
  'chain',
  'holders',
  'token_address',
  'token_decimals',
  'token_icon_url',
  'token_name',
  'token_price',
  'token_symbol',
  'updated_at',
];
const MAX_BALANCE = '123456789012345678901234567890123456789012345678901234567890123456789012345678';

describe.each(DATABASES)('GET /v2/token-holdings on %s', (kind) => {
  let t: TestApp;

  const a = evmAddress('holder-a');
  const b = evmAddress('holder-b');
  const d = evmAddress('holder-d');
  const z = evmAddress('holder-zero');
  const legacy = bitcoinLegacyAddress('holder-legacy');
  const segwit = segwitAddress('holder-segwit');
  const cash = cashAddress('holder-cash');
  const sol = solanaAddress('holder-sol');
  const ton = tonAddress('holder-ton');
  const move = moveAddress('holder-move');
  const doge = dogecoinAddress('holder-doge');

  const usdt = (chain: ChainId) => deployment('tether', chain).address;
  const usdc = (chain: ChainId) => deployment('usd-coin', chain).address;
  const hold = (
    chain: ChainId,
    address: TestAddress,
    tokenAddress: string,
    balance: string,
    day = 1,
  ): HoldingFixture => ({
    chain,
    address,
    token_address: tokenAddress,
    balance,
    updated_at: `2024-05-${String(day).padStart(2, '0')}T08:30:00.125Z`,
  });
  const HOLDINGS: HoldingFixture[] = [
    hold('ethereum', a, usdt('ethereum'), '1000000'),
    hold('ethereum', b, usdt('ethereum'), '2500000', 2),
    hold('ethereum', z, usdt('ethereum'), '0', 3),
    hold('ethereum', a, '0', MAX_BALANCE, 4),
    // With a and b holding two tokens each, ordering by address before token_address would differ.
    hold('ethereum', b, '0', '42', 5),
    hold('bnb', a, usdt('bnb'), `5${'0'.repeat(18)}`),
    hold('bnb', d, usdt('bnb'), '7'),
    hold('bitcoin', legacy, '0', '100'),
    hold('bitcoin', segwit, '0', '200'),
    hold('bitcoincash', legacy, '0', '300'),
    hold('bitcoincash', cash, '0', '400'),
    hold('solana', sol, usdc('solana'), '10'),
    hold('ton', ton, usdt('ton'), '20'),
    hold('sui', move, usdc('sui'), '30'),
    hold('aptos', move, '0', '40'),
    hold('aptos', move, usdt('aptos'), '0'),
    hold('dogecoin', doge, '0', '50'),
  ];
  const PRICES = [
    priceLine('tether', 0.99, '2024-01-01T00:00:00Z'),
    priceLine('tether', 1.001, '2024-02-01T00:00:00Z'),
    priceLine('tether', 0.5, '2023-12-01T00:00:00Z'),
    priceLine('bitcoin', 65000.5, '2024-02-01T00:00:00Z'),
  ];
  const LATEST_USD: Record<string, number> = { tether: 1.001, bitcoin: 65000.5 };

  function tokenOf(chain: string, tokenAddress: string) {
    for (const token of TOKENS) {
      const found = token.deployments.find((dep) => dep.chain === chain && dep.address === tokenAddress);
      if (found) return { token, decimals: found.decimals };
    }
    throw new Error(`fixture uses an unknown deployment ${chain} ${tokenAddress}`);
  }

  /** What the API must answer for the fixture rows matching `keep`, computed from the fixture alone. */
  function expected(keep: (holding: HoldingFixture) => boolean = () => true): Record<string, unknown>[] {
    const positive = HOLDINGS.filter((holding) => holding.balance !== '0');
    return positive
      .filter(keep)
      .sort(
        (x, y) =>
          compareBinary(x.chain, y.chain) ||
          compareBinary(x.token_address, y.token_address) ||
          compareBinary(x.address.canonical, y.address.canonical),
      )
      .map((holding) => {
        const { token, decimals } = tokenOf(holding.chain, holding.token_address);
        return {
          chain: holding.chain,
          address: holding.address.canonical,
          token_address: holding.token_address,
          token_name: token.name,
          token_symbol: token.symbol,
          token_decimals: decimals,
          token_icon_url: token.icon_url,
          token_price: LATEST_USD[token.id] ?? 0,
          balance: holding.balance,
          holders: positive.filter((o) => o.chain === holding.chain && o.token_address === holding.token_address)
            .length,
          updated_at: holding.updated_at,
        };
      });
  }

  beforeAll(async () => {
    t = await startOnFreshDatabase(kind);
    await importLines(t, [...HOLDINGS.map(holdingLine), ...PRICES]);
    await tagAddresses(t, t.keys.alice, 'whales', [a.input, legacy.input]).expect(200);
    await tagAddresses(t, t.keys.alice, '0', [move.input]).expect(200);
    await tagAddresses(t, t.keys.bob, 'whales', [d.input]).expect(200);
    await tagAddresses(t, t.keys.bob, 'bobs_only', [b.input]).expect(200);
  }, 60_000);

  afterAll(async () => {
    await t.close();
  });

  const get = (query: string, key = t.keys.alice) =>
    t
      .http()
      .get(`/v2/token-holdings?per_page=100${query === '' ? '' : `&${query}`}`)
      .set('X-API-Key', key);

  async function list(query: string): Promise<Record<string, unknown>[]> {
    const response = await get(query);
    expect(response.status).toBe(200);
    expect(response.headers.link).toBeUndefined();
    return response.body as Record<string, unknown>[];
  }

  it('lists every holding above zero in chain, token_address, address order, with the spec fields and the holder address', async () => {
    const body = await list('');
    expect(body).toEqual(expected());
    for (const row of body) expect(Object.keys(row).sort()).toEqual(HOLDING_FIELDS);
  });

  it('hides zero balances, also from the holder counts', async () => {
    expect(await list(`address=${z.input}`)).toEqual([]);
    const ethereumUsdt = (await list(`chain=ethereum&token_address=${usdt('ethereum')}`)).map((row) => row.holders);
    expect(ethereumUsdt).toEqual([2, 2]);
    expect(await list(`chain=aptos&token_address=${usdt('aptos')}`)).toEqual([]);
  });

  it('takes token_decimals from the deployment: USDT has 6 on ethereum and 18 on bnb', async () => {
    const rows = await list(`token_address=${usdt('ethereum')}`);
    expect(new Set(rows.map((row) => row.token_decimals))).toEqual(new Set([6]));
    const bnb = await list(`chain=bnb&token_address=${usdt('bnb')}`);
    expect(bnb.map((row) => row.token_decimals)).toEqual([18, 18]);
  });

  it('returns a 78-digit balance exactly, as a string', async () => {
    const [native] = await list(`chain=ethereum&token_address=0&address=${a.canonical}`);
    expect(native).toMatchObject({ balance: MAX_BALANCE, token_symbol: 'ETH', token_price: 0 });
  });

  it('prices a token at its latest price and unknown prices at 0', async () => {
    const prices = Object.fromEntries(
      (await list('')).map((row) => [`${String(row.chain)}:${String(row.token_symbol)}`, row.token_price]),
    );
    expect(prices).toMatchObject({ 'ethereum:USDT': 1.001, 'bnb:USDT': 1.001, 'bitcoin:BTC': 65000.5, 'aptos:APT': 0 });
  });

  describe('each filter alone', () => {
    it.each([
      ['chain=bitcoincash', (h: HoldingFixture) => h.chain === 'bitcoincash'],
      ['chain=sui', (h: HoldingFixture) => h.chain === 'sui'],
    ])('%s', async (query, keep) => {
      expect(await list(query)).toEqual(expected(keep));
    });

    it('address, in any accepted spelling', async () => {
      for (const address of [a, legacy, segwit, cash, ton, move]) {
        const keep = (h: HoldingFixture) => h.address.canonical === address.canonical;
        expect(expected(keep).length).toBeGreaterThan(0);
        expect(await list(`address=${encodeURIComponent(address.input)}`)).toEqual(expected(keep));
        expect(await list(`address=${encodeURIComponent(address.canonical)}`)).toEqual(expected(keep));
      }
    });

    it('token_address without a chain: 0, an EVM contract, a TON jetton in user-friendly form, a Move coin type', async () => {
      const jettonFriendly = 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs';
      const coinType = usdc('sui').replace(/^0x[0-9a-f]+/, (address) => `0x${address.slice(2).toUpperCase()}`);
      const cases: [string, string][] = [
        ['0', '0'],
        [usdt('bnb').toUpperCase().replace('0X', '0x'), usdt('bnb')],
        [jettonFriendly, usdt('ton')],
        [coinType, usdc('sui')],
      ];
      for (const [input, canonical] of cases) {
        const keep = (h: HoldingFixture) => h.token_address === canonical;
        expect(expected(keep).length).toBeGreaterThan(0);
        expect(await list(`token_address=${encodeURIComponent(input)}`)).toEqual(expected(keep));
      }
    });

    it("tag: the caller's tagged addresses; 0: tracked without a tag", async () => {
      const whales = new Set([a.canonical, legacy.canonical]);
      expect(await list('tag=whales')).toEqual(expected((h) => whales.has(h.address.canonical)));
      expect(await list('tag=0')).toEqual(expected((h) => h.address.canonical === move.canonical));
      const bobsWhales = await get('tag=whales', t.keys.bob).expect(200);
      expect(bobsWhales.body).toEqual(expected((h) => h.address.canonical === d.canonical));
    });
  });

  describe('filters combined (AND)', () => {
    it.each<[string, (h: HoldingFixture) => boolean]>([
      [`chain=bitcoin&address=LEGACY`, (h) => h.chain === 'bitcoin' && h.address === legacy],
      [`tag=whales&chain=bitcoincash`, (h) => h.chain === 'bitcoincash' && h.address === legacy],
      [`tag=whales&token_address=0`, (h) => h.token_address === '0' && (h.address === a || h.address === legacy)],
      ['tag=0&token_address=0', (h) => h.token_address === '0' && h.address === move],
      [
        `chain=ethereum&token_address=USDT_ETH&address=A`,
        (h) => h.chain === 'ethereum' && h.token_address === usdt('ethereum') && h.address === a,
      ],
      [`tag=whales&address=B`, () => false],
      [`chain=solana&address=A`, () => false],
    ])('%s', async (template, keep) => {
      const query = template
        .replace('LEGACY', legacy.input)
        .replace('USDT_ETH', usdt('ethereum'))
        .replace('=A', `=${a.input}`)
        .replace('=B', `=${b.input}`);
      expect(await list(query)).toEqual(expected(keep));
    });
  });

  it('pages with page/per_page and GitHub-style Link relations that repeat every parameter', async () => {
    const all = expected();
    const perPage = 4;
    const last = Math.ceil(all.length / perPage);
    const seen: unknown[] = [];
    for (let page = 1; page <= last; page += 1) {
      const response = await t
        .http()
        .get(`/v2/token-holdings?api_key=${t.keys.alice}&per_page=${perPage}&page=${page}`)
        .expect(200);
      seen.push(...response.body);
      const links = parseLinks(response.headers.link);
      const relations = Object.keys(links).sort();
      if (page === 1) expect(relations).toEqual(['last', 'next']);
      else if (page === last) expect(relations).toEqual(['first', 'prev']);
      else expect(relations).toEqual(['first', 'last', 'next', 'prev']);
      for (const href of Object.values(links)) {
        const url = new URL(href);
        expect(url.searchParams.get('api_key')).toBe(t.keys.alice);
        expect(url.searchParams.get('per_page')).toBe(String(perPage));
      }
    }
    expect(seen).toEqual(all);
    expect((await get(`page=${last + 1}`).expect(200)).body).toEqual([]);
  });

  it.each<[string, (h: HoldingFixture) => boolean]>([
    ['', () => true],
    ['chain=ethereum', (h) => h.chain === 'ethereum'],
    ['token_address=0', (h) => h.token_address === '0'],
    ['chain=bnb&token_address=USDT_BNB', (h) => h.chain === 'bnb' && h.token_address === usdt('bnb')],
    ['chain=aptos&token_address=USDT_APTOS', () => false],
  ])('names the last page of %s from the kept holder counts', async (template, keep) => {
    const query = template.replace('USDT_BNB', usdt('bnb')).replace('USDT_APTOS', usdt('aptos'));
    const count = expected(keep).length;
    const first = await t
      .http()
      .get(`/v2/token-holdings?${query}${query === '' ? '' : '&'}per_page=1`)
      .set('X-API-Key', t.keys.alice)
      .expect(200);
    if (count <= 1) {
      expect(first.headers.link).toBeUndefined();
      return;
    }
    expect(new URL(parseLinks(first.headers.link).last!).searchParams.get('page')).toBe(String(count));
    const past = await t
      .http()
      .get(`/v2/token-holdings?${query}${query === '' ? '' : '&'}per_page=1&page=${count + 2}`)
      .set('X-API-Key', t.keys.alice)
      .expect(200);
    expect(past.body).toEqual([]);
    expect(new URL(parseLinks(past.headers.link).prev!).searchParams.get('page')).toBe(String(count));
  });

  it('pages a token over every chain in list order, each page from the chains it spans', async () => {
    const all = expected((h) => h.token_address === '0');
    expect(new Set(all.map((holding) => holding.chain)).size).toBeGreaterThan(3);
    for (const perPage of [1, 2, 3]) {
      const seen: unknown[] = [];
      for (let page = 1; page <= Math.ceil(all.length / perPage); page += 1) {
        const response = await t
          .http()
          .get(`/v2/token-holdings?token_address=0&per_page=${perPage}&page=${page}`)
          .set('X-API-Key', t.keys.alice)
          .expect(200);
        seen.push(...(response.body as unknown[]));
      }
      expect(seen).toEqual(all);
    }
  });

  it("pages a tag's holdings from its kept rows, with the last page from its kept count", async () => {
    const whales = new Set([a.canonical, legacy.canonical]);
    const all = expected((h) => whales.has(h.address.canonical));
    expect(all.length).toBeGreaterThan(2);
    for (const perPage of [1, 2]) {
      const last = Math.ceil(all.length / perPage);
      const seen: unknown[] = [];
      for (let page = 1; page <= last; page += 1) {
        const response = await t
          .http()
          .get(`/v2/token-holdings?tag=whales&per_page=${perPage}&page=${page}`)
          .set('X-API-Key', t.keys.alice)
          .expect(200);
        seen.push(...response.body);
        if (page < last)
          expect(new URL(parseLinks(response.headers.link).last!).searchParams.get('page')).toBe(String(last));
      }
      expect(seen).toEqual(all);
      // Past the end: no rows, and the kept count still names the last page.
      const past = await t
        .http()
        .get(`/v2/token-holdings?tag=whales&per_page=${perPage}&page=${last + 3}`)
        .set('X-API-Key', t.keys.alice)
        .expect(200);
      expect(past.body).toEqual([]);
      expect(new URL(parseLinks(past.headers.link).prev!).searchParams.get('page')).toBe(String(last));
    }
    const onBitcoinCash = all.filter((holding) => holding.chain === 'bitcoincash');
    expect(onBitcoinCash.length).toBeGreaterThan(0);
    const past = await t
      .http()
      .get(`/v2/token-holdings?tag=whales&chain=bitcoincash&per_page=1&page=${onBitcoinCash.length + 2}`)
      .set('X-API-Key', t.keys.alice)
      .expect(200);
    expect(past.body).toEqual([]);
    expect(new URL(parseLinks(past.headers.link).prev!).searchParams.get('page')).toBe(String(onBitcoinCash.length));
  });

  describe('errors', () => {
    it.each([
      ['address=0x1234', 'INVALID_ADDRESS', 400],
      ['address=not-an-address', 'INVALID_ADDRESS', 400],
      [`address=${a.input.replace(/[a-f]/, (c) => c.toUpperCase())}`, 'INVALID_ADDRESS', 400],
      [`chain=bitcoin&token_address=${usdt('ethereum')}`, 'INVALID_ADDRESS', 400],
      ['token_address=0x2::nope', 'INVALID_ADDRESS', 400],
      ['token_address=', 'INVALID_ADDRESS', 400],
      ['chain=tron', 'INVALID_QUERY', 400],
      ['chain=Ethereum', 'INVALID_QUERY', 400],
      ['chain=ethereum&chain=bnb', 'INVALID_QUERY', 400],
      ['holder=x', 'INVALID_QUERY', 400],
      ['page=0', 'INVALID_QUERY', 400],
      ['tag=Whales', 'INVALID_TAG', 400],
      ['tag=abc', 'INVALID_TAG', 400],
      ['tag=no_such_tag', 'TAG_NOT_FOUND', 404],
      ['tag=bobs_only', 'TAG_NOT_FOUND', 404],
    ])('%s → %s', async (query, code, status) => {
      const response = await get(query);
      expect(response.status).toBe(status);
      expect(response.body).toMatchObject({ statusCode: status, code });
    });

    it('quotes at most 100 characters of an invalid tag', async () => {
      const response = await get(`tag=${'x'.repeat(3000)}`);
      expect(response.body).toMatchObject({ code: 'INVALID_TAG', details: [{ tag: 'x'.repeat(100) }] });
    });

    it('names the invalid address', async () => {
      const response = await get('address=0xnothex');
      expect(response.body.message).toContain('"0xnothex"');
      expect(response.body.details).toEqual([expect.objectContaining({ parameter: 'address', address: '0xnothex' })]);
    });

    it('needs a key', async () => {
      const response = await t.http().get('/v2/token-holdings');
      expect(response.status).toBe(401);
      expect(response.body.code).toBe('UNAUTHORIZED');
    });
  });
});
