import { ChainId } from '../src/core/chains/chain-ids';
import { TOKENS } from '../src/database/reference-data';
import { totalUsd } from '../src/core/money/valuation';
import { runCli } from './support/cli';
import {
  bitcoinLegacyAddress,
  deployment,
  evmAddress,
  HoldingFixture,
  holdingLine,
  ndjson,
  priceLine,
  segwitAddress,
  TestAddress,
  transaction,
  TransactionFixture,
  transactionLine,
} from './support/factories';
import { importLines, tagAddresses } from './support/fixtures';
import { DATABASES, startOnFreshDatabase, TestApp } from './support/test-app';

/**
 * The `stats` of GET /v2/addresses/:address and GET /v2/tags/:tag against a model computed from
 * the fixture alone: holdings above zero, transactions sent or received (once each, however many
 * members take part), and the exact USD value at the latest prices.
 */
describe.each(DATABASES)('address and tag stats on %s', (kind) => {
  let t: TestApp;

  // A small world in which every address trades with every other, some with themselves.
  const evm = Array.from({ length: 8 }, (_unused, index) => evmAddress(`stats-${index}`));
  const legacy = bitcoinLegacyAddress('stats-legacy');
  const segwit = segwitAddress('stats-segwit');
  const outsider = evmAddress('stats-outsider');

  const TAGS: Record<string, TestAddress[]> = {
    traders: [evm[0]!, evm[1]!, evm[2]!],
    single: [evm[3]!],
    bitcoiners: [legacy, segwit],
    idle_watch: [outsider],
  };
  const UNTAGGED = [evm[4]!, evm[5]!];

  const TXS: TransactionFixture[] = [];
  // A deterministic walk over sender/recipient pairs: self-transfers, transfers inside a tag,
  // across tags, and mints (no sender) all occur.
  for (let index = 0; index < 120; index += 1) {
    const from = evm[(index * 5) % evm.length]!;
    const to = evm[(index * 3 + (index % 4 === 0 ? 0 : 1)) % evm.length]!;
    const chain: ChainId = index % 3 === 0 ? 'base' : 'ethereum';
    TXS.push(
      transaction({
        id: `stats-${String(index).padStart(3, '0')}`,
        chain,
        from: index % 17 === 0 ? '0' : from,
        to,
        block_time: new Date(Date.UTC(2024, 5, 1) + index * 60_000).toISOString(),
      }),
    );
  }
  TXS.push(
    transaction({ id: 'btc-in', chain: 'bitcoin', from: segwit, to: legacy }),
    transaction({ id: 'btc-self', chain: 'bitcoin', from: legacy, to: legacy }),
    transaction({ id: 'bch-out', chain: 'bitcoincash', from: legacy, to: bitcoinLegacyAddress('stats-elsewhere') }),
  );

  const usdt = (chain: ChainId) => deployment('tether', chain).address;
  const hold = (chain: ChainId, address: TestAddress, tokenAddress: string, balance: string): HoldingFixture => ({
    chain,
    address,
    token_address: tokenAddress,
    balance,
    updated_at: '2024-06-01T00:00:00.000Z',
  });
  const HOLDINGS: HoldingFixture[] = [
    hold('ethereum', evm[0]!, '0', '1500000000000000000'),
    hold('ethereum', evm[0]!, usdt('ethereum'), '2500000'),
    hold('bnb', evm[0]!, usdt('bnb'), '2500000000000000000'),
    hold('ethereum', evm[1]!, usdt('ethereum'), '0'),
    hold('base', evm[1]!, '0', '333'),
    hold('ethereum', evm[2]!, '0', '9'.repeat(40)),
    hold('ethereum', evm[3]!, usdt('ethereum'), '1'),
    hold('ethereum', evm[4]!, '0', '7'),
    hold('bitcoin', legacy, '0', '100000000'),
    hold('bitcoincash', legacy, '0', '0'),
    hold('bitcoin', segwit, '0', '12345'),
  ];
  const PRICES = [
    priceLine('ethereum', 3000.25, '2024-05-01T00:00:00Z'),
    priceLine('ethereum', 3500.5, '2024-06-01T00:00:00Z'),
    priceLine('tether', 0.999, '2024-06-01T00:00:00Z'),
    priceLine('bitcoin', 65000.125, '2024-06-01T00:00:00Z'),
  ];
  const LATEST_USD: Record<string, string> = { ethereum: '3500.5', tether: '0.999', bitcoin: '65000.125' };

  const decimalsOf = (chain: string, tokenAddress: string) => {
    for (const token of TOKENS) {
      const found = token.deployments.find((d) => d.chain === chain && d.address === tokenAddress);
      if (found) return { tokenId: token.id, decimals: found.decimals };
    }
    throw new Error(`fixture uses an unknown deployment ${chain} ${tokenAddress}`);
  };

  /** The model: stats of a set of canonical addresses, from the fixture rows. */
  function expectedStats(members: ReadonlySet<string>) {
    const holdings = HOLDINGS.filter((h) => h.balance !== '0' && members.has(h.address.canonical));
    const transactions = TXS.filter(
      (tx) => members.has(tx.to.canonical) || (tx.from !== '0' && members.has(tx.from.canonical)),
    );
    return {
      token_holding_count: holdings.length,
      txn_count: transactions.length,
      total_value_usd: totalUsd(
        holdings.map((h) => {
          const { tokenId, decimals } = decimalsOf(h.chain, h.token_address);
          return { balance: h.balance, decimals, usd: LATEST_USD[tokenId] };
        }),
      ),
    };
  }

  beforeAll(async () => {
    t = await startOnFreshDatabase(kind);
    await importLines(t, [...HOLDINGS.map(holdingLine), ...PRICES, ...TXS.map(transactionLine)]);
    for (const [tag, addresses] of Object.entries(TAGS)) {
      await tagAddresses(
        t,
        t.keys.alice,
        tag,
        addresses.map((address) => address.input),
      ).expect(200);
    }
    await tagAddresses(
      t,
      t.keys.alice,
      '0',
      UNTAGGED.map((address) => address.input),
    ).expect(200);
  }, 60_000);

  afterAll(async () => {
    await t.close();
  });

  const get = (path: string) => t.http().get(path).set('X-API-Key', t.keys.alice).expect(200);

  it('the fixture exercises what the counts must get right', () => {
    const selfTransfers = TXS.filter((tx) => tx.from !== '0' && tx.from.canonical === tx.to.canonical);
    const isTrader = (address: TestAddress) => TAGS.traders!.some((a) => a.canonical === address.canonical);
    const insideTraders = TXS.filter(
      (tx) => tx.from !== '0' && tx.from.canonical !== tx.to.canonical && isTrader(tx.from) && isTrader(tx.to),
    );
    expect(selfTransfers.length).toBeGreaterThan(3);
    expect(insideTraders.length).toBeGreaterThan(3);
    expect(TXS.some((tx) => tx.from === '0')).toBe(true);
  });

  it('counts every address’s holdings above zero, its transactions once each, and values them exactly', async () => {
    for (const address of [...evm, legacy, segwit, outsider]) {
      const body = (await get(`/v2/addresses/${encodeURIComponent(address.input)}`)).body as { stats: unknown };
      expect({ address: address.canonical, stats: body.stats }).toEqual({
        address: address.canonical,
        stats: expectedStats(new Set([address.canonical])),
      });
    }
  });

  it('counts a tag’s transactions once when both ends carry the tag, and a transfer to oneself once', async () => {
    for (const [tag, addresses] of Object.entries(TAGS)) {
      const body = (await get(`/v2/tags/${tag}`)).body as { stats: unknown };
      expect({ tag, stats: body.stats }).toEqual({
        tag,
        stats: { address_count: addresses.length, ...expectedStats(new Set(addresses.map((a) => a.canonical))) },
      });
    }
  });

  it('gives the tracked, untagged addresses (tag 0) the same stats', async () => {
    const body = (await get('/v2/tags/0')).body as { stats: unknown };
    expect(body.stats).toEqual({
      address_count: UNTAGGED.length,
      ...expectedStats(new Set(UNTAGGED.map((a) => a.canonical))),
    });
  });

  it('lists the account’s tags beside the stats, once each however many holdings, in binary order', async () => {
    const busy = evm[0]!;
    expect(HOLDINGS.filter((h) => h.address === busy && h.balance !== '0').length).toBeGreaterThan(1);
    for (const tag of ['ab_cd_tag', 'ab0cd_tag']) await tagAddresses(t, t.keys.alice, tag, [busy.input]).expect(200);
    const path = `/v2/addresses/${busy.input}`;
    const body = (await get(path)).body as { tags: string[]; stats: unknown };
    expect(body.tags).toEqual(['ab0cd_tag', 'ab_cd_tag', 'traders']);
    expect(body.stats).toEqual(expectedStats(new Set([busy.canonical])));
    expect((await t.http().get(path).set('X-API-Key', t.keys.bob).expect(200)).body.tags).toEqual([]);
    expect((await get(`/v2/addresses/${UNTAGGED[0]!.input}`)).body.tags).toEqual(['0']);
  });

  it('looks up many addresses at once: each record as its own route answers it, in the order given', async () => {
    const unknown = evmAddress('stats-never-seen');
    const listed = [
      outsider,
      ...UNTAGGED,
      legacy,
      ...evm.filter((address) => !UNTAGGED.includes(address)),
      segwit,
      unknown,
    ];
    // Repeats in other spellings (checksummed, upper-case bech32) and the same twice collapse to the first.
    const inputs = [...listed.map((address) => address.input), evm[2]!.canonical, segwit.canonical.toUpperCase()];
    const query = `address=${inputs.slice(0, 6).join(',')}&${inputs
      .slice(6)
      .map((input) => `address=${encodeURIComponent(input)}`)
      .join('&')}`;
    for (const key of [t.keys.alice, t.keys.bob]) {
      const singles = [];
      for (const address of listed) {
        singles.push((await t.http().get(`/v2/addresses/${address.input}`).set('X-API-Key', key).expect(200)).body);
      }
      const { body } = await t.http().get(`/v2/addresses?${query}`).set('X-API-Key', key).expect(200);
      expect(body).toEqual(singles);
    }
    const { body } = await get(`/v2/addresses?${query}`);
    expect((body as { address: string }[]).map((record) => record.address)).toEqual(
      listed.map((address) => address.canonical),
    );
    for (const record of body as { address: string; stats: unknown }[]) {
      expect(record.stats).toEqual(expectedStats(new Set([record.address])));
    }
    // The account's tags by the fixture (evm[0], with three holdings, carries two more from the test above).
    const tagsOf = (address: TestAddress) => {
      const named = Object.keys(TAGS).filter((tag) => TAGS[tag]!.includes(address));
      return named.length > 0 ? named.sort() : UNTAGGED.includes(address) ? ['0'] : [];
    };
    for (const [index, record] of (body as { tags: string[] }[]).entries()) {
      if (listed[index] === evm[0]) expect(record.tags).toContain('traders');
      else expect(record.tags).toEqual(tagsOf(listed[index]!));
    }
  });

  it('refuses a lookup without addresses, of more than a hundred, or with strings that are none', async () => {
    const refused = async (query: string, code: string) => {
      const { body } = await t.http().get(`/v2/addresses${query}`).set('X-API-Key', t.keys.alice).expect(400);
      expect({ query: query.slice(0, 80), code: (body as { code: string }).code }).toEqual({
        query: query.slice(0, 80),
        code,
      });
      return body as { details: unknown[] };
    };
    const many = Array.from({ length: 101 }, (_unused, index) => evmAddress(`stats-many-${index}`).input);
    for (const query of [
      '',
      `?address=${many.join(',')}`,
      `?address=${many.slice(0, 60).join(',')}&address=${many.slice(60).join(',')}`,
    ]) {
      const body = await refused(query, 'INVALID_QUERY');
      expect(body.details).toEqual([
        { parameter: 'address', message: 'address must list 1 to 100 addresses, comma-separated or repeated' },
      ]);
    }
    expect((await get(`/v2/addresses?address=${many.slice(0, 100).join(',')}`)).body).toHaveLength(100);
    const body = await refused(`?address=${evm[0]!.input},0x1234,,${legacy.input},nope`, 'INVALID_ADDRESS');
    expect(body.details).toEqual([
      { parameter: 'address', index: 1, address: '0x1234', reason: expect.any(String) },
      { parameter: 'address', index: 2, address: '', reason: expect.any(String) },
      { parameter: 'address', index: 4, address: 'nope', reason: expect.any(String) },
    ]);
    await refused(`?address=${evm[0]!.input}&chain=base`, 'INVALID_QUERY');
  });
});

/**
 * Stats are read from aggregates kept by every write (src/modules/aggregates/). Every change that can move
 * them must show in the next answer: the tag's addresses changing through the API, and data
 * imported by the CLI in another process.
 */
describe.each(DATABASES)('tag stats after changes on %s', (kind) => {
  let t: TestApp;
  const [first, second] = [evmAddress('kept-1'), evmAddress('kept-2')];
  const eth = (address: TestAddress, balance: string) =>
    holdingLine({ chain: 'ethereum', address, token_address: '0', balance, updated_at: '2024-06-01T00:00:00.000Z' });

  beforeAll(async () => {
    t = await startOnFreshDatabase(kind);
    await importLines(t, [
      eth(first, '1000000000000000000'),
      eth(second, '3000000000000000000'),
      priceLine('ethereum', 2000),
    ]);
  }, 60_000);

  afterAll(async () => {
    await t.close();
  });

  /** Through the command line: a process other than the server's. */
  async function importByCli(lines: Record<string, unknown>[]): Promise<void> {
    const imported = await runCli(t.databaseUrl, ['import', '-'], ndjson(lines));
    expect(imported.code).toBe(0);
  }

  const send = (method: 'post' | 'delete', path: string, addresses: TestAddress[]) => {
    const agent = t.http();
    return (method === 'post' ? agent.post(path) : agent.delete(path))
      .set('X-API-Key', t.keys.alice)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(addresses.map((address) => address.input)))
      .expect(200);
  };

  const stats = async () =>
    ((await t.http().get('/v2/tags/kept_stats').set('X-API-Key', t.keys.alice).expect(200)).body as { stats: unknown })
      .stats;

  const addressStats = async (address: TestAddress) =>
    (
      (await t.http().get(`/v2/addresses/${address.input}`).set('X-API-Key', t.keys.alice).expect(200)).body as {
        stats: unknown;
      }
    ).stats;

  it('answers the same stats while nothing changes', async () => {
    await send('post', '/v2/tags/kept_stats', [first]);
    const expected = { address_count: 1, token_holding_count: 1, txn_count: 0, total_value_usd: 2000 };
    expect(await stats()).toEqual(expected);
    expect(await Promise.all([stats(), stats(), stats()])).toEqual([expected, expected, expected]);
    const secondBefore = { token_holding_count: 1, txn_count: 0, total_value_usd: 6000 };
    expect(await Promise.all([addressStats(second), addressStats(second)])).toEqual([secondBefore, secondBefore]);
  });

  it('follows the tag’s addresses as they are added and removed', async () => {
    await send('post', '/v2/tags/kept_stats', [second]);
    expect(await stats()).toEqual({ address_count: 2, token_holding_count: 2, txn_count: 0, total_value_usd: 8000 });
    await send('delete', '/v2/tags/kept_stats/addresses', [first]);
    expect(await stats()).toEqual({ address_count: 1, token_holding_count: 1, txn_count: 0, total_value_usd: 6000 });
  });

  it('follows data imported by another process: transactions, balances and prices', async () => {
    await importByCli([
      transactionLine(transaction({ id: 'kept-in', chain: 'base', from: first, to: second })),
      eth(second, '5000000000000000000'),
      priceLine('ethereum', 2500),
    ]);
    expect(await stats()).toEqual({ address_count: 1, token_holding_count: 1, txn_count: 1, total_value_usd: 12500 });
    expect(await addressStats(second)).toEqual({ token_holding_count: 1, txn_count: 1, total_value_usd: 12500 });
    expect(await addressStats(first)).toEqual({ token_holding_count: 1, txn_count: 1, total_value_usd: 2500 });
  });

  it('answers for the new tag when a deleted tag’s name is used again', async () => {
    await t.http().delete('/v2/tags/kept_stats').set('X-API-Key', t.keys.alice).expect(204);
    await send('post', '/v2/tags/kept_stats', [first]);
    expect(await stats()).toEqual({ address_count: 1, token_holding_count: 1, txn_count: 1, total_value_usd: 2500 });
  });
});
