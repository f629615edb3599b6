import { CanActivate, ExecutionContext, Injectable, Type } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { getMetadataStorage } from 'class-validator';
import type { Request } from 'express';
import { ApiError } from '../../core/errors';
import { API_KEY_PARAMETER } from '../auth/api-key.guard';
import { invalidQuery, QueryProblem, queryValidationPipe, unknownParameter } from './validation';

/** What a handler declares about its query string: the names it takes, and the DTOs that check them. */
interface QueryDeclaration {
  names: ReadonlySet<string>;
  dtos: readonly Type[];
}

/**
 * Contract §6 on every route: a query parameter the handler does not declare is 400 INVALID_QUERY,
 * whether or not the handler takes a query DTO; `api_key` is accepted everywhere. A handler
 * declares parameters with `@Query()`: a DTO's validated properties, or `@Query('name')`.
 *
 * Registered after the key and rate-limit guards: a request without a key is still 401, and a
 * rejected query string still counts against the key's budget.
 */
@Injectable()
export class StrictQueryGuard implements CanActivate {
  private readonly declarations = new WeakMap<object, QueryDeclaration>();
  private readonly pipe = queryValidationPipe();

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const query = context.switchToHttp().getRequest<Request>().query;
    const declared = this.declarationOf(context.getClass(), context.getHandler());
    const unknown = Object.keys(query).filter((name) => !declared.names.has(name));
    return unknown.length === 0 ? true : this.reject(unknown, query, declared);
  }

  /**
   * The answer also names the bad values of declared parameters, after the unknown ones, so it is
   * the one a single validation of the whole query string gives.
   */
  private async reject(unknown: string[], query: Request['query'], declared: QueryDeclaration): Promise<never> {
    const known = Object.fromEntries(
      Object.entries(query).filter(([name]) => declared.names.has(name) && name !== API_KEY_PARAMETER),
    );
    const problems = unknown.map(unknownParameter);
    for (const dto of declared.dtos) problems.push(...(await this.valueProblems(dto, known)));
    throw invalidQuery(problems);
  }

  private async valueProblems(dto: Type, query: Record<string, unknown>): Promise<QueryProblem[]> {
    try {
      await this.pipe.transform(query, { type: 'query', metatype: dto });
      return [];
    } catch (error) {
      if (error instanceof ApiError && error.code === 'INVALID_QUERY') return (error.details ?? []) as QueryProblem[];
      throw error;
    }
  }

  private declarationOf(controller: Type, handler: { name: string }): QueryDeclaration {
    let declared = this.declarations.get(handler);
    if (declared === undefined) {
      declared = readDeclaration(controller, handler.name);
      this.declarations.set(handler, declared);
    }
    return declared;
  }
}

/** Reads the handler's `@Query()` parameters from the metadata Nest's own decorators leave. */
function readDeclaration(controller: Type, method: string): QueryDeclaration {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) ?? {}) as Record<
    string,
    { index: number; data?: unknown }
  >;
  const types = (Reflect.getMetadata('design:paramtypes', controller.prototype as object, method) ?? []) as unknown[];
  const names = new Set([API_KEY_PARAMETER]);
  const dtos: Type[] = [];
  for (const [key, arg] of Object.entries(args)) {
    if (key.split(':')[0] !== String(RouteParamtypes.QUERY)) continue;
    if (typeof arg.data === 'string') {
      names.add(arg.data);
      continue;
    }
    const dto = types[arg.index];
    if (typeof dto !== 'function') continue;
    dtos.push(dto as Type);
    for (const rule of getMetadataStorage().getTargetValidationMetadatas(dto, '', false, false)) {
      names.add(rule.propertyName);
    }
  }
  return { names, dtos };
}
