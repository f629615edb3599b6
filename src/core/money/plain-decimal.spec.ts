import fc from 'fast-check';
import { plainDecimal } from './plain-decimal';

describe('plainDecimal', () => {
  it.each([
    [0, '0'],
    [-0, '0'],
    [1.5, '1.5'],
    [100, '100'],
    [3120.55, '3120.55'],
    [123456.789, '123456.789'],
    [1e-7, '0.0000001'],
    [1.25e-10, '0.000000000125'],
    [1.23e-12, '0.00000000000123'],
    [1e21, '1000000000000000000000'],
    [2.5e21, '2500000000000000000000'],
    [1.5e22, '15000000000000000000000'],
  ])('writes %p as %p', (value, text) => {
    expect(plainDecimal(value)).toBe(text);
  });

  it('reads back as the same number, always in plain decimal notation', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e30, noNaN: true }), (value) => {
        const text = plainDecimal(value);
        expect(text).toMatch(/^(0|[1-9]\d*)(\.\d*[1-9])?$/);
        expect(Number(text)).toBe(value);
      }),
    );
  });
});
