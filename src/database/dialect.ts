import { type Dialect, raw, sql, SqlFragment } from './sql';

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

/** Row lock for the rest of the transaction; SQLite's immediate transaction already excludes other writers. */
export function forUpdate(dialect: Dialect): SqlFragment {
  return raw(dialect === 'postgres' ? ' FOR UPDATE' : '');
}

/** Values as the drivers return them: pg gives Date for timestamptz and strings for bigint/numeric. */
export function toIso(value: Date | string): string {
  return value instanceof Date ? value.toISOString() : new Date(value).toISOString();
}

export function toNumber(value: number | string | bigint): number {
  return Number(value);
}

/**
 * better-sqlite3 binds anonymous `?` parameters in order of appearance, while SQL passed to `Db` as
 * text is written with PostgreSQL's numbered `$n`. Rewrites the text and lays the values out to match.
 *
 * @deprecated Only for statements still passed to `Db` as `(text, params)`; fragments built with
 * `sql` are rendered for the dialect by `render` (./sql.ts). Goes once no caller passes text.
 */
export function toSqliteParameters(sql: string, params: readonly unknown[]): { sql: string; params: unknown[] } {
  const ordered: unknown[] = [];
  const rewritten = sql.replace(/\$(\d+)/g, (_match, index: string) => {
    const position = Number(index) - 1;
    if (position < 0 || position >= params.length) {
      throw new Error(`SQL placeholder $${index} has no parameter`);
    }
    ordered.push(params[position]);
    return '?';
  });
  return { sql: rewritten, params: ordered };
}
