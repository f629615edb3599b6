import { Module } from '@nestjs/common';
import { PriceSourceClient } from './price-source.client';
import { PricesRepository } from './prices.repository';
import { PricesService } from './prices.service';

/**
 * The price poller. Importing this module into a Nest application or context starts polling when
 * that context starts (unless PRICE_REFRESH_SECONDS=0) and stops it when the context closes.
 */
@Module({
  providers: [PricesService, PricesRepository, PriceSourceClient],
  exports: [PricesService],
})
export class PricesModule {}
