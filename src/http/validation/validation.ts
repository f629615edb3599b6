import { ValidationError, ValidationPipe } from '@nestjs/common';
import { ApiError } from '../../core/errors';

/** One entry of an INVALID_QUERY answer's `details`. */
export interface QueryProblem {
  parameter: string;
  message: string;
}

export function unknownParameter(name: string): QueryProblem {
  return { parameter: name, message: `unknown query parameter "${name}"` };
}

/** Every problem of a query string in one answer: the message lists them all, `details` one each. */
export function invalidQuery(problems: QueryProblem[]): ApiError {
  return new ApiError('INVALID_QUERY', problems.map((problem) => problem.message).join('; '), problems);
}

/**
 * The global pipe. Class DTOs describe query strings only (bodies are address arrays checked by
 * their own pipe), so every failure here is a bad query parameter. Unknown parameters never get
 * this far: StrictQueryGuard rejects them on every route, with or without a query DTO. `whitelist`
 * still strips what a DTO does not declare, so that `api_key` never reaches a handler.
 */
export function queryValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    transform: true,
    exceptionFactory: (errors: ValidationError[]) => invalidQuery(errors.map(describe)),
  });
}

function describe(error: ValidationError): QueryProblem {
  const message = Object.values(error.constraints ?? {})[0] ?? `invalid value for ${error.property}`;
  return { parameter: error.property, message };
}
