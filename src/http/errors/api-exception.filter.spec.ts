import { ArgumentsHost, BadRequestException, NotFoundException } from '@nestjs/common';
import { ThrottlerException } from '@nestjs/throttler';
import { ApiExceptionFilter } from './api-exception.filter';
import { ApiError } from '../../core/errors';
import { PathParameterRoutes } from '../validation/path-params';

/** Routes whose parameters declare codes the way @TagParam() and @AddressParam() do. */
const ROUTES = new PathParameterRoutes([
  { path: '/v2/somewhere', errors: {} },
  { path: '/v2/addresses/:address/labels/:tag', errors: { address: 'INVALID_ADDRESS', tag: 'INVALID_TAG' } },
  { path: '/v2/things/:id', errors: {} },
]);

function run(exception: unknown, path = '/v2/somewhere'): { status: number; body: Record<string, unknown> } {
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
  const request = { method: 'GET', path, id: 'req-1' };
  const host = {
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => response }),
  } as unknown as ArgumentsHost;
  new ApiExceptionFilter(ROUTES).catch(exception, host);
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

  describe('a path parameter Express cannot percent-decode', () => {
    // What Express's router hands on when decodeURIComponent fails on a parameter.
    const decodeFailure = (value: string) => new BadRequestException(`Failed to decode param '${value}'`);

    it('gets the code the route declares for that parameter, whatever the path starts with', () => {
      expect(run(decodeFailure('%E0%A4%A'), '/v2/addresses/0xabc/labels/%E0%A4%A').body).toEqual({
        statusCode: 400,
        error: 'Bad Request',
        code: 'INVALID_TAG',
        message: 'The tag in the path is not valid percent-encoded text.',
      });
      expect(run(decodeFailure('%FF'), '/V2/Addresses/%FF/labels/%FF/').body).toMatchObject({
        code: 'INVALID_ADDRESS',
        message: 'The address in the path is not valid percent-encoded text.',
      });
    });

    it('is a plain BAD_REQUEST where the route declares no code, or no route matches', () => {
      for (const path of ['/v2/things/%FF', '/v2/elsewhere/%FF']) {
        expect(run(decodeFailure('%FF'), path).body).toEqual({
          statusCode: 400,
          error: 'Bad Request',
          code: 'BAD_REQUEST',
          message: 'The path is not valid percent-encoded text.',
        });
      }
    });
  });
});
