import { Injectable } from '@nestjs/common';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError } from '../../core/errors';
import { MAX_TAGS_PER_ADDRESS } from '../../core/tags/tag-rules';
import { ByteSource, readLineBatches } from '../../core/text/line-reader';
import {
  csvRows,
  CSV_HEADER,
  isCsvHeader,
  ndjsonLine,
  parseCsvLine,
  parseNdjsonLine,
  parseTagPack,
  TagFileEntry,
  TagFileFormat,
  TagPair,
} from './portability/tag-files';
import { ImportCounts, ImportMode, MAX_CAP_DETAILS, TagPortabilityRepository } from './tag-portability.repository';

/** The export's two formats. */
export type ExportFormat = 'ndjson' | 'csv';

/** The answer of an import: its counts, the entries skipped (TagPack currencies) and whether it was a dry run. */
export interface ImportReport extends ImportCounts {
  skipped: number;
  dry_run: boolean;
}

export interface ImportOptions {
  mode: ImportMode;
  dryRun: boolean;
  /** Who imports, for the history: an API key's first 12 characters, or `cli`. */
  key: string;
  /** The most bytes the input may have (the HTTP body limit); none for a file on the command line. */
  maxBytes?: number;
}

/** Bad lines an answer names at most. */
export const MAX_BAD_LINES = 100;
/** The largest body POST /v2/import/tags takes. */
export const MAX_IMPORT_BYTES = 100 * 1024 * 1024;
export const IMPORT_TOO_LARGE = 'The import is larger than 100 MiB.';

/**
 * GET /v2/export/tags and POST /v2/import/tags, and their commands.
 *
 * An import reads its input twice over, never whole in memory: first it checks every line and
 * writes the (address, tag) pairs of a valid file to a temporary file, so that a file with bad
 * lines is refused before the database is touched and the transaction does not wait on a slow
 * client; then the repository reads that file back into the database in one transaction. A TagPack
 * is one YAML document and is parsed whole (its size is bounded like any body's).
 */
@Injectable()
export class TagPortabilityService {
  constructor(private readonly portability: TagPortabilityRepository) {}

  /** The account's tags as the format's text, a page of addresses per chunk, read as the consumer asks. */
  async *export(accountId: number, format: ExportFormat): AsyncGenerator<string> {
    if (format === 'csv') yield `${CSV_HEADER}\n`;
    const line = format === 'csv' ? csvRows : ndjsonLine;
    for await (const page of this.portability.exportPages(accountId)) {
      yield page.map((entry) => line(entry.address, entry.tags)).join('');
    }
  }

  async import(
    accountId: number,
    input: ByteSource,
    format: TagFileFormat,
    options: ImportOptions,
  ): Promise<ImportReport> {
    const bounded = options.maxBytes === undefined ? input : limitBytes(input, options.maxBytes);
    const spool = await mkdtemp(join(tmpdir(), 'chaintags-import-'));
    try {
      const path = join(spool, 'pairs.tsv');
      const { skipped } = await checkAndSpool(bounded, format, path);
      const outcome = await this.portability.importPairs(
        accountId,
        () => spooledPairs(path),
        { mode: options.mode, dryRun: options.dryRun },
        MAX_TAGS_PER_ADDRESS,
        { key: options.key, now: new Date().toISOString() },
      );
      if (!outcome.ok) {
        throw new ApiError(
          'TAG_LIMIT_EXCEEDED',
          `An address can carry at most ${MAX_TAGS_PER_ADDRESS} tags; with this file ${outcome.overLimit.length === MAX_CAP_DETAILS ? 'at least ' : ''}${outcome.overLimit.length} would carry more. Nothing was changed.`,
          outcome.overLimit,
        );
      }
      return { ...outcome.counts, skipped, dry_run: options.dryRun };
    } finally {
      await rm(spool, { recursive: true, force: true });
    }
  }
}

/**
 * Checks every entry; writes the pairs of the valid ones to `path`, one `address<TAB>tag` line
 * each. Any bad entry: 400 INVALID_BODY naming the first MAX_BAD_LINES of them by line.
 */
async function checkAndSpool(input: ByteSource, format: TagFileFormat, path: string): Promise<{ skipped: number }> {
  const out = createWriteStream(path);
  let failed: Error | undefined;
  // Heard here so that it cannot go unhandled; a wait for 'drain' hears it too.
  out.on('error', (error: Error) => (failed = error));
  const closed = once(out, 'close');
  const bad: { line: number; message: string }[] = [];
  let badCount = 0;
  let skipped = 0;
  let sawInput = false;
  try {
    for await (const entries of fileEntries(input, format, () => (sawInput = true))) {
      let text = '';
      for (const entry of entries) {
        if ('problem' in entry) {
          badCount += 1;
          if (bad.length < MAX_BAD_LINES) bad.push({ line: entry.line, message: entry.problem });
        } else if ('skipped' in entry) {
          skipped += 1;
        } else if (badCount === 0) {
          for (const pair of entry.pairs) text += `${pair.address}\t${pair.tag}\n`;
        }
      }
      if (text !== '' && !out.write(text)) await once(out, 'drain');
    }
  } finally {
    out.end();
    await closed;
  }
  if (failed !== undefined) throw failed;
  if (!sawInput) throw new ApiError('INVALID_BODY', 'The file is empty: nothing to import.');
  if (badCount > 0) {
    throw new ApiError(
      'INVALID_BODY',
      `${badCount} ${badCount === 1 ? 'line is' : 'lines are'} not valid${badCount > MAX_BAD_LINES ? ` (the first ${MAX_BAD_LINES} are listed)` : ''}; nothing was imported.`,
      bad,
    );
  }
  return { skipped };
}

/** The file's entries, a batch per chunk of input; `onInput` hears of the first byte. */
async function* fileEntries(
  input: ByteSource,
  format: TagFileFormat,
  onInput: () => void,
): AsyncGenerator<TagFileEntry[]> {
  if (format === 'tagpack') {
    const parts: Buffer[] = [];
    for await (const chunk of input) parts.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
    const text = Buffer.concat(parts).toString('utf8');
    if (text.length === 0) return;
    onInput();
    yield parseTagPack(text.startsWith('\uFEFF') ? text.slice(1) : text);
    return;
  }
  let header = format === 'csv';
  let sawLines = false;
  for await (const lines of readLineBatches(input)) {
    onInput();
    sawLines = true;
    const entries: TagFileEntry[] = [];
    for (const line of lines) {
      if (!('text' in line)) {
        entries.push({ line: line.number, problem: 'line too long' });
        continue;
      }
      if (header) {
        if (line.text.trim() === '') continue;
        header = false;
        if (!isCsvHeader(line.text))
          entries.push({ line: line.number, problem: `the first line must be "${CSV_HEADER}"` });
        continue;
      }
      const entry = format === 'csv' ? parseCsvLine(line.number, line.text) : parseNdjsonLine(line.number, line.text);
      if (entry !== undefined) entries.push(entry);
    }
    yield entries;
  }
  if (header && sawLines) yield [{ line: 1, problem: `the first line must be "${CSV_HEADER}"` }];
}

/** The spooled pairs, a batch per chunk read. */
async function* spooledPairs(path: string): AsyncGenerator<TagPair[]> {
  for await (const lines of readLineBatches(createReadStream(path))) {
    const pairs: TagPair[] = [];
    for (const line of lines) {
      if (!('text' in line) || line.text === '') continue;
      const tab = line.text.indexOf('\t');
      pairs.push({ address: line.text.slice(0, tab), tag: line.text.slice(tab + 1) });
    }
    yield pairs;
  }
}

/** The input, failing with 413 PAYLOAD_TOO_LARGE as soon as it passes `maxBytes`. */
export async function* limitBytes(input: ByteSource, maxBytes: number): AsyncGenerator<Buffer | string> {
  let total = 0;
  for await (const chunk of input) {
    total += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    if (total > maxBytes) throw new ApiError('PAYLOAD_TOO_LARGE', IMPORT_TOO_LARGE);
    yield chunk;
  }
}
