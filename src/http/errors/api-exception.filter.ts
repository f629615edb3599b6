import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { ThrottlerException } from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { ApiError, ErrorBody, ErrorCode, errorBody } from '../../core/errors';
import { PathParameterRoutes } from '../validation/path-params';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from './database-unavailable';

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  404: 'NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
};

export const RATE_LIMITED_MESSAGE =
  'Rate limit exceeded for this API key; retry after the number of seconds in Retry-After.';
export const INTERNAL_MESSAGE = 'Internal server error; the request id in X-Request-Id identifies it in the logs.';

export function noRoute(method: string, path: string): string {
  return `No route ${method} ${path}`;
}

/**
 * Every error leaves the service through here, in the contract's shape. Only messages written for
 * clients are passed on; anything unexpected is logged with the request id and answered as a bare
 * 500, so no stack trace, SQL or driver text reaches a response.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(private readonly pathParameters: PathParameterRoutes) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<Request & { id?: string }>();
    const response = host.switchToHttp().getResponse<Response>();
    const body = this.toBody(exception, request);
    if (body.statusCode >= 500 && body.code === 'INTERNAL') {
      this.logger.error({ requestId: request.id, err: exception }, 'unexpected error');
    }
    if (body.code === 'DATABASE_UNAVAILABLE') {
      // The driver's reason goes to the log only; the client learns when to come back.
      if (!(exception instanceof ApiError))
        this.logger.warn({ requestId: request.id, err: exception }, 'database unavailable');
      if (!response.headersSent) response.setHeader('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
    }
    if (response.headersSent) return;
    response.status(body.statusCode).json(body);
  }

  private toBody(exception: unknown, request: Request): ErrorBody {
    if (exception instanceof ApiError) return errorBody(exception.code, exception.message, exception.details);
    if (exception instanceof ThrottlerException) {
      return errorBody('RATE_LIMITED', RATE_LIMITED_MESSAGE);
    }
    if (isDatabaseUnavailable(exception)) {
      return errorBody(
        'DATABASE_UNAVAILABLE',
        'The database cannot be reached right now; retry after the number of seconds in Retry-After.',
      );
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const code = CODE_BY_STATUS[status];
      if (status === 404) return errorBody('NOT_FOUND', noRoute(request.method, request.path));
      if (status === 400 && /^Failed to decode param/.test(exception.message)) return this.undecodable(request.path);
      if (code) return errorBody(code, clientMessage(exception));
    }
    return errorBody('INTERNAL', INTERNAL_MESSAGE);
  }

  /** A path parameter with broken percent-encoding gets the code its route declares for a bad value. */
  private undecodable(path: string): ErrorBody {
    const parameter = this.pathParameters.undecodable(path);
    if (parameter?.code === undefined) return errorBody('BAD_REQUEST', 'The path is not valid percent-encoded text.');
    return errorBody(parameter.code, `The ${parameter.name} in the path is not valid percent-encoded text.`);
  }
}

function clientMessage(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : exception.message;
}
