import { type Dialect, join, list, raw, ROWS_PER_STATEMENT, sql, SqlFragment } from './sql';

/**
 * Everything that differs between PostgreSQL and SQLite lives in this file: column types for the
 * migrations and the few SQL fragments that are spelled differently. Repositories write one SQL
 * text for both (fragments built with `sql`, see ./sql.ts) and embed these helpers where the
 * dialects part ways.
 */
export type { Dialect };

export interface ColumnTypes {
  /** Strings compared and ordered by code unit on both databases. */
  text: string;
  /** Exact unsigned integers of up to 78 digits (token balances, values). */
  bigDecimal: string;
  /** Exact decimal numbers of any scale (USD prices). */
  decimal: string;
  /** Instants; SQLite keeps the fixed-width `toISOString()` form, which orders correctly as text. */
  timestamp: string;
  integer: string;
  bigint: string;
  /** An auto-incrementing integer primary key. */
  serialKey: string;
}

export function columnTypes(dialect: Dialect): ColumnTypes {
  return dialect === 'postgres'
    ? {
        text: 'text COLLATE "C"',
        bigDecimal: 'numeric(78,0)',
        decimal: 'numeric',
        timestamp: 'timestamptz(3)',
        integer: 'integer',
        bigint: 'bigint',
        serialKey: 'bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY',
      }
    : {
        text: 'TEXT',
        bigDecimal: 'TEXT',
        decimal: 'TEXT',
        timestamp: 'TEXT',
        integer: 'INTEGER',
        bigint: 'INTEGER',
        serialKey: 'INTEGER PRIMARY KEY AUTOINCREMENT',
      };
}

/** Exact sum of a big-decimal column, as a decimal string (SQLite uses the `bigsum` aggregate we register). */
export function bigSum(dialect: Dialect, expression: SqlFragment): SqlFragment {
  return dialect === 'postgres' ? sql`SUM(${expression})::text` : sql`bigsum(${expression})`;
}

/** Exact sum of a big-decimal column in the column's own type, to be stored (numeric on PostgreSQL, text on SQLite). */
export function bigSumValue(dialect: Dialect, expression: SqlFragment): SqlFragment {
  return dialect === 'postgres' ? sql`SUM(${expression})` : sql`bigsum(${expression})`;
}

/** The values of a text column joined by `separator` (a string the code names, never input); NULL over no rows. */
export function joinedText(dialect: Dialect, expression: SqlFragment, separator: string): SqlFragment {
  return dialect === 'postgres'
    ? sql`string_agg(${expression}, ${raw(`'${separator}'`)})`
    : sql`group_concat(${expression}, ${raw(`'${separator}'`)})`;
}

/** Exact sum of two big decimals, either of them negative (SQLite uses the `bigadd` function we register). */
export function bigAdd(dialect: Dialect, left: SqlFragment, right: SqlFragment): SqlFragment {
  return dialect === 'postgres' ? sql`(${left} + ${right})` : sql`bigadd(${left}, ${right})`;
}

/** Row lock for the rest of the transaction; SQLite's immediate transaction already excludes other writers. */
export function forUpdate(dialect: Dialect): SqlFragment {
  return raw(dialect === 'postgres' ? ' FOR UPDATE' : '');
}

/**
 * Shared row lock for the rest of the transaction: others may share it, but nobody may update or
 * lock the row for update meanwhile. SQLite's immediate transaction already excludes other writers.
 */
export function forShare(dialect: Dialect): SqlFragment {
  return raw(dialect === 'postgres' ? ' FOR SHARE' : '');
}

/**
 * Key-share row lock for the rest of the transaction, the lock a foreign key's check takes on the
 * row it refers to: the row may be updated meanwhile (not its key), but not deleted. SQLite's
 * immediate transaction already excludes other writers.
 */
export function forKeyShare(dialect: Dialect): SqlFragment {
  return raw(dialect === 'postgres' ? ' FOR KEY SHARE' : '');
}

/**
 * `column` is one of the values `subquery` selects, looked up value by value. PostgreSQL is given
 * the set as an array (`= ANY(ARRAY(…))`), which it can only look up in an index on `column`:
 * written `IN (…)`, it may hash the set and read the whole table instead, which its default cost
 * settings favour even for a few hundred values. SQLite looks `IN (…)` up value by value.
 */
export function lookedUpIn(dialect: Dialect, column: SqlFragment, subquery: SqlFragment): SqlFragment {
  return dialect === 'postgres' ? sql`${column} = ANY(ARRAY(${subquery}))` : sql`${column} IN (${subquery})`;
}

/**
 * `column` for a condition that must not choose the index: SQLite's planner, with no `ANALYZE`
 * statistics, prefers an index on an equality it can use twice over, so `chain = ? AND
 * from_address = ?` read every transaction of the chain through transactions_by_chain_time
 * instead of the address's own. A unary `+` keeps SQLite from using an index on the column;
 * PostgreSQL, which plans from statistics, gets the column as it is.
 */
export function filterOnly(dialect: Dialect, column: string): SqlFragment {
  return raw(dialect === 'postgres' ? column : `+${column}`);
}

/**
 * Rows one statement writes on PostgreSQL when they go as one array per column (textRows): one
 * bound value a column whatever the count, so the statement costs PostgreSQL about the same to
 * parse and plan for 5,000 rows as for one, and the rows cost it little more than `COPY` does
 * (bench/README.md, change 18). SQLite keeps ROWS_PER_STATEMENT a statement.
 */
const ROWS_PER_LOAD_POSTGRES = 5_000;

/** How many rows one textRows statement takes on the dialect; the sink gathers whole-input batches of this size. */
export function rowsPerLoad(dialect: Dialect): number {
  return dialect === 'postgres' ? ROWS_PER_LOAD_POSTGRES : ROWS_PER_STATEMENT;
}

/**
 * Rows of text values as a table expression for `INSERT INTO t (a, b) ${…}`, `columns[i]` holding
 * the i-th column's values. PostgreSQL gets one array per column (`unnest`), so a statement binds
 * as many values as it has columns however many rows it writes, which it parses and plans far
 * faster than thousands of bound values. SQLite gets the rows as one JSON array of arrays, read
 * with `json_each`, so the statement's text does not change with the number of rows and the
 * driver's statement cache keeps it (sql.ts, `list`, says why that matters). `postgresTypes` names
 * each column's array type when it is not text (an INSERT does not turn text into numeric or
 * timestamptz by itself); the values are still sent as text, in PostgreSQL's array syntax.
 */
export function textRows(
  dialect: Dialect,
  columns: readonly (readonly unknown[])[],
  postgresTypes: readonly string[] = columns.map(() => 'text'),
): SqlFragment {
  if (dialect === 'postgres') {
    return sql`SELECT * FROM unnest(${join(columns.map((values, index) => sql`CAST(${values} AS ${raw(postgresTypes[index] ?? 'text')}[])`))})`;
  }
  const count = columns[0]?.length ?? 0;
  const table = Array.from({ length: count }, (_unused, index) => columns.map((values) => values[index]));
  const picked = columns.map((_values, index) => raw(`value ->> ${index}`));
  // `WHERE true`: an INSERT … SELECT followed by ON CONFLICT needs it, or SQLite reads the ON as a join's.
  return sql`SELECT ${join(picked)} FROM json_each(${JSON.stringify(table, jsonValue)}) WHERE true`;
}

/** A value as `JSON.stringify` writes it into textRows' array: a bigint as its digits. */
function jsonValue(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

/**
 * `IN (…)` over text values, written after the column: `address ${inTexts(tx.dialect, chunk)}`.
 * PostgreSQL gets one array (`= ANY (…)`), as textRows gives it for rows, so the statement binds
 * one value however many it names: 500 addresses bound one by one took it 1-2 ms to parse and
 * bind before each run, a sixth of what a request adding 1,000 addresses to a tag spent in it.
 * SQLite gets `IN (?, ?, …)`. At least one value, as for `list`.
 */
export function inTexts(dialect: Dialect, values: readonly string[]): SqlFragment {
  return dialect === 'postgres' ? sql`= ANY (CAST(${values} AS text[]))` : sql`IN (${list(values)})`;
}

/**
 * As inTexts, for a table whose statistics may not say how large it is (one the same transaction
 * is filling, such as an import's tracked addresses): PostgreSQL gets the array through a
 * subquery (`= ANY(ARRAY(SELECT unnest(…)))`, as lookedUpIn), whose length it does not estimate,
 * so it looks the values up in the column's index. With the array itself it may weigh 500 values
 * against a table it believes small and read the whole table for each statement: a tag import
 * of 200,000 pairs spent 5 s doing so.
 */
export function inTextsLookedUp(dialect: Dialect, values: readonly string[]): SqlFragment {
  return dialect === 'postgres'
    ? sql`= ANY (ARRAY(SELECT unnest(CAST(${values} AS text[]))))`
    : sql`IN (${list(values)})`;
}

/**
 * Text values as a table of one column, `alias(column)`, to write after FROM: one row a value, in
 * a statement whose text does not change with their number. PostgreSQL unnests one bound array;
 * SQLite reads one bound JSON array with `json_each`, as textRows does.
 */
export function textTable(dialect: Dialect, values: readonly string[], alias: string, column: string): SqlFragment {
  return dialect === 'postgres'
    ? sql`unnest(CAST(${values} AS text[])) AS ${raw(alias)}(${raw(column)})`
    : sql`(SELECT value AS ${raw(column)} FROM json_each(${JSON.stringify(values)})) ${raw(alias)}`;
}

/**
 * Statistics for the planner of a table just filled in this transaction (a temporary one, which
 * PostgreSQL's autovacuum never analyses: without them every join with it is planned blind).
 * SQLite plans without statistics.
 */
export function analyze(dialect: Dialect, table: string): SqlFragment | undefined {
  return dialect === 'postgres' ? sql`ANALYZE ${raw(table)}` : undefined;
}

/** Values as the drivers return them: pg gives Date for timestamptz and strings for bigint/numeric. */
export function toIso(value: Date | string): string {
  return value instanceof Date ? value.toISOString() : new Date(value).toISOString();
}
