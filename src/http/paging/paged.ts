import { applyDecorators, createParamDecorator, ExecutionContext, Type } from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CursorPage, formatLinks, LinkRelation, OffsetPage, pageLinks } from './paging';

/**
 * How a paged handler answers: `answer(page)` sets the `Link` header (absolute URLs repeating every
 * query parameter of the request, only the paging parameter changed; none when everything fits one
 * page) and gives the page's items, which the handler returns as the body. Handlers take it with
 * `@Pager()` and are marked `@Paged()`.
 *
 * It is a parameter rather than an interceptor on purpose: Nest runs every intercepted call through
 * an rxjs pipeline and binds an AsyncResource to it, which cost `GET /v2/transactions` about
 * 0.08 ms of CPU a request, a tenth of it (bench/README.md, change 32).
 */
export class PageAnswer {
  constructor(
    private readonly request: Request,
    private readonly response: Response,
  ) {}

  answer<T>(page: OffsetPage<T> | CursorPage<T>): T[] {
    const links = pageLinks(page, requestUrl(this.request));
    if (links.length > 0) this.response.setHeader('Link', formatLinks(links));
    return page.items;
  }
}

/** The paged handler's way to answer (see PageAnswer). */
export const Pager = createParamDecorator((_data: unknown, context: ExecutionContext): PageAnswer => {
  const http = context.switchToHttp();
  return new PageAnswer(http.getRequest<Request>(), http.getResponse<Response>());
});

/** The relations each kind of page links, as its `Link` header documents them. */
const RELATIONS: Record<'page' | 'cursor', LinkRelation[]> = {
  page: ['first', 'prev', 'next', 'last'],
  cursor: ['next', 'first'],
};

/**
 * Documents a handler that answers an OffsetPage (`page`) or a CursorPage (`cursor`) of `type`
 * through `@Pager()`: an array of `type` with a `Link` header; `description` says what the page holds.
 */
export const Paged = (type: Type<unknown>, description: string, paging: 'page' | 'cursor' = 'page'): MethodDecorator =>
  applyDecorators(
    ApiOkResponse({
      type: [type],
      description,
      headers: {
        Link: { description: `Pagination links (${RELATIONS[paging].join(', ')}).`, schema: { type: 'string' } },
      },
    }),
  );

/** The Express application setting that holds PUBLIC_URL, when it is set (createApp). */
export const PUBLIC_URL_SETTING = 'chaintags public url';

/**
 * The request's URL as the client reached it: under PUBLIC_URL when set (behind a proxy, whose
 * `Host` and protocol are not the client's), else from the request's protocol and `Host`.
 */
function requestUrl(request: Request): URL {
  const publicUrl = request.app.get(PUBLIC_URL_SETTING) as string | undefined;
  if (publicUrl !== undefined) return new URL(publicUrl + request.originalUrl);
  return new URL(request.originalUrl, `${request.protocol}://${request.get('host') ?? 'localhost'}`);
}
