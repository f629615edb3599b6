/** One page of an offset-paged list; a handler answers it through `@Pager()` (paged.ts). */
export class OffsetPage<T> {
  constructor(
    readonly items: T[],
    readonly page: number,
    readonly perPage: number,
    readonly total: number,
  ) {}
}

/** One page of a keyset-paged list: `next` is the opaque cursor of the following page, if any. */
export class CursorPage<T> {
  constructor(
    readonly items: T[],
    readonly next: string | undefined,
    readonly isFirst: boolean,
  ) {}
}

export type LinkRelation = 'first' | 'prev' | 'next' | 'last';

/** GitHub's relations: first and prev except on page 1, next and last except on the last page. */
export function offsetRelations(page: number, perPage: number, total: number): [LinkRelation, number][] {
  const last = Math.max(1, Math.ceil(total / perPage));
  if (last === 1 && page === 1) return [];
  const relations: [LinkRelation, number][] = [];
  if (page > 1) relations.push(['first', 1], ['prev', Math.min(page - 1, last)]);
  if (page < last) relations.push(['next', page + 1], ['last', last]);
  return relations;
}

/** The request URL with one parameter replaced (or removed), every other parameter kept as sent. */
export function withParameter(url: URL, name: string, value: string | undefined): string {
  const copy = new URL(url.href);
  if (value === undefined) copy.searchParams.delete(name);
  else copy.searchParams.set(name, value);
  return copy.href;
}

/** The links of a page's `Link` header, to the request's URL with only the paging parameter changed. */
export function pageLinks(page: OffsetPage<unknown> | CursorPage<unknown>, url: URL): [LinkRelation, string][] {
  if (page instanceof OffsetPage) {
    return offsetRelations(page.page, page.perPage, page.total).map(([relation, number]) => [
      relation,
      withParameter(url, 'page', String(number)),
    ]);
  }
  const links: [LinkRelation, string][] = [];
  if (page.next !== undefined) links.push(['next', withParameter(url, 'after', page.next)]);
  if (!page.isFirst) links.push(['first', withParameter(url, 'after', undefined)]);
  return links;
}

export function formatLinks(links: [LinkRelation, string][]): string {
  return links.map(([relation, href]) => `<${href}>; rel="${relation}"`).join(', ');
}
