import {
  HttpRequestError,
  InvalidParamsRpcError,
  LimitExceededRpcError,
  MethodNotFoundRpcError,
  RpcRequestError,
} from 'viem';
import { logRangeAfterRefusal, refusesMethod, rpcFailure } from './log-range-advice';

const body = { method: 'eth_getLogs', params: [{ fromBlock: '0x1', toBlock: '0x2710', topics: ['0xddf2'] }] };
const url = 'http://node.invalid';

describe('logRangeAfterRefusal', () => {
  it.each([
    [
      'Infura: more than 10000 results, with a suggested range',
      -32005,
      'query returned more than 10000 results. Try with this block range [0x30E4D2, 0x30E54F].',
      126n,
    ],
    [
      'Alchemy: response size, with a suggested range',
      -32602,
      'Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range and no limit on the response size, or you can request any block range with a cap of 10K logs in the response. Based on your parameters, this block range should work: [0x112a880, 0x112a8c2]',
      67n,
    ],
    [
      'Alchemy free tier',
      -32600,
      'Under the Free tier plan, you can make eth_getLogs requests with up to a 10 block range. Based on your parameters, this block range should work: [0x1, 0xa]',
      10n,
    ],
    ['QuickNode', -32614, 'eth_getLogs is limited to a 10,000 range', 10_000n],
    ['QuickNode free trial', -32614, 'eth_getLogs is limited to a 5 range', 5n],
    ['Cloudflare', -32047, 'Max range: 3500', 3500n],
    ['thirdweb', -32602, 'Maximum allowed number of requested blocks is 1000', 1000n],
    ['Avalanche', -32000, 'requested too many blocks from 0 to 50000, maximum is set to 2048', 2048n],
    ['Coinbase (Base)', -32602, 'please limit the query to at most 1000 blocks', 1000n],
    ['PublicNode', -32000, 'exceed maximum block range: 5000', 5000n],
    ['reth', -32602, 'query exceeds max block range 10000', 10_000n],
    ['dRPC', 35, 'ranges over 10000 blocks are not supported on freemium tier', 10_000n],
    ['Merkle', -32000, 'eth_getLogs range is too large, max is 10k blocks', 10_000n],
    ['Blast (paid plan)', -32000, 'eth_getLogs exceeds the range allowed for your plan (50000 > 10000).', 10_000n],
  ])('%s: asks for the stated number of blocks', (_provider, code, message, blocks) => {
    expect(logRangeAfterRefusal({ code, message }, 50_000n)).toBe(blocks);
  });

  it.each([
    ['Ankr', -32600, 'block range is too wide'],
    ['Optimism', -32000, 'Block range is too large'],
    ['Optimism, result size', -32000, 'backend response too large'],
    ['Arbitrum', -32000, 'logs matched by query exceeds limit of 10000'],
    ['Chainstack', -32000, 'Block range limit exceeded.'],
    ['reth, result count', -32602, 'query exceeds max results 20000'],
    ['geth', -32000, 'query returned more than 10000 results'],
    ['1RPC', -32000, 'response size should not greater than 10000000 bytes'],
    ['a bare limit-exceeded code', -32005, 'limit exceeded'],
  ])('%s: halves the range when no usable number is given', (_provider, code, message) => {
    expect(logRangeAfterRefusal({ code, message }, 1001n)).toBe(500n);
  });

  it('halves when the stated range is not smaller than the one refused', () => {
    expect(logRangeAfterRefusal({ code: -32614, message: 'eth_getLogs is limited to a 10,000 range' }, 800n)).toBe(
      400n,
    );
    expect(
      logRangeAfterRefusal(
        { code: -32005, message: 'query returned more than 10000 results. Try with this block range [0x10, 0x1f].' },
        16n,
      ),
    ).toBe(8n);
  });

  it('leaves one block alone: nothing is left to split', () => {
    expect(logRangeAfterRefusal({ code: -32005, message: 'query returned more than 10000 results' }, 1n)).toBe(
      undefined,
    );
    expect(logRangeAfterRefusal({ code: -32600, message: 'block range is too wide' }, 2n)).toBe(1n);
  });

  it.each([
    ['Infura rate limit under -32005', -32005, 'project ID request rate exceeded'],
    ['Alchemy compute units', 429, 'Your app has exceeded its compute units per second capacity.'],
    ['a daily cap under -32005', -32005, 'daily request count exceeded, request rate limited'],
    ['a missing block', -32000, 'header not found'],
    ['a revert', 3, 'execution reverted'],
    ['an unknown method', -32601, 'the method eth_getLogs does not exist/is not available'],
  ])('%s: is not about the range', (_case, code, message) => {
    expect(logRangeAfterRefusal({ code, message }, 1000n)).toBe(undefined);
  });
});

describe('rpcFailure', () => {
  it('finds the node code and words inside viem errors, not the quoted request body', () => {
    const node = {
      code: -32005,
      message: 'query returned more than 10000 results. Try with this block range [0x1, 0x64].',
    };
    const error = new LimitExceededRpcError(new RpcRequestError({ body, error: node, url }));
    const failure = rpcFailure(error);
    expect(failure.code).toBe(-32005);
    expect(failure.message).toContain('Try with this block range [0x1, 0x64]');
    expect(failure.message).not.toContain('0x2710');
    expect(logRangeAfterRefusal(failure, 10_000n)).toBe(100n);
  });

  it('reads the body of an HTTP error that carries no JSON-RPC error', () => {
    const error = new HttpRequestError({
      body,
      details: '"eth_getLogs is limited to a 10,000 range"',
      status: 413,
      url,
    });
    const failure = rpcFailure(error);
    expect(failure.code).toBe(undefined);
    expect(logRangeAfterRefusal(failure, 20_000n)).toBe(10_000n);
  });

  it('keeps the code of a typed viem error and plain errors', () => {
    const typed = new InvalidParamsRpcError(
      new RpcRequestError({ body, error: { code: -32602, message: 'query exceeds max block range 5000' }, url }),
    );
    expect(rpcFailure(typed)).toEqual({ code: -32602, message: expect.stringContaining('max block range 5000') });
    expect(rpcFailure(new Error('block range is too wide'))).toEqual({
      code: undefined,
      message: 'block range is too wide',
    });
    expect(rpcFailure('text')).toEqual({ code: undefined, message: 'text' });
  });
});

describe('refusesMethod', () => {
  const receipts = { method: 'eth_getBlockReceipts', params: ['0x1'] };
  const failed = (code: number, message: string) =>
    new RpcRequestError({ body: receipts, error: { code, message }, url });

  it.each([
    ['geth without the method', -32601, 'the method eth_getBlockReceipts does not exist/is not available'],
    ['a provider answering -32600', -32600, 'Unsupported method: eth_getBlockReceipts'],
    ['a provider plan', -32000, 'method not allowed on this plan'],
    ['a disabled namespace', -32000, 'API eth_getBlockReceipts is disabled'],
  ])('%s: refused', (_provider, code, message) => {
    expect(refusesMethod(failed(code, message))).toBe(true);
  });

  it('reads a typed viem error', () => {
    expect(refusesMethod(new MethodNotFoundRpcError(failed(-32601, 'Method not found')))).toBe(true);
  });

  it.each([
    ['an internal error', -32603, 'internal error'],
    ['a rate limit', 429, 'Too Many Requests'],
    ['a missing block', -32000, 'header not found'],
  ])('%s: not a refusal of the method', (_what, code, message) => {
    expect(refusesMethod(failed(code, message))).toBe(false);
  });

  it('an HTTP failure is not a refusal', () => {
    expect(refusesMethod(new HttpRequestError({ body: receipts, status: 502, url }))).toBe(false);
  });
});
