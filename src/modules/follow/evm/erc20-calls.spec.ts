import { encodeAbiParameters, stringToHex } from 'viem';
import { balanceOfData, readText, readWord } from './erc20-calls';

describe('ERC-20 call answers', () => {
  it('encodes balanceOf(owner) with the owner padded to a word', () => {
    expect(balanceOfData('0x00000000000000000000000000000000000000AB')).toBe('0x70a08231' + '0'.repeat(62) + 'ab');
  });

  it('reads the first word of a uint answer, nothing from a short one', () => {
    expect(readWord(encodeAbiParameters([{ type: 'uint256' }], [10n ** 30n]))).toBe(10n ** 30n);
    expect(readWord(encodeAbiParameters([{ type: 'uint8' }], [18]) + 'ff'.repeat(32))).toBe(18n);
    expect(readWord('0x')).toBe(undefined);
    expect(readWord('0x1234')).toBe(undefined);
  });

  it('reads an ABI string', () => {
    expect(readText(encodeAbiParameters([{ type: 'string' }], ['Wrapped Ether']))).toBe('Wrapped Ether');
    expect(readText(encodeAbiParameters([{ type: 'string' }], ['']))).toBe('');
    expect(readText(encodeAbiParameters([{ type: 'string' }], ['Ünïcødé 🚀']))).toBe('Ünïcødé 🚀');
  });

  it('reads a bytes32 answer as text without its padding', () => {
    expect(readText(stringToHex('MKR', { size: 32 }))).toBe('MKR');
    expect(readText(stringToHex('Maker', { size: 32 }))).toBe('Maker');
  });

  it('reads nothing from empty, malformed or out-of-bounds answers', () => {
    expect(readText('0x')).toBe('');
    expect(readText('0x1234')).toBe('');
    expect(readText('not hex')).toBe('');
    // An offset past the end, and a length past the end.
    expect(readText('0x' + (2n ** 200n).toString(16).padStart(64, '0') + '0'.repeat(64))).toBe('');
    expect(readText('0x' + '20'.padStart(64, '0') + 'ff'.padStart(64, '0') + '41'.padEnd(64, '0'))).toBe('');
  });

  it('replaces bytes that are not UTF-8', () => {
    expect(readText('0x' + 'ff41'.padEnd(64, '0'))).toBe('\ufffdA');
  });
});
