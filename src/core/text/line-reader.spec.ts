import { Readable } from 'node:stream';
import { readLines, SourceLine } from './line-reader';

async function collect(chunks: (string | Buffer)[], maxBytes?: number): Promise<SourceLine[]> {
  const lines: SourceLine[] = [];
  for await (const line of readLines(Readable.from(chunks), maxBytes)) lines.push(line);
  return lines;
}

describe('readLines', () => {
  it('numbers LF and CRLF lines, keeps blank ones, and needs no final newline', async () => {
    expect(await collect(['a\r\n\nb', 'c\n', 'd'])).toEqual([
      { number: 1, text: 'a' },
      { number: 2, text: '' },
      { number: 3, text: 'bc' },
      { number: 4, text: 'd' },
    ]);
  });

  it('does not invent a line after a final newline', async () => {
    expect(await collect(['x\n'])).toEqual([{ number: 1, text: 'x' }]);
    expect(await collect([])).toEqual([]);
  });

  it('joins a multi-byte character split between chunks and drops a leading byte order mark', async () => {
    const bytes = Buffer.from('\uFEFF{"name":"Ünïcødé €"}\n', 'utf8');
    const split = bytes.indexOf(Buffer.from('€', 'utf8')) + 1;
    expect(await collect([bytes.subarray(0, split), bytes.subarray(split)])).toEqual([
      { number: 1, text: '{"name":"Ünïcødé €"}' },
    ]);
  });

  it('reports an over-long line without keeping it and goes on with the next', async () => {
    expect(await collect(['12345', '6789\nok\n', 'abcdefghijkl'], 8)).toEqual([
      { number: 1, tooLong: true },
      { number: 2, text: 'ok' },
      { number: 3, tooLong: true },
    ]);
    expect(await collect(['12345678\n'], 8)).toEqual([{ number: 1, text: '12345678' }]);
  });
});
