import { Param, PipeTransform, Provider, Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { ApiParam, ApiParamOptions } from '@nestjs/swagger';
import { ErrorCode } from '../../core/errors';
import { TAG_RULE } from '../../core/tags/tag-rules';
import { AddressPipe } from './address.pipes';
import { TagValidationPipe } from './tag-validation.pipe';

const PATH_PARAMETER_ERRORS = 'chaintags:path-parameter-errors';

interface PathParameter {
  name: string;
  /** The contract code of a bad value, including one Express cannot percent-decode. */
  code: ErrorCode;
  /** Checks the value; without one, the handler takes the text as it is. */
  pipe?: Type<PipeTransform>;
  docs: Omit<ApiParamOptions, 'name'>;
}

/** One decorator per kind of path parameter: it validates, documents and names the code of a bad value. */
export function pathParameter({ name, code, pipe, docs }: PathParameter): ParameterDecorator {
  return (target, method, index) => {
    if (method === undefined) throw new Error(`the :${name} path parameter decorator belongs on a handler`);
    if (pipe === undefined) Param(name)(target, method, index);
    else Param(name, pipe)(target, method, index);
    ApiParam({ name, ...docs })(target, method, Object.getOwnPropertyDescriptor(target, method)!);
    Reflect.defineMetadata(
      PATH_PARAMETER_ERRORS,
      { ...pathParameterErrors(target, method), [name]: code },
      target,
      method,
    );
  };
}

/** `:address`: any accepted form of an address of any chain, parsed (INVALID_ADDRESS otherwise). */
export const AddressParam = (): ParameterDecorator =>
  pathParameter({
    name: 'address',
    code: 'INVALID_ADDRESS',
    pipe: AddressPipe,
    docs: { description: 'An address of any supported chain.', example: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4' },
  });

/** `:tag`: a tag name of the tag rules, or the reserved `0` (INVALID_TAG otherwise). */
export const TagParam = (): ParameterDecorator =>
  pathParameter({
    name: 'tag',
    code: 'INVALID_TAG',
    pipe: TagValidationPipe,
    docs: {
      description: `${TAG_RULE} "0" addresses the tracked addresses without a tag.`,
      example: 'exchange_wallets',
    },
  });

/** The codes a handler's path parameters declare, by parameter name. */
export function pathParameterErrors(prototype: object, method: string | symbol): Readonly<Record<string, ErrorCode>> {
  return (Reflect.getMetadata(PATH_PARAMETER_ERRORS, prototype, method) ?? {}) as Record<string, ErrorCode>;
}

/** A route's path and the codes its path parameters declare. */
export interface RouteParameters {
  path: string;
  errors: Readonly<Record<string, ErrorCode>>;
}

interface CompiledRoute {
  pattern: RegExp;
  names: string[];
  errors: Readonly<Record<string, ErrorCode>>;
}

/**
 * Finds which route's path parameter a request path spells with broken percent-encoding. Express
 * fails to decode such a parameter while matching routes, before any guard, pipe or handler of
 * the route runs, so the exception filter asks this table which code the route declared.
 */
export class PathParameterRoutes {
  private readonly routes: CompiledRoute[];

  constructor(routes: readonly RouteParameters[]) {
    this.routes = routes.flatMap(compile);
  }

  /**
   * Like Express: the first route whose pattern matches the path (whatever the method), and its
   * first parameter that does not decode. `code` is undefined when the route declares none for it.
   */
  undecodable(path: string): { name: string; code: ErrorCode | undefined } | undefined {
    for (const route of this.routes) {
      const values = route.pattern.exec(path)?.slice(1);
      if (values === undefined) continue;
      const index = values.findIndex((value) => !decodes(value));
      if (index < 0) continue;
      const name = route.names[index]!;
      return { name, code: route.errors[name] };
    }
    return undefined;
  }
}

/** Path-to-regexp's defaults as Express uses them: case-insensitive, an optional trailing slash. */
function compile(route: RouteParameters): CompiledRoute[] {
  const names: string[] = [];
  const segments = route.path.split('/').map((segment) => {
    if (!segment.startsWith(':')) return segment.replace(/[.+?^$()|[\]\\]/g, '\\$&');
    names.push(segment.slice(1));
    return '([^/]+)';
  });
  // Wildcards and optional groups are not used by any route; such a route gets no entry.
  if (route.path.includes('*') || route.path.includes('{') || names.some((name) => !/^\w+$/.test(name))) return [];
  return [{ pattern: new RegExp(`^${segments.join('/')}/?$`, 'i'), names, errors: route.errors }];
}

function decodes(value: string): boolean {
  try {
    decodeURIComponent(value);
    return true;
  } catch {
    return false;
  }
}

/** The table for the application's own controllers, read from the metadata of their decorators. */
export const pathParameterRoutesProvider: Provider = {
  provide: PathParameterRoutes,
  inject: [DiscoveryService, MetadataScanner],
  useFactory: (discovery: DiscoveryService, scanner: MetadataScanner) =>
    new PathParameterRoutes(controllerRoutes(discovery, scanner)),
};

function controllerRoutes(discovery: DiscoveryService, scanner: MetadataScanner): RouteParameters[] {
  return discovery.getControllers().flatMap(({ metatype }) => {
    if (typeof metatype !== 'function') return [];
    const prototype = metatype.prototype as Record<string, unknown>;
    const bases = pathsOf(Reflect.getMetadata(PATH_METADATA, metatype));
    return scanner.getAllMethodNames(prototype).flatMap((method) => {
      const handler = prototype[method] as object;
      if (Reflect.getMetadata(METHOD_METADATA, handler) === undefined) return [];
      const errors = pathParameterErrors(prototype, method);
      return bases.flatMap((base) =>
        pathsOf(Reflect.getMetadata(PATH_METADATA, handler)).map((own) => ({ path: joinPath(base, own), errors })),
      );
    });
  });
}

function pathsOf(metadata: unknown): string[] {
  if (Array.isArray(metadata)) return metadata.map(String);
  return [typeof metadata === 'string' ? metadata : '/'];
}

function joinPath(...parts: string[]): string {
  const joined = `/${parts.join('/')}`.replace(/\/+/g, '/');
  return joined.length > 1 ? joined.replace(/\/$/, '') : joined;
}
