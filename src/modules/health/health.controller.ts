import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ErrorDto } from '../../http/docs/api-docs';
import { ApiError } from '../../core/errors';
import { Public } from '../../http/auth/public.decorator';
import { Db } from '../../database/db.service';
import { sql } from '../../database/sql';

@ApiTags('health')
@Controller('health')
@Public()
export class HealthController {
  constructor(private readonly db: Db) {}

  @Get()
  @ApiOperation({ summary: 'Liveness and database check (no key needed)' })
  @ApiOkResponse({
    description: 'The service is up and its database answers.',
    schema: { type: 'object', properties: { status: { type: 'string', example: 'ok' } } },
  })
  @ApiResponse({ status: 400, description: 'A query parameter other than api_key: INVALID_QUERY', type: ErrorDto })
  @ApiResponse({ status: 503, description: 'The database does not answer: DATABASE_UNAVAILABLE', type: ErrorDto })
  async check(): Promise<{ status: 'ok' }> {
    try {
      await this.db.query(sql`SELECT 1 AS ok`);
    } catch {
      throw new ApiError('DATABASE_UNAVAILABLE', 'The database does not answer.');
    }
    return { status: 'ok' };
  }
}
