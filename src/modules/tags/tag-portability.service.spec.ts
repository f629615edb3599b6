import { Readable } from 'node:stream';
import { ApiError } from '../../core/errors';
import { limitBytes } from './tag-portability.service';

describe('the import body limit', () => {
  const read = async (chunks: (string | Buffer)[], maxBytes: number) => {
    const seen: (string | Buffer)[] = [];
    for await (const chunk of limitBytes(Readable.from(chunks), maxBytes)) seen.push(chunk);
    return seen;
  };

  it('passes a body of up to the limit through as it is', async () => {
    await expect(read(['abc', Buffer.from('de')], 5)).resolves.toEqual(['abc', Buffer.from('de')]);
  });

  it('fails with 413 PAYLOAD_TOO_LARGE at the chunk that passes the limit, counting bytes, not characters', async () => {
    const error = await read(['ab', 'é'], 3).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('PAYLOAD_TOO_LARGE');
    expect((error as ApiError).status).toBe(413);
  });
});
