import { hex } from '@scure/base';
import { canonicalAddressOnChain, parseTokenAddress } from '../../../core/addresses';
import type { ChainId } from '../../../core/chains/chain-ids';
import { parseInstant } from '../../../core/time/instant';
import { CheckedValues, MAX_REMEMBERED } from './checked-values';

const evm = (seed: number) => `0x${hex.encode(Uint8Array.from({ length: 20 }, (_v, i) => (i * 31 + seed) & 0xff))}`;

// Each valid somewhere and not everywhere, and a few valid nowhere.
const INPUTS = [
  evm(1),
  evm(2).toUpperCase().replace('0X', '0x'),
  '0x52908400098527886E0F7030069857D2E4169EE7', // a checksum that does not match
  '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2',
  '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3', // one character changed
  'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
  'qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a',
  'DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L',
  '',
  'not an address',
  '0',
];
const CHAINS: ChainId[] = ['ethereum', 'bitcoin', 'bitcoincash', 'dogecoin', 'solana', 'base'];

describe('CheckedValues', () => {
  it('answers what the parsers answer, per chain, the first time and from memory', () => {
    const checked = new CheckedValues();
    for (const pass of [1, 2]) {
      for (const chain of CHAINS) {
        for (const input of INPUTS) {
          const where = `pass ${pass}, ${chain}, ${JSON.stringify(input)}`;
          expect([where, checked.address(input, chain)]).toEqual([where, canonicalAddressOnChain(input, chain)]);
          expect([where, checked.tokenAddress(input, chain)]).toEqual([where, parseTokenAddress(chain, input)]);
        }
      }
    }
    // The same string is valid on one chain and not on another: remembered per chain.
    expect(checked.address(evm(1), 'ethereum').ok).toBe(true);
    expect(checked.address(evm(1), 'bitcoin').ok).toBe(false);
  });

  it('keeps answering rightly once a chain has forgotten what it held', () => {
    const checked = new CheckedValues();
    const count = MAX_REMEMBERED + 50;
    for (let i = 0; i < count; i += 1) {
      const input = `0x${i.toString(16).padStart(40, '0')}`;
      const answer = checked.address(input, 'ethereum');
      expect(answer.ok && answer.address.canonical).toBe(input);
    }
    expect(checked.address('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3', 'ethereum').ok).toBe(false);
    expect(checked.address(evm(3), 'ethereum')).toEqual(canonicalAddressOnChain(evm(3), 'ethereum'));
  });

  it('answers what parseInstant answers for timestamps in and out of order', () => {
    const checked = new CheckedValues();
    const inputs = [
      '2024-06-01T00:00:00Z',
      '2024-06-01T00:00:00Z',
      '2024-06-01T00:00:00.5Z',
      '2024-02-30T00:00:00Z',
      '2024-02-30T00:00:00Z',
      '2024-06-01T00:00:00Z',
      '2024-06-01 00:00:00Z',
      1717200000,
      undefined,
      '2024-06-01T00:00:00Z',
    ];
    expect(inputs.map((input) => checked.instant(input))).toEqual(inputs.map((input) => parseInstant(input)));
  });
});
