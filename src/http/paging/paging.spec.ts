import { CursorPage, formatLinks, OffsetPage, offsetRelations, pageLinks, withParameter } from './paging';

describe('offsetRelations', () => {
  it('gives no links when everything fits one page', () => {
    expect(offsetRelations(1, 30, 0)).toEqual([]);
    expect(offsetRelations(1, 30, 30)).toEqual([]);
  });

  it('follows GitHub: next and last on page 1, all four in the middle, first and prev on the last page', () => {
    expect(offsetRelations(1, 10, 31)).toEqual([
      ['next', 2],
      ['last', 4],
    ]);
    expect(offsetRelations(2, 10, 31)).toEqual([
      ['first', 1],
      ['prev', 1],
      ['next', 3],
      ['last', 4],
    ]);
    expect(offsetRelations(4, 10, 31)).toEqual([
      ['first', 1],
      ['prev', 3],
    ]);
  });

  it('points prev at the last page from beyond the end', () => {
    expect(offsetRelations(9, 10, 31)).toEqual([
      ['first', 1],
      ['prev', 4],
    ]);
  });
});

describe('link formatting', () => {
  it('replaces only the paging parameter', () => {
    const url = new URL('http://h/v2/tags?api_key=k&per_page=5&page=2');
    expect(withParameter(url, 'page', '3')).toBe('http://h/v2/tags?api_key=k&per_page=5&page=3');
    expect(withParameter(new URL('http://h/v2/transactions?after=abc&chain=base'), 'after', undefined)).toBe(
      'http://h/v2/transactions?chain=base',
    );
    expect(formatLinks([['next', 'http://h/a?page=2']])).toBe('<http://h/a?page=2>; rel="next"');
  });
});

describe('pageLinks', () => {
  it("links an offset page's relations by page number, keeping the other parameters", () => {
    const url = new URL('http://h/v2/tags?per_page=10&page=2');
    expect(pageLinks(new OffsetPage([], 2, 10, 31), url)).toEqual([
      ['first', 'http://h/v2/tags?per_page=10&page=1'],
      ['prev', 'http://h/v2/tags?per_page=10&page=1'],
      ['next', 'http://h/v2/tags?per_page=10&page=3'],
      ['last', 'http://h/v2/tags?per_page=10&page=4'],
    ]);
    expect(pageLinks(new OffsetPage([], 1, 10, 7), url)).toEqual([]);
  });

  it('links a cursor page to the next cursor while one follows, and to the first page from any other', () => {
    const url = new URL('http://h/v2/transactions?chain=base&after=c1');
    expect(pageLinks(new CursorPage([], 'c2', false), url)).toEqual([
      ['next', 'http://h/v2/transactions?chain=base&after=c2'],
      ['first', 'http://h/v2/transactions?chain=base'],
    ]);
    expect(pageLinks(new CursorPage([], undefined, true), new URL('http://h/v2/transactions'))).toEqual([]);
    expect(pageLinks(new CursorPage([], undefined, false), url)).toEqual([
      ['first', 'http://h/v2/transactions?chain=base'],
    ]);
  });
});
