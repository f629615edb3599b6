import { answer, failure, Handler, startStandIn, StandIn } from '../../../../test/support/bitcoin-node-stand-in';
import { BitcoinRpc, BitcoinRpcError, BitcoinRpcUnavailable } from './bitcoin-rpc';

/**
 * BitcoinRpc's transport rules on a node's HTTP face that misbehaves on demand. Credentials,
 * fallback to a closed port, batches and RPC errors of a real node: test/utxo-node.e2e-spec.ts.
 */

const stands: StandIn[] = [];
async function standIn(handler: Handler): Promise<StandIn> {
  const stand = await startStandIn(handler);
  stands.push(stand);
  return stand;
}
afterEach(async () => {
  await Promise.all(stands.splice(0).map((stand) => stand.close()));
});

const ok =
  (result: unknown): Handler =>
  (body) => ({ body: JSON.stringify(answer(body, result)) });
const withCredentials = (url: string, credentials: string) => url.replace('http://', `http://${credentials}@`);
const fast = { retries: 1, retryDelayMs: 5, timeoutMs: 2_000 };

describe('BitcoinRpc', () => {
  it("sends the URL's credentials as Basic authorization, and the URL without them", async () => {
    const node = await standIn(ok(7));
    const rpc = new BitcoinRpc([withCredentials(`${node.url}wallet/w`, 'alice:p%40ss%3Aword')]);
    expect(await rpc.call('getblockcount')).toBe(7);
    const [request] = node.requests;
    expect(request!.authorization).toBe(`Basic ${Buffer.from('alice:p@ss:word').toString('base64')}`);
    expect(request!.path).toBe('/wallet/w');
    expect(request!.body).toMatchObject({ method: 'getblockcount', params: [] });
  });

  it('sends no authorization when the URL has no credentials', async () => {
    const node = await standIn(ok(1));
    await new BitcoinRpc([node.url]).call('getblockcount');
    expect(node.requests[0]!.authorization).toBeUndefined();
  });

  it('retries HTTP 503 on the same URL before asking the next', async () => {
    const flaky = await standIn((body, index) =>
      index === 0
        ? { status: 503, body: 'Work queue depth exceeded' }
        : { body: JSON.stringify(answer(body, 'first')) },
    );
    const spare = await standIn(ok('second'));
    expect(await new BitcoinRpc([flaky.url, spare.url], fast).call('getbestblockhash')).toBe('first');
    expect(flaky.requests).toHaveLength(2);
    expect(spare.requests).toHaveLength(0);
  });

  it('moves to the next URL after HTTP 429 persists, and says why when every URL fails', async () => {
    const limited = await standIn(() => ({ status: 429, body: 'slow down' }));
    const spare = await standIn(ok(3));
    expect(await new BitcoinRpc([limited.url, spare.url], fast).call('getblockcount')).toBe(3);
    expect(limited.requests).toHaveLength(2);

    const broken = await standIn(() => ({ status: 502, body: '<html>bad gateway</html>' }));
    const error = (await new BitcoinRpc([withCredentials(limited.url, 'u:hunter2'), broken.url], fast)
      .call('getblockcount')
      .catch((caught: unknown) => caught)) as BitcoinRpcUnavailable;
    expect(error).toBeInstanceOf(BitcoinRpcUnavailable);
    expect(error.message).toBe(
      'no node answered getblockcount: RPC URL #1: the node answered HTTP 429; RPC URL #2: the node answered HTTP 502',
    );
    expect(JSON.stringify(error) + String(error.stack)).not.toMatch(/hunter2|127\.0\.0\.1/);
  });

  it('gives up on a URL that does not answer within the timeout', async () => {
    const hung = await standIn(() => ({ hang: true }));
    const spare = await standIn(ok(9));
    const rpc = new BitcoinRpc([hung.url, spare.url], { ...fast, retries: 0, timeoutMs: 500 });
    expect(await rpc.call('getblockcount')).toBe(9);
    const alone = new BitcoinRpc([hung.url], { ...fast, retries: 0, timeoutMs: 500 });
    await expect(alone.call('getblockcount')).rejects.toThrow('RPC URL #1: no answer within 500 ms');
  });

  it('keeps asking the fallback that answered, and the first URL again after stickyMs', async () => {
    const hung = await standIn(() => ({ hang: true }));
    const spare = await standIn(ok(9));
    const rpc = new BitcoinRpc([hung.url, spare.url], { ...fast, retries: 0, timeoutMs: 500, stickyMs: 1_000 });
    expect(await rpc.call('getblockcount')).toBe(9);
    expect(await rpc.call('getblockcount')).toBe(9);
    expect(await rpc.call('getbestblockhash')).toBe(9);
    expect([hung.requests.length, spare.requests.length]).toEqual([1, 3]);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await rpc.call('getblockcount')).toBe(9);
    expect([hung.requests.length, spare.requests.length]).toEqual([2, 4]);
  });

  it('takes an RPC error with HTTP 500 as the answer: no retry, no fallback', async () => {
    const node = await standIn((body) => ({
      status: 500,
      body: JSON.stringify(failure(body, -8, 'Block height out of range')),
    }));
    const spare = await standIn(ok('never'));
    const call = new BitcoinRpc([node.url, spare.url], fast).call('getblockhash', [10]);
    await expect(call).rejects.toBeInstanceOf(BitcoinRpcError);
    await expect(call).rejects.toMatchObject({
      code: -8,
      method: 'getblockhash',
      nodeMessage: 'Block height out of range',
    });
    expect(node.requests).toHaveLength(1);
    expect(spare.requests).toHaveLength(0);
  });

  it('waits for a node that is still starting (RPC error -28), then asks the next', async () => {
    const starting = await standIn((body) => ({
      status: 500,
      body: JSON.stringify(failure(body, -28, 'Loading block index...')),
    }));
    const spare = await standIn(ok(5));
    expect(await new BitcoinRpc([starting.url, spare.url], fast).call('getblockcount')).toBe(5);
    expect(starting.requests).toHaveLength(2);
  });

  it('moves on from a URL that answers something other than JSON-RPC', async () => {
    const proxy = await standIn(() => ({ status: 200, body: '<html>captive portal</html>' }));
    const spare = await standIn(ok(5));
    expect(await new BitcoinRpc([proxy.url, spare.url], fast).call('getblockcount')).toBe(5);
    expect(proxy.requests).toHaveLength(1);
  });

  it('returns batch answers in call order whatever order they come in, split at maxBatch', async () => {
    const node = await standIn((body) => {
      const calls = body as { id: number; params: number[] }[];
      return { body: JSON.stringify(calls.map((call) => answer(call, call.params[0]! * 2)).reverse()) };
    });
    const rpc = new BitcoinRpc([node.url], { maxBatch: 5 });
    const calls = Array.from({ length: 12 }, (_, index) => ({ method: 'double', params: [index] }));
    expect(await rpc.batch(calls)).toEqual(calls.map((call) => call.params[0]! * 2));
    expect(node.requests.map((request) => (request.body as unknown[]).length)).toEqual([5, 5, 2]);
    expect(await rpc.batch([])).toEqual([]);
    expect(node.requests).toHaveLength(3);
  });

  it('refuses a batch answer that lacks a call, and throws the first error answer in call order', async () => {
    const dropping = await standIn((body) => ({
      body: JSON.stringify((body as unknown[]).slice(1).map((call) => answer(call, 1))),
    }));
    await expect(new BitcoinRpc([dropping.url]).batch([{ method: 'a' }, { method: 'b' }])).rejects.toThrow(
      'a: the node gave a batch answer without this call',
    );
    const erring = await standIn((body) => ({
      body: JSON.stringify(
        (body as { method: string }[]).map((call) =>
          call.method === 'fine' ? answer(call, 1) : failure(call, -5, `${call.method} not found`),
        ),
      ),
    }));
    const batch = new BitcoinRpc([erring.url]).batch([{ method: 'fine' }, { method: 'first' }, { method: 'second' }]);
    await expect(batch).rejects.toMatchObject({ method: 'first', code: -5 });
  });

  it('hands over amounts as the decimal text the node printed', async () => {
    const node = await standIn((body) => ({
      body: `{"result":{"value":123456789.12345678,"amount":1e-8,"n":3,"nested":[{"value": 0.10000000}]},"error":null,"id":${(body as { id: number }).id}}`,
    }));
    expect(await new BitcoinRpc([node.url]).call('gettxout')).toEqual({
      value: '123456789.12345678',
      amount: '1e-8',
      n: 3,
      nested: [{ value: '0.10000000' }],
    });
  });

  it('never repeats a URL it cannot use', () => {
    expect(() => new BitcoinRpc(['http://u:secret@[bad'])).toThrow('RPC URL #1 is not a valid URL');
    expect(() => new BitcoinRpc(['http://ok:1/', 'ftp://u:secret@host/'])).toThrow('RPC URL #2 is not an http(s) URL');
    expect(() => new BitcoinRpc(['http://u:sec%zzret@host:1/'])).toThrow(
      'RPC URL #1 has a malformed %-escape in its credentials',
    );
    expect(() => new BitcoinRpc([])).toThrow('at least one RPC URL');
  });
});
