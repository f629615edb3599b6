import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AptosApi, AptosApiError, AptosUnavailable } from './aptos-api';

describe('AptosApi', () => {
  let server: Server;
  let origin: string;
  const seen: { url: string; authorization: string | undefined }[] = [];
  let replies: { status: number; body: string }[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      seen.push({ url: request.url ?? '', authorization: request.headers.authorization });
      const reply = replies.length > 1 ? replies.shift()! : replies[0]!;
      response.writeHead(reply.status, { 'content-type': 'application/json' });
      response.end(reply.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  beforeEach(() => {
    seen.length = 0;
    replies = [{ status: 200, body: '{}' }];
  });

  it('adds /v1 to a base without it, and sends the api_key of the URL as a Bearer token, never in the URL', async () => {
    replies = [{ status: 200, body: '{"chain_id":4,"block_height":"9"}' }];
    const api = new AptosApi([`${origin}/?api_key=s3cret`]);
    expect(await api.ledger()).toEqual({ chain_id: 4, block_height: '9' });
    await new AptosApi([`${origin}/v1/`]).ledger();
    expect(seen).toEqual([
      { url: '/v1', authorization: 'Bearer s3cret' },
      { url: '/v1', authorization: undefined },
    ]);
  });

  it('reads a balance beyond 2^53 exactly from the bare integer, at a ledger version', async () => {
    replies = [{ status: 200, body: '18446744073709551615' }];
    const api = new AptosApi([`${origin}/v1`]);
    expect(await api.balance('0xab', '0x1::aptos_coin::AptosCoin', 77n)).toBe(18446744073709551615n);
    expect(seen[0]!.url).toBe('/v1/accounts/0xab/balance/0x1%3A%3Aaptos_coin%3A%3AAptosCoin?ledger_version=77');
  });

  it('answers undefined for a block or resource the node does not have, and throws other refusals without retrying', async () => {
    replies = [{ status: 404, body: '{"message":"Block not found by height(12)","error_code":"block_not_found"}' }];
    const api = new AptosApi([`${origin}/v1`], { retryDelayMs: 1 });
    expect(await api.block(12n, true)).toBeUndefined();
    expect(seen[0]!.url).toBe('/v1/blocks/by_height/12?with_transactions=true');
    replies = [{ status: 410, body: '{"message":"Block has been pruned\\nmore","error_code":"block_pruned"}' }];
    await expect(api.block(1n, false)).rejects.toEqual(
      new AptosApiError('/blocks/by_height/1', 410, 'block_pruned', 'Block has been pruned'),
    );
    expect(seen).toHaveLength(2);
  });

  it('retries 5xx and 429 on the same URL, then names the URL by number only', async () => {
    replies = [
      { status: 503, body: 'busy' },
      { status: 200, body: '[]' },
    ];
    const api = new AptosApi([`${origin}/v1?api_key=s3cret`], { retryDelayMs: 1, retries: 2 });
    expect(await api.transactions(5n, 100)).toEqual([]);
    expect(seen).toHaveLength(2);
    replies = [{ status: 429, body: '{}' }];
    const error = (await api.ledger().catch((failure: unknown) => failure)) as Error;
    expect(error).toBeInstanceOf(AptosUnavailable);
    expect(error.message).toBe('no Aptos API answered /: Aptos API URL #1: rate limited (HTTP 429)');
    expect(error.message).not.toContain('s3cret');
    expect(seen).toHaveLength(5);
  });

  it('goes on to the next URL when one does not answer', async () => {
    replies = [{ status: 200, body: '{"chain_id":1}' }];
    const api = new AptosApi(['http://127.0.0.1:1/v1', `${origin}/v1`], { retryDelayMs: 1, retries: 0 });
    expect(await api.ledger()).toEqual({ chain_id: 1 });
  });
});
