import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { version } from '../package.json';
import { CHAINS } from './core/chains/chain-registry';
import { ERROR_STATUS, ErrorCode, reasonPhrase } from './core/errors';
import { READ_ONLY_MESSAGE } from './http/auth/key-access.guard';
import { DATABASE_RETRY_AFTER_SECONDS } from './http/errors/database-unavailable';

const DESCRIPTION = `Tag blockchain addresses and read address, tag, token-holding and transaction data across ${CHAINS.length} chains.

Every route under /v2 needs an API key, passed as the \`api_key\` query parameter or the \`X-API-Key\` header.
Errors share one body: \`{"statusCode", "error", "code", "message", "details"?}\`.
Lists are paginated with \`per_page\` (1-100, default 30) and a \`Link\` header (first, prev, next, last).`;

/**
 * The groups of operations, in the order Swagger UI shows them, each with what it is for. Every
 * controller's `@ApiTags` names one of these (a test checks).
 */
const GROUPS: readonly [name: string, description: string][] = [
  [
    'tags',
    "Label addresses with the account's tags, read what a tag holds, its history, and export or import them all.",
  ],
  ['addresses', 'One address on every chain where it is valid: its chains, tags and stats.'],
  ['token-holdings', 'Balances per address and token, filtered by address, tag, chain or token.'],
  ['transactions', 'Transfers of native coins and tokens, filtered by address, tag, chain, token and time.'],
  ['webhooks', 'Signed notifications when an address carrying one of your tags moves value.'],
  ['chains', "The supported chains, with their explorers' links."],
  ['tokens', 'The known tokens and their deployments per chain.'],
  ['sync', 'How far each followed chain is indexed.'],
  ['health', 'Liveness and the database, for load balancers (no key needed).'],
];

/** The OpenAPI document served at /docs-json and committed as openapi.json. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('chaintags')
    .setDescription(DESCRIPTION)
    .setVersion(version)
    .setLicense('MIT', 'https://opensource.org/license/mit')
    .addServer('/', 'The chaintags instance serving this document')
    .addApiKey(
      { type: 'apiKey', in: 'query', name: 'api_key', description: 'API key as a query parameter.' },
      'api_key',
    )
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'API key as a header.' }, 'X-API-Key')
    .addSecurityRequirements('api_key')
    .addSecurityRequirements('X-API-Key');
  for (const [name, description] of GROUPS) config.addTag(name, description);
  const options = config.build();
  const document = SwaggerModule.createDocument(app, options, {
    operationIdFactory: (controller, method) => `${controller.replace(/Controller$/, '')}_${method}`,
  });
  for (const [path, item] of Object.entries(document.paths)) {
    if (path.startsWith('/v2/')) continue;
    for (const operation of Object.values(item)) (operation as { security?: unknown[] }).security = [];
  }
  addOperationalResponses(document);
  return document;
}

/**
 * Answers every route can give whatever it does: 503 while the database cannot be reached, 403 to
 * a read-only key on every keyed route but a GET (the global KeyAccessGuard), and 400 for an
 * unknown query parameter (the global query check), where a route documents no other client error.
 */
function addOperationalResponses(document: OpenAPIObject): void {
  const error = (code: ErrorCode, message: string) => ({
    schema: { $ref: '#/components/schemas/ErrorDto' },
    example: { statusCode: ERROR_STATUS[code], error: reasonPhrase(ERROR_STATUS[code]), code, message },
  });
  document.components = { ...document.components, headers: RESPONSE_HEADERS };
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item) as [string, { responses: Record<string, unknown> }][]) {
      if (path.startsWith('/v2/') && method !== 'get') {
        operation.responses['403'] ??= {
          description: 'Forbidden: READ_ONLY_KEY',
          content: { 'application/json': error('READ_ONLY_KEY', READ_ONLY_MESSAGE) },
        };
      }
      operation.responses['503'] ??= {
        description: 'Service Unavailable: DATABASE_UNAVAILABLE',
        headers: {
          'Retry-After': {
            description: 'Seconds to wait before trying again.',
            schema: { type: 'integer', example: DATABASE_RETRY_AFTER_SECONDS },
          },
        },
        content: { 'application/json': error('DATABASE_UNAVAILABLE', 'The database cannot be reached right now.') },
      };
      if (!Object.keys(operation.responses).some((status) => status.startsWith('4'))) {
        operation.responses['400'] = {
          description: 'Bad Request: INVALID_QUERY',
          content: { 'application/json': error('INVALID_QUERY', 'unknown query parameter "verbose"') },
        };
      }
      for (const [status, response] of Object.entries(operation.responses) as [string, ResponseObject][]) {
        response.headers = { ...response.headers, ...headersOf(path, status) };
      }
    }
  }
}

type ResponseObject = { headers?: Record<string, unknown> };

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

/**
 * The headers every answer of a route carries, as components: the request id on each; the rate
 * limit's on a keyed route's answers once the key is known (not a 401, and not a 503, which comes
 * while the key is looked up), unless RATE_LIMIT_PER_MINUTE is 0; Retry-After on a 429.
 */
function headersOf(path: string, status: string): Record<string, unknown> {
  const headers: Record<string, unknown> = { 'X-Request-Id': ref('X-Request-Id') };
  if (!path.startsWith('/v2/')) return headers;
  if (status === '429') return { ...headers, 'Retry-After': ref('Retry-After') };
  if (status === '401' || status === '503') return headers;
  for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) headers[name] = ref(name);
  return headers;
}

const RESPONSE_HEADERS = {
  'X-Request-Id': {
    description:
      "The request's id, which its log line carries: the X-Request-Id it was sent with when that is 1 to 128 of letters, digits and _ . : @ -, else a new UUID.",
    required: true,
    schema: { type: 'string', example: '1f0c2a9e-7b4d-4c1e-9a57-3e2d8b6f0a11' },
  },
  'X-RateLimit-Limit': {
    description: 'Requests a minute this key may send (RATE_LIMIT_PER_MINUTE); absent when there is no limit.',
    schema: { type: 'integer', example: 6000 },
  },
  'X-RateLimit-Remaining': {
    description: "Requests left in this key's current window.",
    schema: { type: 'integer', example: 5987 },
  },
  'X-RateLimit-Reset': {
    description: 'Seconds until the window ends.',
    schema: { type: 'integer', example: 42 },
  },
  'Retry-After': {
    description: 'Seconds to wait before this key may send again.',
    schema: { type: 'integer', example: 17 },
  },
};

export function setupOpenApi(app: INestApplication, document: OpenAPIObject): void {
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs-json',
    customSiteTitle: 'chaintags API',
    swaggerOptions: {
      // The key entered under Authorize survives a reload (kept in the browser's localStorage).
      persistAuthorization: true,
      // Requests can be sent at once, each answer shows how long it took, and operations can be
      // filtered by group.
      tryItOutEnabled: true,
      displayRequestDuration: true,
      filter: true,
    },
  });
}
