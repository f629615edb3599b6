import { toSqliteParameters } from './dialect';

describe('toSqliteParameters', () => {
  it('turns numbered placeholders into positional ones, repeating values as needed', () => {
    expect(toSqliteParameters('SELECT * FROM t WHERE a = $2 AND (b = $1 OR c = $2)', ['x', 'y'])).toEqual({
      sql: 'SELECT * FROM t WHERE a = ? AND (b = ? OR c = ?)',
      params: ['y', 'x', 'y'],
    });
  });

  it('refuses a placeholder without a value', () => {
    expect(() => toSqliteParameters('SELECT $3', [1])).toThrow('$3');
  });
});
