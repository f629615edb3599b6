import {
  applyDecorators,
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  Type,
  UseInterceptors,
} from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { map, Observable } from 'rxjs';
import { CursorPage, formatLinks, LinkRelation, OffsetPage, offsetRelations, withParameter } from './paging';

/**
 * Paged handlers return an OffsetPage or a CursorPage; this answers with the items and sets the
 * `Link` header (absolute URLs repeating every query parameter of the request, only the paging
 * parameter changed). No header when everything fits one page. Handlers take it with `@Paged()`.
 */
@Injectable()
export class LinkHeaderInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<Request>();
    const response = context.switchToHttp().getResponse<Response>();
    return next.handle().pipe(
      map((result: unknown) => {
        if (!(result instanceof OffsetPage) && !(result instanceof CursorPage)) return result;
        const links = linksFor(result as OffsetPage<unknown> | CursorPage<unknown>, requestUrl(request));
        if (links.length > 0) response.setHeader('Link', formatLinks(links));
        return result.items as unknown[];
      }),
    );
  }
}

/** The relations each kind of page links, as its `Link` header documents them. */
const RELATIONS: Record<'page' | 'cursor', LinkRelation[]> = {
  page: ['first', 'prev', 'next', 'last'],
  cursor: ['next', 'first'],
};

/**
 * Marks a handler that returns an OffsetPage (`page`) or a CursorPage (`cursor`) of `type`, and
 * documents its answer: an array of `type` with a `Link` header. Only these routes run the
 * interceptor: Nest wraps every intercepted call in an rxjs pipeline and an AsyncResource, which
 * cost the routes that never page about a tenth of their CPU time when it was global
 * (bench/README.md).
 */
export const Paged = (type: Type<unknown>, paging: 'page' | 'cursor' = 'page'): MethodDecorator =>
  applyDecorators(
    UseInterceptors(LinkHeaderInterceptor),
    ApiOkResponse({
      type: [type],
      headers: {
        Link: { description: `Pagination links (${RELATIONS[paging].join(', ')}).`, schema: { type: 'string' } },
      },
    }),
  );

function linksFor(result: OffsetPage<unknown> | CursorPage<unknown>, url: URL): [LinkRelation, string][] {
  if (result instanceof OffsetPage) {
    return offsetRelations(result.page, result.perPage, result.total).map(([relation, page]) => [
      relation,
      withParameter(url, 'page', String(page)),
    ]);
  }
  const links: [LinkRelation, string][] = [];
  if (result.next !== undefined) links.push(['next', withParameter(url, 'after', result.next)]);
  if (!result.isFirst) links.push(['first', withParameter(url, 'after', undefined)]);
  return links;
}

function requestUrl(request: Request): URL {
  return new URL(request.originalUrl, `${request.protocol}://${request.get('host') ?? 'localhost'}`);
}
