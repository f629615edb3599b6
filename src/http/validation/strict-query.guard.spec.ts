import { Controller, ExecutionContext, Get, Query } from '@nestjs/common';
import { CHAIN_IDS } from '../../core/chains/chain-ids';
import { ApiError } from '../../core/errors';
import { ChainFilter } from './query-params';
import { PageQueryDto } from './query.dto';
import { StrictQueryGuard } from './strict-query.guard';

class ListQueryDto extends PageQueryDto {
  @ChainFilter('Only rows on this chain.')
  chain?: string;
}

@Controller('examples')
class ExampleController {
  @Get('plain')
  plain(): void {}

  @Get('list')
  list(@Query() _query: ListQueryDto): void {}

  @Get('named')
  named(@Query('q') _q: string): void {}
}

/** The guard for one handler of ExampleController and one query string, as Express parses it. */
async function check(handler: keyof ExampleController, query: Record<string, string | string[]>): Promise<unknown> {
  const context = {
    getClass: () => ExampleController,
    getHandler: () => ExampleController.prototype[handler],
    switchToHttp: () => ({ getRequest: () => ({ query }) }),
  } as unknown as ExecutionContext;
  try {
    return await new StrictQueryGuard().canActivate(context);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { code: error.code, message: error.message, details: error.details };
  }
}

describe('StrictQueryGuard', () => {
  it('takes only api_key on a handler without @Query()', async () => {
    expect(await check('plain', { api_key: 'k' })).toBe(true);
    expect(await check('plain', { api_key: 'k', page: '2' })).toEqual({
      code: 'INVALID_QUERY',
      message: 'unknown query parameter "page"',
      details: [{ parameter: 'page', message: 'unknown query parameter "page"' }],
    });
  });

  it("takes the properties the DTO validates, its parents' included", async () => {
    expect(await check('list', { per_page: '5', page: '2', chain: 'base', api_key: 'k' })).toBe(true);
    expect(await check('list', { chian: 'base' })).toMatchObject({ details: [{ parameter: 'chian' }] });
  });

  it('takes a parameter a handler names with @Query(name)', async () => {
    expect(await check('named', { q: 'x' })).toBe(true);
    expect(await check('named', { q: 'x', r: 'y' })).toMatchObject({ details: [{ parameter: 'r' }] });
  });

  it('lists the unknown parameters first, then the bad values of the known ones as validation orders them', async () => {
    expect(await check('list', { chain: 'nowhere', zz: '1', per_page: '0', aa: '2' })).toEqual({
      code: 'INVALID_QUERY',
      message:
        'unknown query parameter "zz"; unknown query parameter "aa"; ' +
        `chain must be one of ${CHAIN_IDS.join(', ')}; per_page must be a whole number from 1 to 100`,
      details: [
        { parameter: 'zz', message: 'unknown query parameter "zz"' },
        { parameter: 'aa', message: 'unknown query parameter "aa"' },
        { parameter: 'chain', message: `chain must be one of ${CHAIN_IDS.join(', ')}` },
        { parameter: 'per_page', message: 'per_page must be a whole number from 1 to 100' },
      ],
    });
  });
});
