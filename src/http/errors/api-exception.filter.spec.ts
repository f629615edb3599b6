import { ArgumentsHost, BadRequestException, NotFoundException } from '@nestjs/common';
import { ThrottlerException } from '@nestjs/throttler';
import { ApiExceptionFilter } from './api-exception.filter';
import { ApiError } from '../../core/errors';

function run(exception: unknown): { status: number; body: Record<string, unknown> } {
  const sent = { status: 0, body: {} as Record<string, unknown> };
  const response = {
    headersSent: false,
    status(code: number) {
      sent.status = code;
      return this;
    },
    json(body: Record<string, unknown>) {
      sent.body = body;
    },
  };
  const request = { method: 'GET', path: '/v2/somewhere', id: 'req-1' };
  const host = {
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => response }),
  } as unknown as ArgumentsHost;
  new ApiExceptionFilter().catch(exception, host);
  return sent;
}

describe('ApiExceptionFilter', () => {
  it('answers domain errors with their code, message and details', () => {
    expect(run(new ApiError('TAG_LIMIT_EXCEEDED', 'too many', [{ address: 'a', tag_count: 50 }]))).toEqual({
      status: 422,
      body: {
        statusCode: 422,
        error: 'Unprocessable Entity',
        code: 'TAG_LIMIT_EXCEEDED',
        message: 'too many',
        details: [{ address: 'a', tag_count: 50 }],
      },
    });
  });

  it('hides everything about an unexpected error behind a bare 500', () => {
    const failure = new Error(
      'duplicate key value violates unique constraint "api_keys_key_hash_key" SELECT * FROM api_keys',
    );
    const { status, body } = run(failure);
    expect(status).toBe(500);
    expect(body).toEqual({
      statusCode: 500,
      error: 'Internal Server Error',
      code: 'INTERNAL',
      message: 'Internal server error; the request id in X-Request-Id identifies it in the logs.',
    });
    expect(JSON.stringify(body)).not.toMatch(/api_keys|SELECT|stack/);
  });

  it('maps framework errors to contract codes', () => {
    expect(run(new NotFoundException()).body).toMatchObject({
      statusCode: 404,
      code: 'NOT_FOUND',
      message: 'No route GET /v2/somewhere',
    });
    expect(run(new ThrottlerException()).body).toMatchObject({ statusCode: 429, code: 'RATE_LIMITED' });
    expect(run(new BadRequestException('nope')).body).toMatchObject({
      statusCode: 400,
      code: 'BAD_REQUEST',
      message: 'nope',
    });
  });
});
