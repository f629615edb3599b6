import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ToncenterApi, ToncenterError, ToncenterUnavailable } from './toncenter-api';

describe('ToncenterApi', () => {
  let server: Server;
  let base: string;
  const seen: { url: string; key: string | undefined }[] = [];
  let reply: { status: number; body: unknown } = { status: 200, body: { ok: true, result: '42' } };

  beforeAll(async () => {
    server = createServer((request, response) => {
      seen.push({ url: request.url ?? '', key: request.headers['x-api-key'] as string | undefined });
      response.writeHead(reply.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(reply.body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v2`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  beforeEach(() => {
    seen.length = 0;
    reply = { status: 200, body: { ok: true, result: '42' } };
  });

  it('sends the api_key of the URL as the X-API-Key header, never in the URL', async () => {
    const api = new ToncenterApi([`${base}/jsonRPC?api_key=s3cret`]);
    expect(await api.get<string>('getAddressBalance', { address: '0:ab', seqno: 7n })).toBe('42');
    expect(seen).toEqual([{ url: '/api/v2/getAddressBalance?address=0%3Aab&seqno=7', key: 's3cret' }]);
  });

  it('asks tryLocateSourceTx with the message’s source, destination and created_lt', async () => {
    reply = {
      status: 200,
      body: { ok: true, result: { utime: 1, data: 'te6', transaction_id: { lt: '5', hash: 'h' } } },
    };
    const api = new ToncenterApi([base]);
    const found = await api.tryLocateSourceTx('0:aa', '0:bb', 78473359000006n);
    expect(found.transaction_id.lt).toBe('5');
    expect(seen.map((call) => call.url)).toEqual([
      '/api/v2/tryLocateSourceTx?source=0%3Aaa&destination=0%3Abb&created_lt=78473359000006',
    ]);
  });

  it("throws the API's refusal as a ToncenterError, without retrying", async () => {
    reply = { status: 422, body: { ok: false, code: 422, error: 'failed to parse workchain' } };
    const api = new ToncenterApi([`${base}/?api_key=s3cret`], { retryDelayMs: 1 });
    await expect(api.get('lookupBlock')).rejects.toEqual(
      new ToncenterError('lookupBlock', 422, 'failed to parse workchain'),
    );
    expect(seen).toHaveLength(1);
  });

  it('retries rate limits, then names the URL by number only', async () => {
    reply = { status: 429, body: { ok: false, code: 429, error: 'Ratelimit exceeded' } };
    const api = new ToncenterApi([`${base}/?api_key=s3cret`], { retryDelayMs: 1, retries: 2 });
    const error = (await api.get('getMasterchainInfo').catch((failure: unknown) => failure)) as Error;
    expect(error).toBeInstanceOf(ToncenterUnavailable);
    expect(error.message).toBe('no TON API answered getMasterchainInfo: TON API URL #1: rate limited (HTTP 429)');
    expect(error.message).not.toContain('s3cret');
    expect(seen).toHaveLength(3);
  });

  it('goes on to the next URL when one does not answer', async () => {
    const api = new ToncenterApi(['http://127.0.0.1:1/api/v2', base], { retryDelayMs: 1, retries: 0 });
    expect(await api.get<string>('getAddressBalance', { address: '0:ab' })).toBe('42');
  });
});
