import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Registry } from 'prom-client';
import { Public } from '../auth/public.decorator';
import { Metrics } from './metrics.service';

/**
 * GET /metrics, in Prometheus' text format, for the operator's scraper: no key (like /health) and
 * no rate limit (the limit is per key). It is not in the OpenAPI document, which describes the
 * JSON API that clients use and must not change with METRICS.
 */
@ApiExcludeController()
@Controller('metrics')
@Public()
export class MetricsController {
  constructor(private readonly metrics: Metrics) {}

  @Get()
  @Header('Content-Type', Registry.PROMETHEUS_CONTENT_TYPE)
  @Header('Cache-Control', 'no-store')
  scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
