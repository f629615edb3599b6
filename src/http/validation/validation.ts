import { ValidationError, ValidationPipe } from '@nestjs/common';
import { ApiError } from '../../core/errors';

/**
 * The global pipe. Class DTOs describe query strings only (bodies are address arrays checked by
 * their own pipe), so every failure here is a bad query parameter.
 */
export function queryValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: (errors: ValidationError[]) => {
      const details = errors.map(describe);
      return new ApiError('INVALID_QUERY', details.map((d) => d.message).join('; '), details);
    },
  });
}

function describe(error: ValidationError): { parameter: string; message: string } {
  const constraints = error.constraints ?? {};
  if (constraints.whitelistValidation) {
    return { parameter: error.property, message: `unknown query parameter "${error.property}"` };
  }
  const message = Object.values(constraints)[0] ?? `invalid value for ${error.property}`;
  return { parameter: error.property, message };
}
