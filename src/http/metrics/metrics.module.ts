import { DynamicModule, Global, Module } from '@nestjs/common';
import { MetricsController } from './metrics.controller';
import { Metrics } from './metrics.service';

/**
 * Provides `Metrics` everywhere, so that any module can report through it. With METRICS=off the
 * service still exists (reporting costs next to nothing) but nothing is served or collected. The
 * process's own metrics are collected unless `processMetrics` is false (createApp's option).
 */
@Global()
@Module({})
export class MetricsModule {
  static forRoot({ enabled, processMetrics }: { enabled: boolean; processMetrics: boolean }): DynamicModule {
    return {
      module: MetricsModule,
      controllers: enabled ? [MetricsController] : [],
      providers: [
        {
          provide: Metrics,
          useFactory: () => {
            const metrics = new Metrics();
            if (enabled && processMetrics) metrics.collectProcessMetrics();
            return metrics;
          },
        },
      ],
      exports: [Metrics],
    };
  }
}
