import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

/**
 * A node's HTTP face for the unit tests of the UTXO client and reader: what a real node cannot be
 * made to do on demand (answer 503 once, hang, answer like Dogecoin Core 1.14). The behaviour a
 * real node has is tested against litecoind (test/utxo-node.e2e-spec.ts).
 */
export interface StandIn {
  url: string;
  /** Every request's body as parsed JSON, with its Authorization header and path. */
  requests: { body: unknown; authorization: string | undefined; path: string | undefined }[];
  close(): Promise<void>;
}

export type Reply = { status?: number; body?: string; hang?: boolean };
export type Handler = (body: unknown, index: number) => Reply;

export async function startStandIn(handler: Handler): Promise<StandIn> {
  const requests: StandIn['requests'] = [];
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      const body = JSON.parse(text) as unknown;
      requests.push({ body, authorization: request.headers.authorization, path: request.url });
      const reply = handler(body, requests.length - 1);
      if (reply.hang) {
        hanging.push(response);
        return;
      }
      response.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
      response.end(reply.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        hanging.forEach((response) => response.destroy());
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A JSON-RPC answer to one request `{ id }`. */
export function answer(request: unknown, result: unknown): unknown {
  return { result, error: null, id: (request as { id: unknown }).id };
}

export function failure(request: unknown, code: number, message: string): unknown {
  return { result: null, error: { code, message }, id: (request as { id: unknown }).id };
}
