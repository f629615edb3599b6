import { Injectable } from '@nestjs/common';
import { StatsService } from '../stats/stats.service';
import { TagsService } from '../tags/tags.service';
import type { ParsedAddress } from '../../core/addresses/address-families';
import { AddressDetailsDto, toAddressDetails } from './dto/address-details.dto';

@Injectable()
export class AddressesService {
  constructor(
    private readonly tags: TagsService,
    private readonly stats: StatsService,
  ) {}

  async details(accountId: number, address: ParsedAddress): Promise<AddressDetailsDto> {
    const [[record], stats] = await Promise.all([
      this.tags.records(accountId, [address]),
      this.stats.forAddress(address.canonical),
    ]);
    return toAddressDetails(address, record?.tags ?? [], stats);
  }
}
