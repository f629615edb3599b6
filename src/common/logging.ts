import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import type { LogLevel } from '../config/config';
import type { AuthenticatedRequest } from './auth';

/** Replaces the value of every `api_key` query parameter so that request URLs can be logged. */
export function redactKeys(url: string): string {
  return url.replace(/([?&]api_key=)[^&#]*/gi, '$1[redacted]');
}

/**
 * Structured JSON request logs. Each request gets an id, sent back as `X-Request-Id`; the log shows
 * the method, the URL with keys redacted, the status, the time taken and at most the 12-character
 * prefix of the key that was used. Headers (where `X-API-Key` travels) are never logged.
 */
export function loggerParams(level: LogLevel): Params {
  return {
    pinoHttp: {
      level,
      genReqId: (_request: IncomingMessage, response: ServerResponse) => {
        const id = randomUUID();
        response.setHeader('X-Request-Id', id);
        return id;
      },
      serializers: {
        req: (request: { id: string; method: string; url: string }) => ({
          id: request.id,
          method: request.method,
          url: redactKeys(request.url),
        }),
        res: (response: { statusCode: number }) => ({ statusCode: response.statusCode }),
      },
      customProps: (request: IncomingMessage) => {
        const auth = (request as AuthenticatedRequest).auth;
        return auth ? { key: auth.prefix } : {};
      },
      customLogLevel: (_request: IncomingMessage, response: ServerResponse, error?: Error) =>
        error || response.statusCode >= 500 ? 'error' : 'info',
    },
  };
}
