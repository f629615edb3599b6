import { beginCell } from '@ton/core';
import { shardsOverlap, stackCell, stackNumber } from './toncenter-shapes';

describe('toncenter shapes', () => {
  it('tells whether two shards cover common accounts, across splits', () => {
    const whole = '-9223372036854775808'; // 0x8000000000000000: the whole workchain
    const left = '4611686018427387904'; // 0x4000000000000000: prefix 0
    const right = '-4611686018427387904'; // 0xc000000000000000: prefix 1
    const leftLeft = '2305843009213693952'; // 0x2000000000000000: prefix 00
    expect(shardsOverlap(whole, left)).toBe(true);
    expect(shardsOverlap(left, right)).toBe(false);
    expect(shardsOverlap(leftLeft, left)).toBe(true);
    expect(shardsOverlap(leftLeft, right)).toBe(false);
  });

  it('reads numbers and cells of the legacy get-method stack', () => {
    expect(stackNumber(['num', '0x3e8'])).toBe(1000n);
    expect(stackNumber(['num', '-0x1'])).toBe(-1n);
    const cell = beginCell().storeUint(7, 8).endCell();
    expect(stackCell(['cell', { bytes: cell.toBoc().toString('base64') }]).equals(cell)).toBe(true);
    expect(() => stackNumber(['cell', {}])).toThrow(/expected a number/);
  });
});
