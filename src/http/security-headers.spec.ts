import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import { HELMET_OPTIONS, securityHeaders } from './security-headers';

type Middleware = (request: Request, response: Response, next: NextFunction) => void;

/** The headers a real response carries after the middleware ran, minus the ones node:http adds. */
async function headersAfter(middleware: Middleware): Promise<Record<string, string>> {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    middleware(request as Request, response as Response, () => response.end('ok'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const answer = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    const headers = Object.fromEntries(answer.headers.entries());
    for (const added of ['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'])
      delete headers[added];
    return headers;
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('securityHeaders', () => {
  it('sets exactly the headers helmet sets with the same options', async () => {
    const expected = await headersAfter(helmet(HELMET_OPTIONS));
    expect(Object.keys(expected).length).toBeGreaterThan(8);
    expect(await headersAfter(securityHeaders(HELMET_OPTIONS))).toEqual(expected);
  });

  it('keeps the CSP Swagger UI needs and leaves insecure requests alone', async () => {
    const csp = (await headersAfter(securityHeaders(HELMET_OPTIONS)))['content-security-policy'];
    expect(csp).toContain("style-src 'self' 'unsafe-inline'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('upgrade-insecure-requests');
  });

  it('follows other options too', async () => {
    const options = { frameguard: { action: 'deny' as const }, hsts: false };
    const headers = await headersAfter(securityHeaders(options));
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['strict-transport-security']).toBeUndefined();
    expect(headers).toEqual(await headersAfter(helmet(options) as unknown as Middleware));
  });
});
