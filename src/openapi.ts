import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { version } from '../package.json';
import { CHAINS } from './core/chains/chain-registry';

const DESCRIPTION = `Tag blockchain addresses and read address, tag, token-holding and transaction data across ${CHAINS.length} chains.

Every route under /v2 needs an API key, passed as the \`api_key\` query parameter or the \`X-API-Key\` header.
Errors share one body: \`{"statusCode", "error", "code", "message", "details"?}\`.
Lists are paginated with \`per_page\` (1-100, default 30) and a \`Link\` header (first, prev, next, last).`;

/** The OpenAPI document served at /docs-json and committed as openapi.json. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('chaintags')
    .setDescription(DESCRIPTION)
    .setVersion(version)
    .addApiKey(
      { type: 'apiKey', in: 'query', name: 'api_key', description: 'API key as a query parameter.' },
      'api_key',
    )
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'API key as a header.' }, 'X-API-Key')
    .addSecurityRequirements('api_key')
    .addSecurityRequirements('X-API-Key')
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controller, method) => `${controller.replace(/Controller$/, '')}_${method}`,
  });
  for (const [path, item] of Object.entries(document.paths)) {
    if (path.startsWith('/v2/')) continue;
    for (const operation of Object.values(item)) (operation as { security?: unknown[] }).security = [];
  }
  return document;
}

export function setupOpenApi(app: INestApplication, document: OpenAPIObject): void {
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json', customSiteTitle: 'chaintags API' });
}
