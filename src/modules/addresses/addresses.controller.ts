import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AddressParam } from '../../http/validation/path-params';
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
  @ApiOkResponse({ type: AddressDetailsDto, description: 'The address on every chain where it is valid.' })
  @ApiErrors('INVALID_ADDRESS', 'INVALID_QUERY')
  details(@AccountId() accountId: number, @AddressParam() address: ParsedAddress): Promise<AddressDetailsDto> {
    return this.addresses.details(accountId, address);
  }
}
