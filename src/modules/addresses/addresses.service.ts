import { Injectable } from '@nestjs/common';
import { StatsService } from '../stats/stats.service';
import type { ParsedAddress } from '../../core/addresses/address-families';
import { AddressDetailsDto, toAddressDetails } from './dto/address-details.dto';

@Injectable()
export class AddressesService {
  constructor(private readonly stats: StatsService) {}

  /** One statement: the address's kept stats and the account's tags of it (`StatsRepository.forAddress`). */
  async details(accountId: number, address: ParsedAddress): Promise<AddressDetailsDto> {
    const { stats, tags } = await this.stats.forAddress(address.canonical, accountId);
    return toAddressDetails(address, tags, stats);
  }
}
