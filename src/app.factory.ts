import type { Server } from 'node:http';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import type { DestinationStream } from 'pino';
import { AppModule } from './app.module';
import { ExpressServerAdapter } from './http/express-server';
import { createLogger, logFormat, NestPinoLogger, requestLogger } from './http/logging/logging';
import { httpMetrics } from './http/metrics/http-metrics';
import { Metrics } from './http/metrics/metrics.service';
import { HELMET_OPTIONS, securityHeaders } from './http/security-headers';
import { corsOptions } from './http/cors';
import { PUBLIC_URL_SETTING } from './http/paging/paged';
import { AppConfig } from './config/config';
import { buildOpenApiDocument, setupOpenApi } from './openapi';

export interface AppOptions {
  /** Where log lines go instead of stdout (always JSON). */
  logDestination?: DestinationStream;
  /**
   * Whether GET /metrics carries the Node.js process's own metrics (`process_*`, `nodejs_*`); on
   * unless false, and only with METRICS on. prom-client's collectors of GC durations and event
   * loop lag live as long as the process, not the app (nothing can stop them), and each holds
   * everything the app's code was loaded with: a process that starts many apps, as the e2e tests
   * do, leaves them out where it does not read them.
   */
  processMetrics?: boolean;
}

/** Builds the HTTP application; main.ts and the e2e tests both use this, so they test what runs. */
export async function createApp(config: AppConfig, options: AppOptions = {}): Promise<NestExpressApplication> {
  // A destination given by a test always gets JSON, whatever the terminal.
  const format = options.logDestination ? 'json' : logFormat(process.stdout.isTTY, config.operations.production);
  const logger = createLogger(config.logLevel, options.logDestination, format);
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot(config, { processMetrics: options.processMetrics ?? true }),
    new ExpressServerAdapter(),
    {
      bodyParser: false,
      abortOnError: false,
      logger: new NestPinoLogger(logger),
    },
  );
  app.disable('x-powered-by');
  const server: Server = app.getHttpServer();
  server.keepAliveTimeout = config.operations.keepAliveMs;
  // Above the keep-alive time, or a request that starts on a connection about to time out is cut.
  server.headersTimeout = Math.max(server.headersTimeout, config.operations.keepAliveMs + 1_000);
  if (config.operations.publicUrl !== undefined) app.set(PUBLIC_URL_SETTING, config.operations.publicUrl);
  app.use(requestLogger(logger));
  if (config.operations.metrics) app.use(httpMetrics(app.get(Metrics)));
  if (config.operations.corsOrigins !== undefined) app.enableCors(corsOptions(config.operations.corsOrigins));
  app.use(securityHeaders(HELMET_OPTIONS));
  const document = buildOpenApiDocument(app);
  // Behind a proxy, Swagger UI's requests go to the address clients use (a path it serves under included).
  if (config.operations.publicUrl !== undefined) {
    document.servers = [{ url: config.operations.publicUrl, description: 'This chaintags instance (PUBLIC_URL)' }];
  }
  setupOpenApi(app, document);
  return app;
}
