import { Readable } from 'node:stream';
import { MAX_LINE_BYTES } from '../../../core/text/line-reader';
import { ndjsonSource } from './ndjson.source';
import type { SourceBatch } from './record-source';

async function batches(chunks: (string | Buffer)[]): Promise<SourceBatch[]> {
  const result: SourceBatch[] = [];
  for await (const batch of ndjsonSource(Readable.from(chunks))) result.push(batch);
  return result;
}

describe('ndjsonSource', () => {
  it('yields the lines each chunk completes as one batch, each object at its line number', async () => {
    expect(await batches(['{"type":"price"}\n{"a":', '1}\n\n[2]\n', '{"b":3}'])).toEqual([
      { items: [{ position: 1, record: { type: 'price' } }], end: 1 },
      {
        items: [
          { position: 2, record: { a: 1 } },
          { position: 4, record: [2] },
        ],
        end: 4,
      },
      { items: [{ position: 5, record: { b: 3 } }], end: 5 },
    ]);
  });

  it('counts blank lines without yielding them, so the last position is the last line number', async () => {
    expect(await batches(['{"x":1}\n \n\r\n\n'])).toEqual([{ items: [{ position: 1, record: { x: 1 } }], end: 4 }]);
  });

  it('reports a line that is not JSON, or too long, as a problem at its line and goes on', async () => {
    const long = `{"name":"${'x'.repeat(MAX_LINE_BYTES)}"}`;
    const [batch] = await batches([`{"type": "holding",\n${long}\n{"ok":true}\n`]);
    expect(batch!.items).toEqual([
      { position: 1, problem: expect.stringMatching(/^not valid JSON \(.+\)$/) },
      { position: 2, problem: 'line is longer than 1 MiB' },
      { position: 3, record: { ok: true } },
    ]);
  });
});
