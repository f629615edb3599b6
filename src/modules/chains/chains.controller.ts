import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../../http/docs/api-docs';
import { ChainsService } from './chains.service';
import { ChainDto } from './dto/chain.dto';

@ApiTags('chains')
@Controller('v2/chains')
export class ChainsController {
  constructor(private readonly chains: ChainsService) {}

  @Get()
  @ApiOperation({ summary: 'List all supported chains', description: 'Every supported chain, not paginated.' })
  @ApiOkResponse({ type: [ChainDto], description: 'Every supported chain, in contract order.' })
  @ApiErrors('INVALID_QUERY')
  list(): Promise<ChainDto[]> {
    return this.chains.list();
  }
}
