/** Lines longer than this are reported as invalid without being kept in memory. */
export const MAX_LINE_BYTES = 1024 * 1024;

/** A file or stdin stream, or anything else that yields text or bytes (tests pass arrays). */
export type ByteSource = AsyncIterable<Buffer | string> | Iterable<Buffer | string>;

export type SourceLine = { number: number; text: string } | { number: number; tooLong: true };

const NEWLINE = 0x0a;

/**
 * Splits a byte stream into numbered lines (LF or CRLF), holding at most one line of up to
 * `maxBytes` in memory whatever the size of the input; the rest of an over-long line is skipped
 * as it streams past. Splitting on the LF byte is safe for UTF-8, where no multi-byte character
 * contains it. A byte order mark at the start is dropped. Reading waits while the consumer works,
 * so a slow database throttles the file read rather than buffering it.
 *
 * Yields the lines each chunk completes, together, so that the consumer does not pay an await per
 * line; a chunk that completes none yields nothing.
 */
export async function* readLineBatches(
  source: ByteSource,
  maxBytes: number = MAX_LINE_BYTES,
): AsyncGenerator<SourceLine[]> {
  let parts: Buffer[] = [];
  let size = 0;
  let tooLong = false;
  let number = 0;

  const take = (): SourceLine => {
    number += 1;
    const line: SourceLine = tooLong ? { number, tooLong: true } : { number, text: decode(parts, size, number) };
    parts = [];
    size = 0;
    tooLong = false;
    return line;
  };

  for await (const chunk of source) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    const lines: SourceLine[] = [];
    let start = 0;
    while (start <= bytes.length) {
      const end = bytes.indexOf(NEWLINE, start);
      const piece = bytes.subarray(start, end < 0 ? bytes.length : end);
      if (!tooLong && size + piece.length > maxBytes) {
        tooLong = true;
        parts = [];
        size = 0;
      }
      if (!tooLong && piece.length > 0) {
        parts.push(piece);
        size += piece.length;
      }
      if (end < 0) break;
      lines.push(take());
      start = end + 1;
    }
    if (lines.length > 0) yield lines;
  }
  if (size > 0 || tooLong) yield [take()];
}

/** The same lines one at a time. */
export async function* readLines(source: ByteSource, maxBytes: number = MAX_LINE_BYTES): AsyncGenerator<SourceLine> {
  for await (const lines of readLineBatches(source, maxBytes)) yield* lines;
}

function decode(parts: Buffer[], size: number, number: number): string {
  let text = Buffer.concat(parts, size).toString('utf8');
  if (text.endsWith('\r')) text = text.slice(0, -1);
  if (number === 1 && text.startsWith('\uFEFF')) text = text.slice(1);
  return text;
}
