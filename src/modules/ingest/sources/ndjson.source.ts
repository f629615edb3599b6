import type { RecordInput } from '../../../core/records/record-input';
import { ByteSource, MAX_LINE_BYTES, readLineBatches, SourceLine } from '../../../core/text/line-reader';
import type { SourceBatch, SourceItem } from './record-source';

/**
 * An NDJSON file or stream (contract §8) as a record source: one batch per chunk read, each line's
 * JSON object a record at its line number. Blank lines are skipped but counted; a line that is not
 * JSON, or longer than MAX_LINE_BYTES, is a problem at its line. What the objects contain is left
 * to validation, which every source's records go through.
 */
export async function* ndjsonSource(bytes: ByteSource): AsyncGenerator<SourceBatch> {
  for await (const lines of readLineBatches(bytes)) {
    const items: SourceItem[] = [];
    for (const line of lines) {
      const item = toItem(line);
      if (item !== undefined) items.push(item);
    }
    yield { items, end: lines[lines.length - 1]!.number };
  }
}

function toItem(line: SourceLine): SourceItem | undefined {
  if ('tooLong' in line) {
    return { position: line.number, problem: `line is longer than ${MAX_LINE_BYTES / (1024 * 1024)} MiB` };
  }
  if (line.text.trim() === '') return undefined;
  try {
    // Only validation may say what the object holds: it checks every field, its JavaScript type included.
    return { position: line.number, record: JSON.parse(line.text) as RecordInput };
  } catch (error) {
    return {
      position: line.number,
      problem: `not valid JSON (${error instanceof Error ? error.message : String(error)})`,
    };
  }
}
