import { Address } from '@ton/core';
import fc from 'fast-check';
import { discoveredTokenId } from '../../core/tokens/discovered-token-id';
import {
  KnownToken,
  MalformedAnswer,
  planRequests,
  PriceRequest,
  priceTarget,
  readAnswer,
  REQUEST_LIMITS,
} from './price-quotes';

const USDC = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const NOW_SECONDS = NOW / 1000;

/** The token a follower records at `address` on `chain`. */
const discovered = (chain: string, address: string): KnownToken => ({
  id: discoveredTokenId(chain as Parameters<typeof discoveredTokenId>[0], address),
  deployment: { chain, address },
});
/** A shipped or imported token by its id, or a discovered EVM one by `<chain>-<contract>`. */
const token = (id: string): KnownToken => {
  const evm = /^([a-z]+)-(0x[0-9a-f]+)$/.exec(id);
  return evm === null ? { id } : { id, deployment: { chain: evm[1]!, address: evm[2]! } };
};

describe('priceTarget', () => {
  it('prices shipped and imported tokens by id, and tokens discovered on EVM chains by contract', () => {
    expect(priceTarget({ id: 'usd-coin' })).toEqual({ tokenId: 'usd-coin', by: 'id' });
    expect(priceTarget(discovered('ethereum', USDC))).toEqual({
      tokenId: `ethereum-${USDC}`,
      by: 'contract',
      platform: 'ethereum',
      contract: USDC,
    });
    expect(priceTarget(discovered('bnb', USDC))).toMatchObject({ by: 'contract', platform: 'binance-smart-chain' });
    expect(priceTarget(discovered('polygon', USDC))).toMatchObject({ platform: 'polygon-pos' });
    expect(priceTarget(discovered('arbitrum', USDC))).toMatchObject({ platform: 'arbitrum-one' });
    expect(priceTarget(discovered('optimism', USDC))).toMatchObject({ platform: 'optimistic-ethereum' });
    expect(priceTarget(discovered('base', USDC))).toMatchObject({ platform: 'base' });
  });

  it('prices tokens discovered on Solana, TON, Sui and Aptos by contract, in the form CoinGecko lists', () => {
    const mint = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
    expect(priceTarget(discovered('solana', mint))).toEqual({
      tokenId: `solana-${mint.toLowerCase()}`,
      by: 'contract',
      platform: 'solana',
      contract: mint,
    });
    const master = '0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe';
    const friendly = Address.parseRaw(master).toString({ urlSafe: true, bounceable: true });
    expect(priceTarget(discovered('ton', master))).toEqual({
      tokenId: `ton-${master.replace(':', '-')}`,
      by: 'contract',
      platform: 'the-open-network',
      contract: friendly,
    });
    expect(friendly).toMatch(/^EQ/);
    const coinType = `0x${'d'.repeat(64)}::usdc::USDC`;
    expect(priceTarget(discovered('sui', coinType))).toMatchObject({ platform: 'sui', contract: coinType });
    const asset = `0x${'b'.repeat(64)}`;
    expect(priceTarget(discovered('aptos', asset))).toMatchObject({ platform: 'aptos', contract: asset });
  });

  it('prices by id a token whose id is not its deployment’s, one of several deployments, and a native coin', () => {
    const usdcOnSolana = { chain: 'solana', address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' };
    expect(priceTarget({ id: 'usd-coin', deployment: usdcOnSolana })).toEqual({ tokenId: 'usd-coin', by: 'id' });
    expect(priceTarget({ id: `solana-${USDC}` })).toEqual({ tokenId: `solana-${USDC}`, by: 'id' });
    expect(priceTarget({ id: 'solana', deployment: { chain: 'solana', address: '0' } })).toEqual({
      tokenId: 'solana',
      by: 'id',
    });
    expect(priceTarget({ id: 'bitcoin-0', deployment: { chain: 'bitcoin', address: '0' } })).toEqual({
      tokenId: 'bitcoin-0',
      by: 'id',
    });
    expect(priceTarget({ id: `ethereum-${USDC}`, deployment: { chain: 'nowhere', address: USDC } })).toEqual({
      tokenId: `ethereum-${USDC}`,
      by: 'id',
    });
  });
});

describe('planRequests', () => {
  const BASE = 'https://api.coingecko.com/api/v3';

  it('asks /simple/price by ids and /simple/token_price per platform, in CoinGecko\u2019s query shapes', () => {
    const requests = planRequests(
      ['bitcoin', `ethereum-${USDC}`, 'tether', `base-${USDC}`].map((id) => priceTarget(token(id))),
      BASE.length,
    );
    expect(requests.map((request) => request.path)).toEqual([
      '/simple/price?ids=bitcoin,tether&vs_currencies=usd&include_last_updated_at=true',
      `/simple/token_price/ethereum?contract_addresses=${USDC}&vs_currencies=usd&include_last_updated_at=true`,
      `/simple/token_price/base?contract_addresses=${USDC}&vs_currencies=usd&include_last_updated_at=true`,
    ]);
    expect([...requests[1]!.tokens]).toEqual([[USDC, `ethereum-${USDC}`]]);
  });

  it('splits batches at the key count and the URL length, and asks about every token exactly once', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[a-z0-9]{1,30}(-[a-z0-9]{1,10}){0,2}$/), { maxLength: 400 }),
        fc.uniqueArray(fc.stringMatching(/^[0-9a-f]{40}$/), { maxLength: 200 }),
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 200, max: 5000 }),
        (ids, contracts, maxKeys, maxUrlLength) => {
          const tokens = [...ids, ...contracts.map((hex) => `polygon-0x${hex}`)];
          const requests = planRequests(
            tokens.map((id) => priceTarget(token(id))),
            BASE.length,
            { maxKeys, maxUrlLength },
          );
          for (const request of requests) {
            expect(request.tokens.size).toBeGreaterThan(0);
            expect(request.tokens.size).toBeLessThanOrEqual(maxKeys);
            if (request.tokens.size > 1) expect(BASE.length + request.path.length).toBeLessThanOrEqual(maxUrlLength);
          }
          const asked = requests.flatMap((request) => [...request.tokens.values()]);
          expect(asked.sort()).toEqual([...tokens].sort());
        },
      ),
    );
  });

  it('fits the documented 515 ids per request by default', () => {
    const ids = Array.from({ length: 1200 }, (_unused, index) => `c${index}`);
    const requests = planRequests(
      ids.map((id) => priceTarget(token(id))),
      BASE.length,
    );
    expect(requests.length).toBeGreaterThan(2);
    for (const request of requests) {
      expect(request.tokens.size).toBeLessThanOrEqual(515);
      expect(BASE.length + request.path.length).toBeLessThanOrEqual(REQUEST_LIMITS.maxUrlLength);
    }
  });
});

describe('readAnswer', () => {
  const request = (tokens: [string, string][]): PriceRequest => ({ path: '/', tokens: new Map(tokens) });

  it('reads usd and last_updated_at, matching contract addresses in any case', () => {
    const answer = readAnswer(
      {
        bitcoin: { usd: 67187.3358936566, last_updated_at: 1711356300 },
        [USDC.toUpperCase().replace('0X', '0x')]: { usd: 0.9998, last_updated_at: 1711356290 },
        unasked: { usd: 1, last_updated_at: 1711356300 },
      },
      request([
        ['bitcoin', 'bitcoin'],
        [USDC, `ethereum-${USDC}`],
      ]),
      NOW,
    );
    expect(answer).toEqual({
      quotes: [
        { tokenId: 'bitcoin', usd: '67187.3358936566', at: '2024-03-25T08:45:00.000Z' },
        { tokenId: `ethereum-${USDC}`, usd: '0.9998', at: '2024-03-25T08:44:50.000Z' },
      ],
      rejected: [],
      unknown: [],
    });
  });

  it('takes the key as it was sent before one in another case (Solana mints differ by case)', () => {
    const answer = readAnswer(
      { AbC: { usd: 1, last_updated_at: NOW_SECONDS }, abc: { usd: 2, last_updated_at: NOW_SECONDS } },
      request([
        ['abc', 'lower'],
        ['AbC', 'mixed'],
        ['ABC', 'upper'],
      ]),
      NOW,
    );
    expect(answer.quotes.map((quote) => [quote.tokenId, quote.usd])).toEqual([
      ['lower', '2'],
      ['mixed', '1'],
      ['upper', '2'],
    ]);
  });

  it('lists tokens the source leaves out as unknown', () => {
    expect(readAnswer({}, request([['no-such-coin', 'no-such-coin']]), NOW)).toEqual({
      quotes: [],
      rejected: [],
      unknown: ['no-such-coin'],
    });
  });

  it.each([
    ['a negative price', { usd: -1, last_updated_at: NOW_SECONDS }, 'not above 0'],
    ['a zero price', { usd: 0, last_updated_at: NOW_SECONDS }, 'not above 0'],
    ['a price as text', { usd: '3000', last_updated_at: NOW_SECONDS }, 'not a number'],
    ['NaN as text', { usd: 'NaN', last_updated_at: NOW_SECONDS }, 'not a number'],
    ['a null price', { usd: null, last_updated_at: NOW_SECONDS }, 'not a number'],
    ['an overflowing price', { usd: JSON.parse('1e999') as number, last_updated_at: NOW_SECONDS }, 'not a number'],
    ['a price of a quadrillion', { usd: 1e15, last_updated_at: NOW_SECONDS }, 'above'],
    ['no timestamp', { usd: 1 }, 'last_updated_at is missing'],
    ['a timestamp in milliseconds', { usd: 1, last_updated_at: NOW }, 'not a plausible time'],
    ['a timestamp before 2009', { usd: 1, last_updated_at: 86_400 }, 'not a plausible time'],
    ['an entry that is not an object', 42, 'not an object'],
  ])('rejects %s and keeps the other entries', (_case, entry, reason) => {
    const answer = readAnswer(
      { bad: entry, good: { usd: 2, last_updated_at: NOW_SECONDS } },
      request([
        ['bad', 'bad'],
        ['good', 'good'],
      ]),
      NOW,
    );
    expect(answer.quotes).toEqual([{ tokenId: 'good', usd: '2', at: new Date(NOW).toISOString() }]);
    expect(answer.rejected).toEqual([{ tokenId: 'bad', reason: expect.stringContaining(reason) }]);
  });

  it.each([
    ['an array', [1, 2]],
    ['null', null],
    ['a number', 3],
    ['text', 'rate limited'],
  ])('refuses %s as a whole answer', (_case, body) => {
    expect(() => readAnswer(body, request([['bitcoin', 'bitcoin']]), NOW)).toThrow(MalformedAnswer);
  });
});
