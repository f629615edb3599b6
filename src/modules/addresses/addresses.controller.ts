import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AddressPipe } from '../../http/validation/address.pipes';
import { ApiErrors } from '../../http/docs/api-docs';
import { AccountId } from '../../http/auth/auth';
import type { ParsedAddress } from '../../core/addresses/address-families';
import { AddressDetailsDto } from './dto/address-details.dto';
import { AddressesService } from './addresses.service';

@ApiTags('addresses')
@Controller('v2/addresses')
export class AddressesController {
  constructor(private readonly addresses: AddressesService) {}

  @Get(':address')
  @ApiOperation({
    summary: 'Retrieve address details',
    description:
      'Any accepted form of an address finds the same record. A valid address with no data has zero stats, not 404.',
  })
  @ApiParam({
    name: 'address',
    description: 'An address of any supported chain.',
    example: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
  })
  @ApiOkResponse({ type: AddressDetailsDto })
  @ApiErrors('INVALID_ADDRESS', 'INVALID_QUERY')
  details(
    @AccountId() accountId: number,
    @Param('address', AddressPipe) address: ParsedAddress,
  ): Promise<AddressDetailsDto> {
    return this.addresses.details(accountId, address);
  }
}
