import { performance } from 'node:perf_hooks';
import type { NextFunction, Request, Response } from 'express';
import type { Metrics } from './metrics.service';

/** The route label of a request that matched no route: paths that match nothing are not labels. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Counts each request and its latency by method, route template (`/v2/tags/:tag`, never the
 * concrete path) and status, once the response is sent or the client has gone.
 */
export function httpMetrics(metrics: Metrics) {
  return (request: Request, response: Response, next: NextFunction): void => {
    const started = performance.now();
    response.once('close', () => {
      const labels = {
        method: request.method,
        route: routeTemplate(request),
        status: response.writableFinished ? String(response.statusCode) : 'aborted',
      };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, (performance.now() - started) / 1000);
    });
    next();
  };
}

/** The template of the route Express matched (Nest registers each route with its full path). */
function routeTemplate(request: Request): string {
  const route = (request as { route?: { path?: unknown } }).route;
  return typeof route?.path === 'string' ? `${request.baseUrl}${route.path}` : UNMATCHED_ROUTE;
}
