import { Module } from '@nestjs/common';
import { StatsModule } from '../stats/stats.module';
import { AddressesController } from './addresses.controller';
import { AddressesService } from './addresses.service';

/** GET /v2/addresses/:address. The parsing it relies on is the Nest-free code one folder up. */
@Module({
  imports: [StatsModule],
  controllers: [AddressesController],
  providers: [AddressesService],
})
export class AddressesModule {}
