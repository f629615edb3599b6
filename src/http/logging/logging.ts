import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { LoggerService } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import pino, { DestinationStream, Logger } from 'pino';
import { prettyFactory } from 'pino-pretty';
import type { LogLevel } from '../../config/config';
import type { AuthenticatedRequest } from '../auth/auth';

/** JSON lines for log storage, or pino-pretty's text for a person at a terminal. */
export type LogFormat = 'json' | 'pretty';

/**
 * Readable text when a person watches the terminal; JSON when stdout goes anywhere else (a pipe, a
 * file, a container's log driver) and always under NODE_ENV=production, where a terminal is more
 * likely `docker run -t` than a person.
 */
export function logFormat(stdoutIsTTY: boolean, production: boolean): LogFormat {
  return stdoutIsTTY && !production ? 'pretty' : 'json';
}

/** The service's one pino logger, on stdout (or `destination`, for tests). */
export function createLogger(level: LogLevel, destination?: DestinationStream, format: LogFormat = 'json'): Logger {
  if (format === 'pretty') return pino({ level }, prettyLines(destination ?? process.stdout));
  return destination === undefined ? pino({ level }) : pino({ level }, destination);
}

/**
 * pino-pretty formatting each line in this thread, synchronously: no worker thread or stream
 * pipeline that a shutdown would have to flush. A request line reads as one line of text.
 */
function prettyLines(destination: DestinationStream): DestinationStream {
  const format = prettyFactory({
    colorize: destination === process.stdout,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,context,req,res,responseTime',
    messageFormat:
      '{if context}[{context}] {end}{msg}{if req.method} {req.method} {req.url} {res.statusCode} {responseTime} ms{end}',
    singleLine: true,
  });
  return { write: (line: string) => destination.write(format(line)) };
}

/** Replaces the value of every `api_key` query parameter so that request URLs can be logged. */
export function redactKeys(url: string): string {
  return url.replace(/([?&]api_key=)[^&#]*/gi, '$1[redacted]');
}

/** The fields of one request's log line. Headers (where `X-API-Key` travels) are never among them. */
export interface RequestLogLine {
  req: { id: string; method: string; url: string };
  res: { statusCode: number };
  /** Milliseconds from the first byte of the request being handled to the response being sent. */
  responseTime: number;
  /** At most the 12-character prefix of the key that was used. */
  key?: string;
}

/**
 * An `X-Request-Id` a proxy (nginx's `$request_id`, Envoy, Heroku's router) or a client sent, which
 * then names the request here too, so one id follows it through both logs: 1 to 128 letters,
 * digits and `_ . : @ -`, nothing that could break a log line. Anything else gets a new id.
 */
const REQUEST_ID = /^[\w.:@-]{1,128}$/;

/**
 * Structured request logs, one line per request: the request id (the `X-Request-Id` sent with it,
 * else a new UUID; sent back as `X-Request-Id`), the method, the URL with keys redacted, the
 * status, the time taken and the key's prefix. Lines of answered requests are `info`, 5xx answers
 * `error`, and requests whose client went away before the answer was sent `warn`.
 *
 * One line written from the root logger when the response closes is all a request costs here; a
 * child logger per request and an AsyncLocalStorage context around every request (what pino-http
 * with nestjs-pino did) cost about 0.4 ms of CPU per request, a third of a simple request's total
 * (bench/README.md).
 */
export function requestLogger(logger: Logger) {
  return (request: Request, response: Response, next: NextFunction): void => {
    const started = performance.now();
    const incoming = request.headers['x-request-id'];
    const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    (request as AuthenticatedRequest).id = id;
    response.setHeader('X-Request-Id', id);
    response.once('close', () => {
      const line: RequestLogLine = {
        req: { id, method: request.method, url: redactKeys(request.originalUrl) },
        res: { statusCode: response.statusCode },
        responseTime: Math.round(performance.now() - started),
        key: (request as AuthenticatedRequest).auth?.prefix,
      };
      if (!response.writableFinished) logger.warn(line, 'request aborted');
      else if (response.statusCode >= 500) logger.error(line, 'request failed');
      else logger.info(line, 'request completed');
    });
    next();
  };
}

/**
 * Nest's own log calls (`new Logger('Keys').log(…)`, the exception filter, start-up messages) as
 * pino lines with the Nest context as `context`. Nest passes the context as the last argument; an
 * object as the message is merged into the line, with the next string as its message.
 */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: pino.Level, message: unknown, params: unknown[]): void {
    if (!this.logger.isLevelEnabled(level)) return;
    const rest = [...params];
    const context = rest.length > 0 && typeof rest[rest.length - 1] === 'string' ? rest.pop() : undefined;
    const fields: Record<string, unknown> = context === undefined ? {} : { context };
    let text: string | undefined;
    if (message instanceof Error) {
      fields.err = message;
      text = message.message;
    } else if (typeof message === 'object' && message !== null) {
      Object.assign(fields, message);
      if (typeof rest[0] === 'string') text = rest.shift() as string;
    } else {
      text = String(message);
    }
    // Nest's own error calls pass the stack as a string before the context.
    if (level === 'error' && typeof rest[0] === 'string' && fields.err === undefined) fields.stack = rest.shift();
    this.logger[level](fields, text);
  }
}
