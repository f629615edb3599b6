import { arrayLiteral } from './array-literal';

/**
 * The two databases chaintags runs on. Defined here, below dialect.ts, because rendering a fragment
 * is where the dialects first part ways (`$n` or `?`); everything else that differs is in dialect.ts.
 */
export type Dialect = 'postgres' | 'sqlite';

/**
 * A piece of SQL with its values beside the text, written as a tagged template:
 *
 *   sql`SELECT address FROM address_tags WHERE tag_id = ${tagId}`
 *
 * Each interpolated value becomes a bound parameter where it stands, and an interpolated fragment is
 * embedded with its own values, so pieces compose across functions and files without anyone
 * counting `$n` placeholders. Only `render` turns a fragment into text, numbering the parameters for
 * the dialect: `$1, $2, …` for PostgreSQL, `?` in order of appearance for SQLite.
 */
export class SqlFragment {
  /** @internal use `sql`, `raw`, `join`, `list`, `rows` or `prepared` */
  constructor(
    readonly parts: readonly string[],
    readonly values: readonly unknown[],
    /** Kept prepared by PostgreSQL (see `prepared`); only a statement's outermost fragment counts. */
    readonly keepPrepared = false,
  ) {}
}

export function sql(strings: TemplateStringsArray, ...values: unknown[]): SqlFragment {
  return new SqlFragment(strings, values);
}

/**
 * A statement that PostgreSQL keeps prepared on each pooled connection, so that it is parsed once
 * per connection and, once PostgreSQL finds a generic plan as good as the ones it made for the
 * first five values, not planned again (plan_cache_mode `auto`). For the statements of busy read
 * routes whose plan does not depend on the values: the joins of a holdings page took PostgreSQL
 * longer to plan than to run (bench/README.md). A page size goes into the text (`pageSize`): bound,
 * it kept the generic plan from ever looking as good. Statements whose text varies with the input
 * (`list`, `rows`) do not belong here: each distinct text is one more prepared statement on every
 * connection. Nor do lookups of many values in a table that can grow by much between two of
 * autovacuum's ANALYZEs (the tracked addresses, the memberships, `address_stats` as a tag load or a
 * follower fills them): a generic plan made while the table was small is kept until the next
 * ANALYZE, and the lock of 500 tracked addresses kept reading all of the account's rows that way
 * (bench/README.md, change 53). A key's single row, and inserts, have no such choice to get wrong.
 * SQLite's driver keeps its own statement cache.
 */
export function prepared(statement: SqlFragment): SqlFragment {
  return new SqlFragment(statement.parts, statement.values, true);
}

/**
 * A page size written into the statement's text (`LIMIT 30`) rather than bound. PostgreSQL
 * estimates a bound LIMIT as a tenth of the rows, so the generic plan of a kept prepared page
 * statement looked dearer than the plans it made for the values, and it planned the statement
 * again on every execution: the holdings page spent 1.0 ms planning beside 0.6 ms running
 * (bench/README.md, change 24). Page sizes are 1..100, so such a statement has at most 100 texts.
 */
export function pageSize(limit: number): SqlFragment {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new Error(`a page size is a whole number, not ${limit}`);
  return raw(String(limit));
}

/**
 * A page and its total in one statement, so that a paged route takes one round trip and one pooled
 * connection (bench/README.md, changes 61-64). `total` selects one row with a `total` column, or
 * none when what is paged does not exist (then the answer has no row); `page` selects the page's
 * rows, ordered again by `orderBy` (columns of `page.`) outside. A page past the end comes back as
 * one row with the total and nulls; `splitPage` takes the two apart.
 */
export function pageBesideTotal(total: SqlFragment, page: SqlFragment, orderBy: SqlFragment): SqlFragment {
  return sql`SELECT c.total, page.* FROM (${total}) c LEFT JOIN (${page}) page ON 1 = 1 ORDER BY ${orderBy}`;
}

/** The total and the page's rows of a `pageBesideTotal` answer (rows whose `present` column is set), or undefined when it has no row. */
export function splitPage<T extends { total: number | string }>(
  found: readonly T[],
  present: keyof T,
): { total: number; rows: T[] } | undefined {
  const first = found[0];
  if (first === undefined) return undefined;
  return { total: Number(first.total), rows: found.filter((row) => row[present] !== null) };
}

/** Trusted text inserted as it is: identifiers and keywords chosen by the code, never input. */
export function raw(text: string): SqlFragment {
  return new SqlFragment([text], []);
}

export const empty: SqlFragment = raw('');

/** The fragments one after another, with the separator between them. */
export function join(fragments: readonly SqlFragment[], separator: SqlFragment | string = ', '): SqlFragment {
  const between = typeof separator === 'string' ? raw(separator) : separator;
  const parts = [''];
  const values: unknown[] = [];
  fragments.forEach((fragment, index) => {
    if (index > 0) {
      parts.push('');
      values.push(between);
    }
    parts.push('');
    values.push(fragment);
  });
  return new SqlFragment(parts, values);
}

/**
 * The values of an `IN (…)` list, one bound parameter each. On SQLite, `render` repeats the last
 * value up to the next power of two, which changes nothing an `IN` or `NOT IN` answers: a
 * statement's text then takes one of a dozen lengths, not one per number of values, so the
 * driver's statement cache (100 statements) keeps it. Each text pushed out of that cache stays in
 * memory, outside V8's heap, until a major garbage collection: about 150 MB after the bench's
 * tag load, before the lists were padded and `textRows` bound its rows as one array
 * (bench/README.md, changes 45-46).
 */
class ListFragment extends SqlFragment {
  constructor(readonly items: readonly unknown[]) {
    const joined = bound(items);
    super(joined.parts, joined.values);
  }
}

/** Bound values separated by commas, for `IN (…)`. At least one value: `IN ()` is not SQL. */
export function list(values: readonly unknown[]): SqlFragment {
  if (values.length === 0) throw new Error('an SQL list needs at least one value');
  return new ListFragment(values);
}

/** `(…), (…)` rows of bound values, for a multi-row INSERT. */
export function rows(values: readonly (readonly unknown[])[]): SqlFragment {
  return join(values.map((row) => sql`(${bound(row)})`));
}

/** The values as bound parameters, separated by commas. */
function bound(values: readonly unknown[]): SqlFragment {
  return join(values.map((value) => sql`${value}`));
}

/** `a AND b AND …`; `fallback` (default TRUE) when there are no conditions. */
export function and(conditions: readonly SqlFragment[], fallback: SqlFragment = raw('1 = 1')): SqlFragment {
  return conditions.length === 0 ? fallback : join(conditions, ' AND ');
}

export interface RenderedSql {
  text: string;
  params: unknown[];
}

/** The text and parameters as the dialect's driver takes them (an array as PostgreSQL's text for it: arrayLiteral). */
export function render(fragment: SqlFragment, dialect: Dialect): RenderedSql {
  const params: unknown[] = [];
  const placeholder = dialect === 'postgres' ? () => `$${params.length}` : () => '?';
  const write = (piece: SqlFragment): string => {
    let text = piece.parts[0] ?? '';
    for (let index = 0; index < piece.values.length; index += 1) {
      const value = piece.values[index];
      if (value instanceof SqlFragment) {
        text += write(value);
      } else {
        params.push(dialect === 'postgres' && Array.isArray(value) ? (arrayLiteral(value) ?? value) : value);
        text += placeholder();
      }
      text += piece.parts[index + 1] ?? '';
    }
    if (dialect === 'sqlite' && piece instanceof ListFragment) text += padding(piece);
    return text;
  };
  const padding = (piece: ListFragment): string => {
    const last = piece.items[piece.items.length - 1];
    if (last instanceof SqlFragment) return '';
    let text = '';
    for (let extra = paddedLength(piece.items.length) - piece.items.length; extra > 0; extra -= 1) {
      params.push(last);
      text += ', ?';
    }
    return text;
  };
  return { text: write(fragment), params };
}

/**
 * The length an SQLite list is padded to: the next power of two up to 1,024 (statements name at
 * most ROWS_PER_STATEMENT or ADDRESSES_PER_STATEMENT values at a time); a longer list keeps its
 * length.
 */
function paddedLength(count: number): number {
  if (count > PADDED_UP_TO) return count;
  let length = 1;
  while (length < count) length *= 2;
  return length;
}

const PADDED_UP_TO = 1_024;

/**
 * The most rows one statement writes or names. The widest row written (a transaction) has 10
 * columns, so a statement binds at most 5,000 parameters: far below PostgreSQL's 65,535 and
 * SQLite's 32,766.
 */
export const ROWS_PER_STATEMENT = 500;

/** The items in consecutive slices of at most `size`: one statement each. */
export function chunks<T>(items: readonly T[], size: number = ROWS_PER_STATEMENT): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += size) result.push(items.slice(start, start + size));
  return result;
}

/**
 * The most addresses one statement of a membership change names: as many as a request may carry
 * (1,000), so that each statement of a POST or DELETE of a tag's addresses runs once. Those
 * statements bind the addresses as one array per column on PostgreSQL (inTexts, textRows) and on
 * SQLite as a list padded to 1,024 values or one JSON array, far below either database's limit.
 * In slices of 500 (ROWS_PER_STATEMENT), a full request ran each twice (bench/README.md, change 56).
 */
export const ADDRESSES_PER_STATEMENT = 1_000;

/** The addresses (or rows of one address each) in slices of ADDRESSES_PER_STATEMENT. */
export function addressChunks<T>(items: readonly T[]): T[][] {
  return chunks(items, ADDRESSES_PER_STATEMENT);
}
