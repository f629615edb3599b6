import fc from 'fast-check';
import { parseDecimal, totalUsd, worthAtLeast } from './valuation';

describe('parseDecimal', () => {
  it('keeps every digit as an integer and a scale', () => {
    expect(parseDecimal('0.99985')).toEqual({ units: 99985n, scale: 5 });
    expect(parseDecimal('65000.120000')).toEqual({ units: 6500012n, scale: 2 });
    expect(parseDecimal('3')).toEqual({ units: 3n, scale: 0 });
  });

  it('refuses exponents and signs', () => {
    expect(() => parseDecimal('1e-7')).toThrow();
    expect(() => parseDecimal('-1')).toThrow();
  });
});

describe('totalUsd', () => {
  it('values balances by their own decimals and rounds once at the end', () => {
    expect(
      totalUsd([
        { balance: '1500000', decimals: 6, usd: '1' }, // 1.5 USDT on ethereum
        { balance: '2500000000000000000', decimals: 18, usd: '1' }, // 2.5 USDT on bnb
        { balance: '100000000', decimals: 8, usd: '65000.125' }, // 1 BTC
      ]),
    ).toBe(65004.13);
  });

  it('adds fractions of a cent before rounding rather than after', () => {
    const third = { balance: '3333', decimals: 6, usd: '1' }; // 0.003333 each: 0.00 alone, 0.01 for three
    expect(totalUsd([third])).toBe(0);
    expect(totalUsd([third, third, third])).toBe(0.01);
  });

  it('stays exact for 78-digit balances', () => {
    const balance = '9'.repeat(78);
    expect(totalUsd([{ balance, decimals: 72, usd: '1' }])).toBe(1_000_000);
  });

  it('ignores positions without a price', () => {
    expect(totalUsd([{ balance: '5', decimals: 0, usd: undefined }])).toBe(0);
  });

  it('matches a cent-exact BigInt computation for arbitrary positions', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ whole: fc.bigInt({ min: 0n, max: 10n ** 12n }), cents: fc.integer({ min: 0, max: 99 }) }),
          {
            maxLength: 8,
          },
        ),
        (amounts) => {
          // Balances of a 2-decimal token priced at 1 are their own cent values, so the sum is known exactly.
          const positions = amounts.map(({ whole, cents }) => ({
            balance: String(whole * 100n + BigInt(cents)),
            decimals: 2,
            usd: '1',
          }));
          const expected = amounts.reduce((sum, { whole, cents }) => sum + whole * 100n + BigInt(cents), 0n);
          expect(totalUsd(positions)).toBe(Number(expected) / 100);
        },
      ),
    );
  });
});

describe('worthAtLeast', () => {
  it.each([
    // 1 ETH at 3000.5 USD
    ['1000000000000000000', 18, '3000.5', '3000.5', true],
    ['1000000000000000000', 18, '3000.5', '3000.51', false],
    // 0.01 ETH at 3000 USD: 30 USD
    ['10000000000000000', 18, '3000', '30', true],
    ['9999999999999999', 18, '3000', '30', false],
    // 100 USDT (6 decimals) at 0.999
    ['100000000', 6, '0.999', '99.9', true],
    ['100000000', 6, '0.999', '99.91', false],
    // no price: worth 0
    ['5000000', 6, undefined, '0', true],
    ['5000000', 6, undefined, '0.01', false],
    ['0', 18, '3000', '0', true],
  ])('%s (%d decimals) at %s against %s: %s', (amount, decimals, usd, minimum, expected) => {
    expect(worthAtLeast(amount, decimals, usd, minimum)).toBe(expected);
  });

  it('agrees with the value totalUsd rounds to cents, away from the cent boundary', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 30n }),
        fc.integer({ min: 0, max: 24 }),
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.integer({ min: 0, max: 1_000_000_000 }),
        (amount, decimals, priceCents, minimumCents) => {
          const usd = (priceCents / 100).toFixed(2);
          const minimum = (minimumCents / 100).toFixed(2);
          const total = totalUsd([{ balance: amount.toString(), decimals, usd }]);
          // totalUsd rounds to cents: only a total a cent or more away from the minimum decides.
          fc.pre(Math.abs(total - minimumCents / 100) >= 0.01);
          expect(worthAtLeast(amount.toString(), decimals, usd, minimum)).toBe(total >= minimumCents / 100);
        },
      ),
    );
  });
});
