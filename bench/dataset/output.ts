/**
 * The dataset's files as the generator writes them: `dataset.ndjson` (what `chaintags import`
 * reads) and one COPY CSV per table (the same rows in stored form), counted as they are written.
 */
import { closeSync, openSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { COPY_TABLES, CopyTable, DatasetMeta } from './meta';

export type LineType = 'token' | 'price' | 'holding' | 'transaction';

export class DatasetOutput {
  readonly files: DatasetMeta['files'];
  /** NDJSON lines by type. */
  readonly lines: DatasetMeta['lines'] = { token: 0, price: 0, holding: 0, transaction: 0, total: 0 };
  readonly copyRows = Object.fromEntries(COPY_TABLES.map((table) => [table, 0])) as Record<CopyTable, number>;
  private readonly ndjson: FileWriter;
  private readonly copy: Record<CopyTable, FileWriter>;

  /** Opens the files in `dir`, whose `copy` folder must exist. */
  constructor(dir: string) {
    this.files = {
      ndjson: join(dir, 'dataset.ndjson'),
      copy: Object.fromEntries(COPY_TABLES.map((table) => [table, join(dir, 'copy', `${table}.csv`)])) as Record<
        CopyTable,
        string
      >,
    };
    this.ndjson = new FileWriter(`${this.files.ndjson}.partial`);
    this.copy = Object.fromEntries(
      COPY_TABLES.map((table) => [table, new FileWriter(this.files.copy[table])]),
    ) as Record<CopyTable, FileWriter>;
  }

  /** One NDJSON line, as `chaintags import` reads it. */
  line(type: LineType, record: Record<string, unknown>): void {
    this.ndjson.line(JSON.stringify(record));
    this.lines[type] += 1;
    this.lines.total += 1;
  }

  /** One row of a table's COPY file, in stored form. */
  row(table: CopyTable, values: readonly (string | number)[]): void {
    this.copy[table].line(csv(values));
    this.copyRows[table] += 1;
  }

  /** Flushes and closes every file; the NDJSON takes its name only now, complete. */
  close(): void {
    this.ndjson.close();
    for (const writer of Object.values(this.copy)) writer.close();
    renameSync(`${this.files.ndjson}.partial`, this.files.ndjson);
  }
}

/** Buffered synchronous writes: the generator is a batch job, and one big write beats many small ones. */
class FileWriter {
  private readonly fd: number;
  private chunks: string[] = [];
  private size = 0;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'w');
  }

  line(text: string): void {
    this.chunks.push(text, '\n');
    this.size += text.length + 1;
    if (this.size >= 1 << 20) this.flush();
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }

  private flush(): void {
    if (this.chunks.length === 0) return;
    writeSync(this.fd, this.chunks.join(''));
    this.chunks = [];
    this.size = 0;
  }
}

/** One CSV line as PostgreSQL's COPY reads it: a value with a quote, comma or line break is quoted. */
function csv(values: readonly (string | number)[]): string {
  return values
    .map((value) => {
      const text = String(value);
      return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
    })
    .join(',');
}
