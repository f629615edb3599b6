import { Catalog } from './catalog';
import type { CanonicalAddress, CanonicalTokenAddress, Instant } from '../../../core/records/brands';
import { HoldingRecord, PriceRecord, TokenRecord } from '../../../core/records/records';

const USDT_ETHEREUM = '0xdac17f958d2ee523a2206206994597c13d831ec7';
const NEW_TOKEN = '0x1111111111111111111111111111111111111111';

function catalog(): Catalog {
  return new Catalog(
    new Map([
      ['ethereum', 1],
      ['bitcoin', -1],
    ]),
    ['tether', 'ethereum'],
    [
      { chain: 'ethereum', address: USDT_ETHEREUM, token_id: 'tether' },
      { chain: 'ethereum', address: '0', token_id: 'ethereum' },
    ],
  );
}

const token = (id: string, address: string): TokenRecord => ({
  type: 'token',
  id,
  name: id,
  symbol: id.toUpperCase(),
  icon_url: 'https://example.com/icon.png',
  deployments: [{ chain: 'ethereum', address: address as CanonicalTokenAddress, decimals: 18 }],
});

const holding = (tokenAddress: string): HoldingRecord => ({
  type: 'holding',
  chain: 'ethereum',
  address: '0x2222222222222222222222222222222222222222' as CanonicalAddress,
  token_address: tokenAddress as CanonicalTokenAddress,
  balance: '1',
  updated_at: '2024-01-01T00:00:00.000Z' as Instant,
});

const price = (tokenId: string): PriceRecord => ({
  type: 'price',
  token_id: tokenId,
  usd: '1',
  at: '2024-01-01T00:00:00.000Z' as Instant,
});

describe('Catalog', () => {
  it('accepts references to what the database holds', () => {
    const known = catalog();
    expect(known.problemWith(holding(USDT_ETHEREUM))).toBeUndefined();
    expect(known.problemWith(price('tether'))).toBeUndefined();
  });

  it('refuses holdings of unknown deployments and prices of unknown tokens until a token line defines them', () => {
    const known = catalog();
    expect(known.problemWith(holding(NEW_TOKEN))).toMatch(/no token is deployed at token_address 0x1111/);
    expect(known.problemWith(price('wrapped-thing'))).toMatch(/unknown token_id "wrapped-thing"/);
    known.learn(token('wrapped-thing', NEW_TOKEN));
    expect(known.problemWith(holding(NEW_TOKEN))).toBeUndefined();
    expect(known.problemWith(price('wrapped-thing'))).toBeUndefined();
  });

  it('refuses a deployment that belongs to another token, in the database or earlier in the file', () => {
    const known = catalog();
    expect(known.problemWith(token('fake-usdt', USDT_ETHEREUM))).toBe(
      `token: ethereum ${USDT_ETHEREUM} already belongs to the token "tether"`,
    );
    expect(known.problemWith(token('tether', USDT_ETHEREUM))).toBeUndefined();
    known.learn(token('first-claim', NEW_TOKEN));
    expect(known.problemWith(token('second-claim', NEW_TOKEN))).toMatch(/already belongs to the token "first-claim"/);
  });

  it('requires a chain line to carry the chain’s own id', () => {
    const chain = {
      type: 'chain' as const,
      chain: 'ethereum' as const,
      name: 'E',
      icon_url: 'https://e',
      explorers: [],
    };
    expect(catalog().problemWith({ ...chain, chainId: 1 })).toBeUndefined();
    expect(catalog().problemWith({ ...chain, chainId: 5 })).toBe('chain: chainId of ethereum is 1, not 5');
  });
});
