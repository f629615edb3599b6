import { analyze, bigSum, Dialect, forUpdate, inTexts, textRows } from './dialect';
import { list, raw, render, sql } from './sql';

describe('dialect fragments', () => {
  it('sums big decimals exactly: numeric SUM as text on PostgreSQL, the bigsum aggregate on SQLite', () => {
    const statement = sql`SELECT ${bigSum('postgres', raw('h.balance'))} AS balance FROM holdings h WHERE h.chain = ${'eth'}`;
    expect(render(statement, 'postgres')).toEqual({
      text: 'SELECT SUM(h.balance)::text AS balance FROM holdings h WHERE h.chain = $1',
      params: ['eth'],
    });
    expect(render(sql`SELECT ${bigSum('sqlite', raw('h.balance'))} AS balance`, 'sqlite').text).toBe(
      'SELECT bigsum(h.balance) AS balance',
    );
  });

  it('locks rows on PostgreSQL only', () => {
    const statement = (dialect: Dialect) =>
      sql`SELECT address FROM t WHERE a IN (${list(['x', 'y'])})${forUpdate(dialect)}`;
    expect(render(statement('postgres'), 'postgres')).toEqual({
      text: 'SELECT address FROM t WHERE a IN ($1, $2) FOR UPDATE',
      params: ['x', 'y'],
    });
    expect(render(statement('sqlite'), 'sqlite')).toEqual({
      text: 'SELECT address FROM t WHERE a IN (?, ?)',
      params: ['x', 'y'],
    });
  });

  it('passes rows of text as one array per column on PostgreSQL and as one JSON array of rows on SQLite', () => {
    const columns = [
      ['a1', 'a2'],
      ['t1', 't2'],
    ];
    expect(render(textRows('postgres', columns), 'postgres')).toEqual({
      text: 'SELECT * FROM unnest(CAST($1 AS text[]), CAST($2 AS text[]))',
      params: ['{a1,a2}', '{t1,t2}'],
    });
    expect(render(textRows('sqlite', columns), 'sqlite')).toEqual({
      text: 'SELECT value ->> 0, value ->> 1 FROM json_each(?) WHERE true',
      params: ['[["a1","t1"],["a2","t2"]]'],
    });
  });

  it('writes a bigint into the JSON rows by its digits, and keeps one text on SQLite whatever the number of rows', () => {
    expect(render(textRows('sqlite', [[2n ** 70n]]), 'sqlite').params).toEqual(['[["1180591620717411303424"]]']);
    expect(render(textRows('sqlite', [['a'], [1]]), 'sqlite').text).toBe(
      render(
        textRows('sqlite', [
          ['a', 'b', 'c'],
          [1, 2, 3],
        ]),
        'sqlite',
      ).text,
    );
  });

  it('casts each column to its own array type on PostgreSQL when told, and binds the values alike on SQLite', () => {
    const columns = [
      ['tx-1', 'tx-2'],
      ['10', '20'],
      ['2024-07-01T00:00:00.000Z', '2024-07-02T00:00:00.000Z'],
    ];
    expect(render(textRows('postgres', columns, ['text', 'numeric', 'timestamptz']), 'postgres')).toEqual({
      text: 'SELECT * FROM unnest(CAST($1 AS text[]), CAST($2 AS numeric[]), CAST($3 AS timestamptz[]))',
      params: ['{tx-1,tx-2}', '{10,20}', '{2024-07-01T00:00:00.000Z,2024-07-02T00:00:00.000Z}'],
    });
    expect(render(textRows('sqlite', columns, ['text', 'numeric', 'timestamptz']), 'sqlite')).toEqual({
      text: 'SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?) WHERE true',
      params: ['[["tx-1","10","2024-07-01T00:00:00.000Z"],["tx-2","20","2024-07-02T00:00:00.000Z"]]'],
    });
  });

  it('names the values of an IN as one array on PostgreSQL and one by one on SQLite', () => {
    const statement = (dialect: Dialect) =>
      sql`SELECT n FROM t WHERE k = ${7} AND a ${inTexts(dialect, ['x', 'y', 'z'])}`;
    expect(render(statement('postgres'), 'postgres')).toEqual({
      text: 'SELECT n FROM t WHERE k = $1 AND a = ANY (CAST($2 AS text[]))',
      params: [7, '{x,y,z}'],
    });
    // Padded to the next power of two with the last value (sql.ts, `list`).
    expect(render(statement('sqlite'), 'sqlite')).toEqual({
      text: 'SELECT n FROM t WHERE k = ? AND a IN (?, ?, ?, ?)',
      params: [7, 'x', 'y', 'z', 'z'],
    });
  });

  it('analyses a table on PostgreSQL only', () => {
    expect(render(analyze('postgres', 'import_pairs')!, 'postgres').text).toBe('ANALYZE import_pairs');
    expect(analyze('sqlite', 'import_pairs')).toBeUndefined();
  });
});
