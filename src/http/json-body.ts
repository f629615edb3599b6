import { applyDecorators, CanActivate, ExecutionContext, Injectable, UseGuards } from '@nestjs/common';
import { ApiConsumes } from '@nestjs/swagger';
import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import { ApiError } from '../core/errors';

export const MAX_BODY_BYTES = 1024 * 1024;
export const BODY_TOO_LARGE = 'The request body is larger than 1 MiB.';
export const JSON_REQUIRED = 'Send the body as JSON with the header Content-Type: application/json.';

/**
 * express.json with the contract's limits and errors: bodies over 1 MiB are 413 PAYLOAD_TOO_LARGE and
 * malformed JSON is 400 INVALID_BODY, raised as ApiError so the global filter answers them.
 */
export function jsonBodyParser(): RequestHandler {
  const parse = express.json({ limit: MAX_BODY_BYTES, strict: false, type: 'application/json' });
  return (request: Request, response: Response, next: NextFunction) => {
    parse(request, response, (error?: unknown) => next(error === undefined ? undefined : toApiError(error)));
  };
}

function toApiError(error: unknown): ApiError {
  const type = (error as { type?: string }).type;
  if (type === 'entity.too.large') return new ApiError('PAYLOAD_TOO_LARGE', BODY_TOO_LARGE);
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new ApiError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be UTF-8 JSON.');
  }
  return new ApiError('INVALID_BODY', 'The request body is not valid JSON.');
}

@Injectable()
class RequireJsonGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<Request>();
    if (request.is('application/json') !== 'application/json') {
      throw new ApiError('UNSUPPORTED_MEDIA_TYPE', JSON_REQUIRED);
    }
    return true;
  }
}

/** Marks a route that takes a JSON body: anything but `Content-Type: application/json` is 415. */
export const JsonBody = (): MethodDecorator =>
  applyDecorators(UseGuards(RequireJsonGuard), ApiConsumes('application/json'));
