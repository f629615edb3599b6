import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../../http/docs/api-docs';
import { SyncDto } from './dto/sync.dto';
import { SyncService } from './sync.service';

@ApiTags('sync')
@Controller('v2/sync')
export class SyncController {
  constructor(private readonly sync: SyncService) {}

  @Get()
  @ApiOperation({
    summary: 'How far each chain is followed',
    description:
      'One object per supported chain, in the order of GET /v2/chains: whether the chain is followed, the head seen, the last block committed and any error. Not paginated.',
  })
  @ApiOkResponse({ type: [SyncDto], description: 'One entry per chain with a live source, in contract order.' })
  @ApiErrors('INVALID_QUERY')
  list(): Promise<SyncDto[]> {
    return this.sync.list();
  }
}
