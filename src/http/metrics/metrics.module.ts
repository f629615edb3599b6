import { DynamicModule, Global, Module } from '@nestjs/common';
import { MetricsController } from './metrics.controller';
import { Metrics } from './metrics.service';

/**
 * Provides `Metrics` everywhere, so that any module can report through it. `route`: GET /metrics
 * is served by the app (off with METRICS=off: the service still exists, since reporting costs next
 * to nothing, but nothing is served). `processMetrics`: the process's own metrics are collected
 * (createApp's option; the `follow` worker, which serves its own GET /metrics, collects them too).
 */
@Global()
@Module({})
export class MetricsModule {
  static forRoot({ route, processMetrics }: { route: boolean; processMetrics: boolean }): DynamicModule {
    return {
      module: MetricsModule,
      controllers: route ? [MetricsController] : [],
      providers: [
        {
          provide: Metrics,
          useFactory: () => {
            const metrics = new Metrics();
            if (processMetrics) metrics.collectProcessMetrics();
            return metrics;
          },
        },
      ],
      exports: [Metrics],
    };
  }
}
