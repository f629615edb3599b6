import { Injectable } from '@nestjs/common';
import { StatsService } from '../stats/stats.service';
import type { ParsedAddress } from '../../core/addresses/address-families';
import { parseAddressList, unparsedAddresses } from '../../core/addresses/address-list';
import { AddressDetailsDto, toAddressDetails } from './dto/address-details.dto';

@Injectable()
export class AddressesService {
  constructor(private readonly stats: StatsService) {}

  /** One statement: the address's kept stats and the account's tags of it (`StatsRepository.forAddress`). */
  async details(accountId: number, address: ParsedAddress): Promise<AddressDetailsDto> {
    const { stats, tags } = await this.stats.forAddress(address.canonical, accountId);
    return toAddressDetails(address, tags, stats);
  }

  /**
   * `details` of each listed address, in one statement: one record per distinct canonical address,
   * in first-seen order, each as `details` answers it. Every string that is no address is named in
   * one 400 INVALID_ADDRESS.
   */
  async lookUp(accountId: number, inputs: readonly string[]): Promise<AddressDetailsDto[]> {
    const { addresses, unparsed } = parseAddressList(inputs);
    if (unparsed.length > 0) throw unparsedAddresses(unparsed, { parameter: 'address' });
    const found = await this.stats.forAddresses(
      addresses.map((address) => address.canonical),
      accountId,
    );
    return addresses.map((address) => {
      const { stats, tags } = found.get(address.canonical)!;
      return toAddressDetails(address, tags, stats);
    });
  }
}
