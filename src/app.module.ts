import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE, DiscoveryModule } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { AccountsModule } from './modules/accounts/accounts.module';
import { AddressesModule } from './modules/addresses/addresses.module';
import { KeyBootstrap } from './modules/accounts/accounts.service';
import { ChainsModule } from './modules/chains/chains.module';
import { ApiExceptionFilter } from './http/errors/api-exception.filter';
import { ApiKeyGuard } from './http/auth/api-key.guard';
import { KeyAccessGuard } from './http/auth/key-access.guard';
import { KeyThrottlerGuard } from './http/throttling/key-throttler.guard';
import { pathParameterRoutesProvider } from './http/validation/path-params';
import { StrictQueryGuard } from './http/validation/strict-query.guard';
import { MetricsModule } from './http/metrics/metrics.module';
import { DB_POOL_METRICS } from './app.metrics';
import { queryValidationPipe } from './http/validation/validation';
import { AppConfig } from './config/config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { FollowModule } from './modules/follow/follow.module';
import { HealthController } from './modules/health/health.controller';
import { HoldingsModule } from './modules/holdings/holdings.module';
import { IngestModule } from './modules/ingest/ingest.module';
import { PricesModule } from './modules/prices/prices.module';
import { TagsModule } from './modules/tags/tags.module';
import { TokensModule } from './modules/tokens/tokens.module';
import { TransactionsModule } from './modules/transactions/transactions.module';
import { WebhooksModule } from './modules/webhooks/webhooks.module';

/** The feature modules the HTTP server serves (the CLI's commands name the modules they need). */
export const DOMAIN_MODULES = [
  AccountsModule,
  ChainsModule,
  TokensModule,
  TagsModule,
  AddressesModule,
  HoldingsModule,
  TransactionsModule,
  IngestModule,
];

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, options: { processMetrics: boolean }): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule,
        DiscoveryModule,
        MetricsModule.forRoot({
          route: config.operations.metrics,
          processMetrics: config.operations.metrics && options.processMetrics,
        }),
        ThrottlerModule.forRoot({
          throttlers: [{ name: 'default', ttl: 60_000, limit: Math.max(config.rateLimitPerMinute, 1) }],
          skipIf: () => config.rateLimitPerMinute === 0,
        }),
        ...DOMAIN_MODULES,
        PricesModule,
        FollowModule.forRoot({ startOnBoot: config.follow.enabled }),
        WebhooksModule.forRoot({ dispatch: true }),
      ],
      controllers: [HealthController],
      providers: [
        KeyBootstrap,
        DB_POOL_METRICS,
        // Guards run in this order: the key is identified first, then rate limited per key, then the
        // query string is checked for parameters the route does not take.
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        { provide: APP_GUARD, useClass: KeyThrottlerGuard },
        { provide: APP_GUARD, useClass: KeyAccessGuard },
        { provide: APP_GUARD, useClass: StrictQueryGuard },
        pathParameterRoutesProvider,
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
        { provide: APP_PIPE, useFactory: queryValidationPipe },
      ],
    };
  }
}
