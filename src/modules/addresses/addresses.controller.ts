import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AddressParam } from '../../http/validation/path-params';
import { ApiErrors } from '../../http/docs/api-docs';
import { AccountId } from '../../http/auth/auth';
import type { ParsedAddress } from '../../core/addresses/address-families';
import { AddressDetailsDto } from './dto/address-details.dto';
import { AddressesQueryDto, MAX_ADDRESSES_PER_LOOKUP } from './dto/addresses-query.dto';
import { AddressesService } from './addresses.service';

@ApiTags('addresses')
@Controller('v2/addresses')
export class AddressesController {
  constructor(private readonly addresses: AddressesService) {}

  @Get()
  @ApiOperation({
    summary: 'Look up several addresses',
    description:
      `Extension: the record of \`GET /v2/addresses/:address\` for each of 1 to ${MAX_ADDRESSES_PER_LOOKUP} addresses, ` +
      'in one request and one read: one record per distinct address (repeats in any spelling collapse to the first), ' +
      'in the order given. Not paginated. Any listed string that is not an address fails the request, each named in `details`.',
  })
  @ApiOkResponse({ type: [AddressDetailsDto], description: 'One record per distinct address, in the order given.' })
  @ApiErrors('INVALID_ADDRESS', 'INVALID_QUERY')
  lookUp(@AccountId() accountId: number, @Query() query: AddressesQueryDto): Promise<AddressDetailsDto[]> {
    return this.addresses.lookUp(accountId, query.address);
  }

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
