import { metaplexNameAndSymbol } from './token-metadata';

function borsh(text: string, padTo: number): Buffer {
  const bytes = Buffer.alloc(4 + padTo);
  bytes.writeUInt32LE(padTo, 0);
  Buffer.from(text, 'utf8').copy(bytes, 4);
  return bytes;
}

describe('metaplexNameAndSymbol', () => {
  const head = Buffer.alloc(1 + 32 + 32, 7);

  it('reads name and symbol after the key, authority and mint, without their NUL padding', () => {
    const data = Buffer.concat([head, borsh('Wrapped Ünïcode', 32), borsh('WUC', 10), borsh('', 200)]);
    expect(metaplexNameAndSymbol(data)).toEqual({ name: 'Wrapped Ünïcode', symbol: 'WUC' });
  });

  it('answers undefined for data too short to hold them', () => {
    expect(metaplexNameAndSymbol(head)).toBeUndefined();
    expect(metaplexNameAndSymbol(Buffer.concat([head, borsh('Name', 32)]))).toBeUndefined();
    const cut = Buffer.concat([head, borsh('Name', 32), borsh('SYM', 10)]).subarray(0, head.length + 36 + 6);
    expect(metaplexNameAndSymbol(cut)).toBeUndefined();
  });
});
