import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { Test } from 'supertest';
import { eventually } from './follow-client';
import type { TestApp } from './test-app';

/** One request the receiver got, checked with a Standard Webhooks library against its path's secret. */
export interface Received {
  path: string;
  id: string;
  timestamp: string;
  signature: string;
  /** The body parsed, when the signature verified with the path's current secret; undefined otherwise. */
  verified: WebhookBody | undefined;
  raw: string;
  userAgent: string | undefined;
  answered: number | 'hang' | 'huge';
  at: number;
}

export interface WebhookBody {
  type: string;
  timestamp: string;
  data: Record<string, unknown> & { transaction?: Record<string, unknown>; tags?: string[] };
}

/** How a path answers its n-th request (0-based): a status, never ('hang'), or 200 with 10 MB ('huge'). */
export type Behaviour = (received: Received, index: number) => number | 'hang' | 'huge';

/**
 * A webhook receiver on a loopback port, as an account would run one: each path is one webhook,
 * verified with the `standardwebhooks` package and the secret the test gives it.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  private readonly secrets = new Map<string, string>();
  private readonly behaviours = new Map<string, Behaviour>();
  private readonly hanging = new Set<ServerResponse>();
  private server: Server | undefined;
  port = 0;

  static async start(port = 0): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    await receiver.listen(port);
    return receiver;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  secret(path: string, secret: string): void {
    this.secrets.set(path, secret);
  }

  behave(path: string, behaviour: Behaviour): void {
    this.behaviours.set(path, behaviour);
  }

  at(path: string): Received[] {
    return this.received.filter((request) => request.path === path);
  }

  async listen(port = this.port): Promise<void> {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Stops answering: the port is closed until `listen` again. */
  async close(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.hanging.clear();
    const server = this.server;
    this.server = undefined;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString();
    const path = request.url ?? '/';
    const headers = {
      'webhook-id': String(request.headers['webhook-id'] ?? ''),
      'webhook-timestamp': String(request.headers['webhook-timestamp'] ?? ''),
      'webhook-signature': String(request.headers['webhook-signature'] ?? ''),
    };
    let verified: WebhookBody | undefined;
    const secret = this.secrets.get(path);
    if (secret !== undefined && request.headers['content-type'] === 'application/json') {
      try {
        verified = new Webhook(secret).verify(raw, headers) as WebhookBody;
      } catch {
        verified = undefined;
      }
    }
    const entry: Received = {
      path,
      id: headers['webhook-id'],
      timestamp: headers['webhook-timestamp'],
      signature: headers['webhook-signature'],
      userAgent: request.headers['user-agent'],
      verified,
      raw,
      answered: 200,
      at: Date.now(),
    };
    const index = this.at(path).length;
    entry.answered = this.behaviours.get(path)?.(entry, index) ?? 200;
    this.received.push(entry);
    if (entry.answered === 'hang') {
      this.hanging.add(response);
      return;
    }
    if (entry.answered === 'huge') {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      const block = Buffer.alloc(1024 * 1024, 120);
      for (let i = 0; i < 10; i++) {
        if (!response.write(block)) {
          await new Promise<void>((resolve) => {
            response.once('drain', resolve);
            response.once('close', resolve);
          });
        }
        if (response.destroyed) return;
      }
      response.end();
      return;
    }
    const answer: Record<string, string> = { 'content-type': 'text/plain' };
    // A redirect points at another path of this receiver, which a client following it would reach.
    if (entry.answered >= 300 && entry.answered < 400) answer.location = `${path}/redirected`;
    response.writeHead(entry.answered, answer);
    response.end('ok');
  }
}

/** A webhook as the API answers it. */
export interface WebhookAnswer {
  id: string;
  url: string;
  tags: string[];
  chains: string[] | null;
  events: string[];
  description: string | null;
  min_value_usd: number | null;
  tokens: string[] | null;
  status: string;
  created_at: string;
  updated_at: string;
  secret?: string;
}

/** A delivery as the API answers it. */
export interface DeliveryAnswer {
  id: string;
  event_type: string;
  status: string;
  attempts: number;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  response_status: number | null;
  error: string | null;
  created_at: string;
}

/** The webhook routes as alice or bob call them. */
export class WebhookClient {
  constructor(
    private readonly t: TestApp,
    private readonly key: string,
  ) {}

  create(body: Record<string, unknown>, status = 201): Promise<WebhookAnswer & { code?: string }> {
    return this.sendJson(this.t.http().post('/v2/webhooks'), body, status);
  }

  /** A deployment's token as an event names it (`GET /v2/tokens?chain=&address=`), or null. */
  async tokenOf(chain: string, address: string): Promise<{ id: string; symbol: string; decimals: number } | null> {
    const found = (
      await this.t.http().get('/v2/tokens').query({ chain, address }).set('X-API-Key', this.key).expect(200)
    ).body as { id: string; symbol: string; deployments: { chain: string; address: string; decimals: number }[] }[];
    const [token] = found;
    if (token === undefined) return null;
    const deployment = token.deployments.find((one) => one.chain === chain)!;
    return { id: token.id, symbol: token.symbol, decimals: deployment.decimals };
  }

  async get(id: string): Promise<WebhookAnswer> {
    return (await this.t.http().get(`/v2/webhooks/${id}`).set('X-API-Key', this.key).expect(200)).body as WebhookAnswer;
  }

  patch(id: string, body: Record<string, unknown>, status = 200): Promise<WebhookAnswer & { code?: string }> {
    return this.sendJson(this.t.http().patch(`/v2/webhooks/${id}`), body, status);
  }

  /** Sends `body` as JSON with the key and checks the status (an error answer's body carries `code`). */
  private async sendJson(
    request: Test,
    body: Record<string, unknown>,
    status: number,
  ): Promise<WebhookAnswer & { code?: string }> {
    const response = await request
      .set('X-API-Key', this.key)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(body));
    expect({ status: response.status, body: response.body as unknown }).toMatchObject({ status });
    return response.body as WebhookAnswer;
  }

  async ping(id: string): Promise<string> {
    const response = await this.t.http().post(`/v2/webhooks/${id}/ping`).set('X-API-Key', this.key).expect(202);
    return (response.body as { id: string }).id;
  }

  async deliveries(id: string): Promise<DeliveryAnswer[]> {
    const response = await this.t
      .http()
      .get(`/v2/webhooks/${id}/deliveries?per_page=100`)
      .set('X-API-Key', this.key)
      .expect(200);
    return response.body as DeliveryAnswer[];
  }
}

/** Creates a webhook whose deliveries the receiver verifies at `path`. */
export async function hook(
  client: WebhookClient,
  receiver: WebhookReceiver,
  path: string,
  body: Record<string, unknown>,
): Promise<WebhookAnswer> {
  const created = await client.create({ url: receiver.url(path), ...body });
  receiver.secret(path, created.secret!);
  return created;
}

/**
 * What a `transaction.confirmed` delivery carries: the transaction as `/v2/transactions` lists it,
 * the tags, and the transfer's token and USD value; `expectAnnouncedOnce` finds the token through
 * `GET /v2/tokens` when it is not given, and takes any value (or none) when `value_usd` is not.
 */
export interface Announced {
  transaction: { id: string; chain?: unknown; token_address?: unknown };
  tags: string[];
  token?: { id: string; symbol: string; decimals: number } | null;
  value_usd?: number | null;
}

/**
 * Waits until the webhook's every delivery is answered, then checks that the receiver got each of
 * `expected` once, as a `transaction.confirmed`, and nothing else (in any order).
 */
export async function expectAnnouncedOnce(
  client: WebhookClient,
  receiver: WebhookReceiver,
  webhook: { id: string; path: string },
  expected: readonly Announced[],
): Promise<void> {
  await eventually('every delivery answered', async () => {
    const log = await client.deliveries(webhook.id);
    return log.length >= expected.length && log.every((row) => row.status === 'delivered') ? true : undefined;
  });
  expect(await client.deliveries(webhook.id)).toHaveLength(expected.length);
  const received = receiver.at(webhook.path);
  expect(received.map((request) => request.verified?.type)).toEqual(expected.map(() => 'transaction.confirmed'));
  const byId = (a: { transaction?: Record<string, unknown> }, b: { transaction?: Record<string, unknown> }) =>
    String(a.transaction!.id).localeCompare(String(b.transaction!.id));
  const got = new Map(
    received.map((request) => [String(request.verified!.data.transaction?.id), request.verified!.data]),
  );
  const complete: Announced[] = [];
  for (const one of expected) {
    const value = got.get(one.transaction.id)?.value_usd;
    if (one.value_usd === undefined) expect(value === null || typeof value === 'number').toBe(true);
    complete.push({
      ...one,
      token:
        one.token === undefined
          ? await client.tokenOf(String(one.transaction.chain), String(one.transaction.token_address))
          : one.token,
      value_usd: one.value_usd === undefined ? (value as number | null) : one.value_usd,
    });
  }
  expect(received.map((request) => request.verified!.data).sort(byId)).toEqual(complete.sort(byId));
}
