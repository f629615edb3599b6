import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import helmet from 'helmet';
import type { DestinationStream } from 'pino';
import { AppModule } from './app.module';
import { jsonBodyParser } from './common/json-body';
import { createLogger, NestPinoLogger, requestLogger } from './common/logging';
import { AppConfig } from './config/config';
import { buildOpenApiDocument, setupOpenApi } from './openapi';

/** Builds the HTTP application; main.ts and the e2e tests both use this, so they test what runs. */
export async function createApp(
  config: AppConfig,
  options: { logDestination?: DestinationStream } = {},
): Promise<NestExpressApplication> {
  const logger = createLogger(config.logLevel, options.logDestination);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    bodyParser: false,
    logger: new NestPinoLogger(logger),
  });
  app.disable('x-powered-by');
  app.use(requestLogger(logger));
  app.use(
    helmet({
      // Swagger UI at /docs has an inline <style> block; its scripts are files. Self-hosted installs
      // are often reached over plain HTTP, where upgrading the page's asset requests to HTTPS would break it.
      contentSecurityPolicy: {
        directives: {
          'style-src': ["'self'", "'unsafe-inline'"],
          'img-src': ["'self'", 'data:'],
          'upgrade-insecure-requests': null,
        },
      },
    }),
  );
  app.use(jsonBodyParser());
  app.enableShutdownHooks();
  setupOpenApi(app, buildOpenApiDocument(app));
  return app;
}
