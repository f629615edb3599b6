import { isMap, isSeq, LineCounter, parseDocument } from 'yaml';
import { canonicalAddressOnChain, parseAddress } from '../../../core/addresses';
import type { ChainId } from '../../../core/chains/chain-ids';
import { isValidTag, TAG_RULE, UNTAGGED } from '../../../core/tags/tag-rules';

/**
 * The files of GET /v2/export/tags and POST /v2/import/tags, pure: each line (or TagPack entry)
 * becomes (address, tag) pairs, a problem naming what is wrong, or a skip. Addresses come out
 * canonical; tags satisfy the tag rule, `0` standing for "tracked without a tag".
 */
export type TagFileFormat = 'ndjson' | 'csv' | 'tagpack';

export interface TagPair {
  address: string;
  tag: string;
}

/** What one line (or TagPack entry) of a file holds; `line` counts from 1. */
export type TagFileEntry =
  { line: number; pairs: TagPair[] } | { line: number; problem: string } | { line: number; skipped: string };

/** The export's CSV header, which an imported CSV file must start with. */
export const CSV_HEADER = 'address,tag';

// ---------------------------------------------------------------------------------------------
// Writing.

/** One NDJSON line of the export: the address and its tags, sorted (`["0"]` when it has none). */
export function ndjsonLine(address: string, tags: readonly string[]): string {
  return `${JSON.stringify({ address, tags: tags.length === 0 ? [UNTAGGED] : tags })}\n`;
}

/** The CSV rows of one address: one per tag, `0` when it has none. Neither field ever needs quoting. */
export function csvRows(address: string, tags: readonly string[]): string {
  return (tags.length === 0 ? [UNTAGGED] : tags).map((tag) => `${address},${tag}\n`).join('');
}

// ---------------------------------------------------------------------------------------------
// Reading the export's formats, a line at a time.

/** One NDJSON line: `{"address": …, "tags": [...]}`; undefined for a blank line. */
export function parseNdjsonLine(line: number, text: string): TagFileEntry | undefined {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { line, problem: 'not a JSON object' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { line, problem: 'not a JSON object' };
  const record = value as Record<string, unknown>;
  const unknown = Object.keys(record).filter((key) => key !== 'address' && key !== 'tags');
  if (unknown.length > 0) return { line, problem: `unknown field "${unknown[0]}": a line has "address" and "tags"` };
  if (typeof record.address !== 'string') return { line, problem: '"address" must be a string' };
  const { tags } = record;
  if (!Array.isArray(tags) || tags.length === 0 || tags.some((tag) => typeof tag !== 'string')) {
    return { line, problem: '"tags" must be a non-empty array of strings ("0" for tracked without a tag)' };
  }
  return pairsOf(line, record.address, tags as string[]);
}

/**
 * One CSV line after the header: `address,tag`. Fields may be quoted as RFC 4180 says (`"…"`, `""`
 * for a quote); neither an address nor a tag has a comma, a quote or a line break in it, so a
 * quoted field holding one is a bad line like any other.
 */
export function parseCsvLine(line: number, text: string): TagFileEntry | undefined {
  if (text.trim() === '') return undefined;
  const fields = splitCsv(text);
  if (fields === undefined) return { line, problem: 'unbalanced quotes' };
  if (fields.length !== 2) return { line, problem: `expected 2 fields (${CSV_HEADER}), found ${fields.length}` };
  const [address = '', tag = ''] = fields.map((field) => field.trim());
  return pairsOf(line, address, [tag]);
}

/** Whether a CSV file's first line is the export's header. */
export function isCsvHeader(text: string): boolean {
  const fields = splitCsv(text);
  return fields !== undefined && fields.map((field) => field.trim().toLowerCase()).join(',') === CSV_HEADER;
}

function splitCsv(text: string): string[] | undefined {
  const fields: string[] = [];
  let index = 0;
  for (;;) {
    let field = '';
    if (text[index] === '"') {
      index += 1;
      for (;;) {
        const quote = text.indexOf('"', index);
        if (quote < 0) return undefined;
        field += text.slice(index, quote);
        index = quote + 1;
        if (text[index] !== '"') break;
        field += '"';
        index += 1;
      }
      const comma = text.indexOf(',', index);
      const rest = text.slice(index, comma < 0 ? text.length : comma);
      if (rest.trim() !== '') return undefined;
      fields.push(field);
      if (comma < 0) return fields;
      index = comma + 1;
    } else {
      const comma = text.indexOf(',', index);
      fields.push(text.slice(index, comma < 0 ? text.length : comma));
      if (comma < 0) return fields;
      index = comma + 1;
    }
  }
}

function pairsOf(line: number, input: string, tags: readonly string[]): TagFileEntry {
  const parsed = parseAddress(input);
  if (!parsed.ok) return { line, problem: `"${input.slice(0, 128)}" is ${parsed.reason}` };
  const bad = tags.find((tag) => !isValidTag(tag));
  if (bad !== undefined) return { line, problem: `"${bad.slice(0, 128)}" is not a tag. ${TAG_RULE}` };
  const address = parsed.address.canonical;
  return { line, pairs: [...new Set(tags)].map((tag) => ({ address, tag })) };
}

// ---------------------------------------------------------------------------------------------
// GraphSense TagPacks.

/**
 * The TagPack `currency` codes chaintags follows, and the chain each one's addresses must be valid
 * on. Codes are compared without regard to case; any other code's entries are skipped.
 */
export const TAGPACK_CURRENCIES: Readonly<Record<string, ChainId>> = {
  BTC: 'bitcoin',
  BCH: 'bitcoincash',
  DOGE: 'dogecoin',
  ETH: 'ethereum',
  BNB: 'bnb',
  BSC: 'bnb',
  MATIC: 'polygon',
  POL: 'polygon',
  ARB: 'arbitrum',
  OP: 'optimism',
  BASE: 'base',
  SOL: 'solana',
  TON: 'ton',
  SUI: 'sui',
  APT: 'aptos',
};

/**
 * A TagPack `label` as a tag name: accents dropped (`é` → `e`), lowercased, every run of characters outside `a-z`, `0-9` and
 * `_` replaced by one `_`, `_` trimmed from both ends, cut to 64 characters (and trimmed of `_`
 * again). Undefined when what is left still breaks the tag rule (fewer than 5 characters, or the
 * label was only punctuation): such an entry is a bad line, and the file is refused.
 */
export function labelToTag(label: string): string | undefined {
  const tag = trimUnderscores(
    trimUnderscores(
      label
        .normalize('NFKD')
        .replace(/\p{M}/gu, '')
        .toLowerCase()
        .replace(/[^a-z0-9_]+/g, '_'),
    ).slice(0, 64),
  );
  return tag !== UNTAGGED && isValidTag(tag) ? tag : undefined;
}

function trimUnderscores(text: string): string {
  return text.replace(/^_+|_+$/g, '');
}

const TAGPACK_FIELDS = ['label', 'address', 'currency'] as const;

/**
 * A whole TagPack (YAML): header fields that each entry of `tags` inherits unless it sets them
 * itself; `label`, `address` and `currency` are mandatory once inherited. One entry per item of
 * `tags`, at the line the item starts on. A file that is not YAML, or has no `tags` list, is one
 * problem at the line where that shows.
 */
export function parseTagPack(text: string): TagFileEntry[] {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, schema: 'failsafe' });
  const lineAt = (offset: number | undefined) => (offset === undefined ? 1 : lineCounter.linePos(offset).line);
  if (document.errors.length > 0) {
    return document.errors.map((error) => ({ line: lineAt(error.pos[0]), problem: `not YAML: ${error.message}` }));
  }
  const root = document.contents;
  if (!isMap(root)) return [{ line: 1, problem: 'a TagPack is a YAML mapping with a "tags" list' }];
  const tags = root.get('tags', true);
  if (!isSeq(tags)) return [{ line: lineAt(root.range[0]), problem: 'a TagPack needs a "tags" list' }];
  let header: Record<string, unknown>;
  let items: unknown;
  try {
    header = { ...(document.toJS({ maxAliasCount: 100 }) as Record<string, unknown>) };
    items = header.tags;
    delete header.tags;
  } catch (error) {
    return [{ line: 1, problem: `not a usable TagPack: ${error instanceof Error ? error.message : String(error)}` }];
  }
  const values = items as unknown[];
  return tags.items.map((node, index) => {
    const line = lineAt((node as { range?: [number, number, number] } | null)?.range?.[0]);
    const value = values[index];
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return { line, problem: 'a TagPack tag is a mapping with label, address and currency' };
    }
    return tagPackEntry(line, { ...header, ...(value as Record<string, unknown>) });
  });
}

function tagPackEntry(line: number, fields: Record<string, unknown>): TagFileEntry {
  const missing = TAGPACK_FIELDS.filter((field) => typeof fields[field] !== 'string' || fields[field] === '');
  if (missing.length > 0) return { line, problem: `missing ${missing.join(', ')} (a string, here or in the header)` };
  const { label, address, currency } = fields as Record<(typeof TAGPACK_FIELDS)[number], string>;
  const chain = TAGPACK_CURRENCIES[currency.toUpperCase()];
  if (chain === undefined) return { line, skipped: `currency ${currency} is not followed by chaintags` };
  const tag = labelToTag(label);
  if (tag === undefined) {
    return { line, problem: `label "${label.slice(0, 128)}" makes no tag name. ${TAG_RULE}` };
  }
  const parsed = canonicalAddressOnChain(address, chain);
  if (!parsed.ok) return { line, problem: `"${address.slice(0, 128)}" is not a ${currency} address: ${parsed.reason}` };
  return { line, pairs: [{ address: parsed.address.canonical, tag }] };
}
