import { createHash } from 'node:crypto';
import { beginCell, Cell, Dictionary } from '@ton/core';
import { jettonMetadata } from './jetton-content';

function key(name: string): bigint {
  return BigInt(`0x${createHash('sha256').update(name).digest('hex')}`);
}

function onChain(fields: Record<string, Cell>): Cell {
  const dict = Dictionary.empty(Dictionary.Keys.BigUint(256), Dictionary.Values.Cell());
  for (const [name, value] of Object.entries(fields)) dict.set(key(name), value);
  return beginCell().storeUint(0, 8).storeDict(dict).endCell();
}

const snake = (text: string): Cell => beginCell().storeUint(0, 8).storeStringTail(text).endCell();

describe('jettonMetadata (TEP-64)', () => {
  it('reads name, symbol and decimals from on-chain content, snake strings across cells', () => {
    const long = 'A very long Jetton name '.repeat(10).trim();
    expect(jettonMetadata(onChain({ name: snake(long), symbol: snake('VLJ'), decimals: snake('6') }))).toEqual({
      name: long,
      symbol: 'VLJ',
      decimals: 6,
    });
  });

  it('reads chunked strings', () => {
    const chunks = Dictionary.empty(Dictionary.Keys.Uint(32), Dictionary.Values.Cell());
    chunks.set(0, beginCell().storeBuffer(Buffer.from('Chun')).endCell());
    chunks.set(1, beginCell().storeBuffer(Buffer.from('ked')).endCell());
    const chunked = beginCell().storeUint(1, 8).storeDict(chunks).endCell();
    expect(jettonMetadata(onChain({ name: chunked })).name).toBe('Chunked');
  });

  it('gives 9 decimals and no name for off-chain content, missing keys and nonsense', () => {
    const offChain = beginCell().storeUint(1, 8).storeStringTail('https://example.com/jetton.json').endCell();
    expect(jettonMetadata(offChain)).toEqual({ name: undefined, symbol: undefined, decimals: 9 });
    expect(jettonMetadata(onChain({ symbol: snake('ONLY') }))).toEqual({
      name: undefined,
      symbol: 'ONLY',
      decimals: 9,
    });
    expect(jettonMetadata(onChain({ decimals: snake('many') })).decimals).toBe(9);
    expect(jettonMetadata(beginCell().endCell()).decimals).toBe(9);
  });
});
