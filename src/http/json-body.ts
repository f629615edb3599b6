import { applyDecorators, CanActivate, ExecutionContext, Injectable, UseGuards } from '@nestjs/common';
import { ApiConsumes } from '@nestjs/swagger';
import express, { Request, Response } from 'express';
import { ApiError } from '../core/errors';

export const MAX_BODY_BYTES = 1024 * 1024;
export const BODY_TOO_LARGE = 'The request body is larger than 1 MiB.';
export const JSON_REQUIRED = 'Send the body as JSON with the header Content-Type: application/json.';

const parseJson = express.json({ limit: MAX_BODY_BYTES, strict: false, type: 'application/json' });

/**
 * Reads the JSON body of a route that takes one, after the key and the rate limit were checked:
 * anything but `Content-Type: application/json` is 415 UNSUPPORTED_MEDIA_TYPE, a body over 1 MiB
 * 413 PAYLOAD_TOO_LARGE and malformed JSON 400 INVALID_BODY. A route without it never reads a
 * body, so a body sent to one (a DELETE or a ping, say) is ignored, not an error its documentation
 * would not name.
 */
@Injectable()
class JsonBodyGuard implements CanActivate {
  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    // The header as sent, not request.is(), which answers null for a request without a body: that
    // one is an empty body (INVALID_BODY), like a body of length zero.
    if (mediaType(request.headers['content-type']) !== 'application/json') {
      throw new ApiError('UNSUPPORTED_MEDIA_TYPE', JSON_REQUIRED);
    }
    await new Promise<void>((resolve, reject) =>
      parseJson(request, http.getResponse<Response>(), (error?: unknown) =>
        error === undefined ? resolve() : reject(toApiError(error)),
      ),
    );
    return true;
  }
}

function mediaType(header: string | undefined): string | undefined {
  return header?.split(';')[0]!.trim().toLowerCase();
}

function toApiError(error: unknown): ApiError {
  const type = (error as { type?: string }).type;
  if (type === 'entity.too.large') return new ApiError('PAYLOAD_TOO_LARGE', BODY_TOO_LARGE);
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new ApiError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be UTF-8 JSON.');
  }
  return new ApiError('INVALID_BODY', 'The request body is not valid JSON.');
}

/** Marks a route that takes a JSON body (JsonBodyGuard reads it). */
export const JsonBody = (): MethodDecorator =>
  applyDecorators(UseGuards(JsonBodyGuard), ApiConsumes('application/json'));
