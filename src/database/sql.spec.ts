import { and, chunks, join, list, pageBesideTotal, pageSize, raw, render, rows, splitPage, sql } from './sql';

describe('sql fragments', () => {
  it('binds each value where it stands, numbered for PostgreSQL and in order for SQLite', () => {
    const statement = sql`SELECT * FROM t WHERE a = ${1} AND b = ${'two'}`;
    expect(render(statement, 'postgres')).toEqual({
      text: 'SELECT * FROM t WHERE a = $1 AND b = $2',
      params: [1, 'two'],
    });
    expect(render(statement, 'sqlite')).toEqual({ text: 'SELECT * FROM t WHERE a = ? AND b = ?', params: [1, 'two'] });
  });

  it('embeds fragments with their own values, whatever their position', () => {
    const members = sql`SELECT address FROM address_tags WHERE tag_id = ${7}`;
    const statement = sql`SELECT ${'x'} AS k WHERE a IN (${members}) OR b IN (${members}) LIMIT ${30}`;
    expect(render(statement, 'postgres')).toEqual({
      text:
        'SELECT $1 AS k WHERE a IN (SELECT address FROM address_tags WHERE tag_id = $2) OR ' +
        'b IN (SELECT address FROM address_tags WHERE tag_id = $3) LIMIT $4',
      params: ['x', 7, 7, 30],
    });
  });

  it('joins, lists and writes rows', () => {
    expect(render(sql`IN (${list(['a', 'b'])})`, 'postgres')).toEqual({ text: 'IN ($1, $2)', params: ['a', 'b'] });
    expect(
      render(
        rows([
          [1, 'a'],
          [2, 'b'],
        ]),
        'postgres',
      ),
    ).toEqual({
      text: '($1, $2), ($3, $4)',
      params: [1, 'a', 2, 'b'],
    });
    expect(render(join([sql`a = ${1}`, raw('b IS NULL')], ' OR '), 'sqlite')).toEqual({
      text: 'a = ? OR b IS NULL',
      params: [1],
    });
    expect(render(and([]), 'postgres').text).toBe('1 = 1');
    expect(render(and([sql`a = ${1}`, sql`b = ${2}`]), 'postgres').text).toBe('a = $1 AND b = $2');
  });

  it("pads an SQLite list to the next power of two with its last value, and leaves rows and PostgreSQL's lists alone", () => {
    expect(render(sql`a IN (${list(['x', 'y', 'z'])}) AND b = ${5}`, 'sqlite')).toEqual({
      text: 'a IN (?, ?, ?, ?) AND b = ?',
      params: ['x', 'y', 'z', 'z', 5],
    });
    expect(render(sql`a IN (${list(['x', 'y', 'z'])})`, 'postgres').params).toEqual(['x', 'y', 'z']);
    expect(render(rows([[1], [2], [3]]), 'sqlite').text).toBe('(?), (?), (?)');
    const lengths = [1, 2, 3, 5, 9, 300, 500, 513, 1000].map(
      (count) => render(list(Array.from({ length: count }, (_, index) => index)), 'sqlite').params.length,
    );
    expect(lengths).toEqual([1, 2, 4, 8, 16, 512, 512, 1024, 1024]);
    expect(render(list(Array.from({ length: 1025 }, (_, index) => index)), 'sqlite').params).toHaveLength(1025);
  });

  it('refuses an empty list rather than writing IN ()', () => {
    expect(() => list([])).toThrow(/at least one value/);
  });

  it('writes a page size into the text and refuses anything but a whole number', () => {
    expect(render(sql`SELECT * FROM t LIMIT ${pageSize(30)} OFFSET ${60}`, 'postgres')).toEqual({
      text: 'SELECT * FROM t LIMIT 30 OFFSET $1',
      params: [60],
    });
    for (const bad of [1.5, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
      expect(() => pageSize(bad)).toThrow(/whole number/);
    }
  });

  it('reads a page beside its total, and takes the answer apart: past the end, and nothing to page', () => {
    const statement = pageBesideTotal(sql`SELECT ${3} AS total`, sql`SELECT name FROM t LIMIT 2`, raw('page.name'));
    expect(render(statement, 'postgres').text).toBe(
      'SELECT c.total, page.* FROM (SELECT $1 AS total) c LEFT JOIN (SELECT name FROM t LIMIT 2) page ON 1 = 1 ORDER BY page.name',
    );
    expect(
      splitPage(
        [
          { total: '3', name: 'a' },
          { total: '3', name: 'b' },
        ],
        'name',
      ),
    ).toEqual({
      total: 3,
      rows: [
        { total: '3', name: 'a' },
        { total: '3', name: 'b' },
      ],
    });
    expect(splitPage([{ total: 3, name: null }], 'name')).toEqual({ total: 3, rows: [] });
    expect(splitPage<{ total: number; name: string | null }>([], 'name')).toBeUndefined();
  });

  it('cuts items into statement-sized slices', () => {
    expect(chunks([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunks([], 2)).toEqual([]);
  });
});
