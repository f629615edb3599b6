import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import helmet, { HelmetOptions } from 'helmet';

/** helmet's defaults, with a Content-Security-Policy that Swagger UI at /docs works under. */
export const HELMET_OPTIONS: HelmetOptions = {
  // Swagger UI has an inline <style> block; its scripts are files. Self-hosted installs are often
  // reached over plain HTTP, where upgrading the page's asset requests to HTTPS would break it.
  contentSecurityPolicy: {
    directives: {
      'style-src': ["'self'", "'unsafe-inline'"],
      'img-src': ["'self'", 'data:'],
      'upgrade-insecure-requests': null,
    },
  },
};

/**
 * helmet's security headers, worked out by helmet once and then set on every response as one
 * batch. With options like chaintags' (no per-request CSP nonces) helmet sets the same headers on
 * every response; running its dozen middleware functions per request cost several percent of a
 * simple request's CPU time in the benchmark (bench/README.md).
 */
export function securityHeaders(options: HelmetOptions) {
  const headers = new Map<string, string>();
  const recorder = {
    setHeader: (name: string, value: string) => void headers.set(name, value),
    removeHeader: (name: string) => void headers.delete(name),
  };
  let finished = false;
  let failure: unknown;
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    failure = error;
    finished = true;
  });
  if (failure !== undefined) throw failure instanceof Error ? failure : new Error('helmet reported an error');
  if (!finished) throw new Error('helmet did not set its headers synchronously; they cannot be worked out once');
  return (_request: Request, response: Response, next: NextFunction): void => {
    response.setHeaders(headers);
    next();
  };
}
