import { keyPrefix } from '../src/modules/accounts/api-key';
import { DATABASES, startOnFreshDatabase, TestApp } from './support/test-app';

interface LogLine {
  level: number;
  msg: string;
  req?: { id: string; method: string; url: string };
  res?: { statusCode: number };
  responseTime?: number;
  key?: string;
  context?: string;
}

describe.each(DATABASES)('request logs on %s', (kind) => {
  let t: TestApp;
  const written: string[] = [];

  beforeAll(async () => {
    t = await startOnFreshDatabase(kind, { logDestination: { write: (line: string) => void written.push(line) } });
  });

  afterAll(async () => {
    await t.close();
  });

  /** The request lines written since `from`, parsed. */
  function requestLines(from: number): LogLine[] {
    return written
      .slice(from)
      .map((line) => JSON.parse(line) as LogLine)
      .filter((line) => line.req !== undefined);
  }

  /** Log lines are written when the response closes, which can come a moment after the client has it. */
  async function settled(from: number, count: number): Promise<LogLine[]> {
    for (let attempt = 0; attempt < 50 && requestLines(from).length < count; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return requestLines(from);
  }

  it('writes one line per request with its id, method, redacted URL, status, time and key prefix', async () => {
    const from = written.length;
    const response = await t.http().get(`/v2/tags?per_page=2&api_key=${t.keys.alice}`).expect(200);
    const [line, ...others] = await settled(from, 1);
    expect(others).toEqual([]);
    expect(line).toMatchObject({
      level: 30,
      msg: 'request completed',
      req: { id: response.headers['x-request-id'], method: 'GET', url: '/v2/tags?per_page=2&api_key=[redacted]' },
      res: { statusCode: 200 },
      key: keyPrefix(t.keys.alice),
    });
    expect(line!.responseTime).toBeGreaterThanOrEqual(0);
    expect(written.slice(from).join('')).not.toContain(t.keys.alice);
  });

  it('never logs a key sent in the header, nor an unknown key', async () => {
    const from = written.length;
    await t.http().get('/v2/tokens').set('X-API-Key', t.keys.bob).expect(200);
    const unknown = `ctk_${'u'.repeat(40)}`;
    await t.http().get(`/v2/tokens?api_key=${unknown}`).expect(401);
    const lines = await settled(from, 2);
    expect(lines.map((line) => [line.res?.statusCode, line.key])).toEqual([
      [200, keyPrefix(t.keys.bob)],
      [401, undefined],
    ]);
    const text = written.slice(from).join('');
    expect(text).not.toContain(t.keys.bob);
    expect(text).not.toContain(unknown);
    expect(text).not.toMatch(/x-api-key/i);
  });

  it('gives every request its own id, echoed as X-Request-Id', async () => {
    const from = written.length;
    const first = await t.http().get('/health').expect(200);
    const second = await t.http().get('/nowhere').expect(404);
    const lines = await settled(from, 2);
    expect(first.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(lines.map((line) => line.req?.id)).toEqual([first.headers['x-request-id'], second.headers['x-request-id']]);
  });

  it("takes the X-Request-Id a proxy sent, and makes a new one in place of one that is not an id's", async () => {
    const from = written.length;
    const fromProxy = 'f3a9c2d1e4b5a6978877665544332211';
    const kept = await t.http().get('/health').set('X-Request-Id', fromProxy).expect(200);
    expect(kept.headers['x-request-id']).toBe(fromProxy);
    const refused = ['', 'two words', 'a'.repeat(129), 'id"}{"level":60', 'ünïcode', 'x\ty'];
    const answers = [];
    for (const sent of refused) {
      const response = await t.http().get('/health').set('X-Request-Id', sent).expect(200);
      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      answers.push(response.headers['x-request-id']);
    }
    const lines = await settled(from, 1 + refused.length);
    expect(lines.map((line) => line.req?.id)).toEqual([fromProxy, ...answers]);
  });
});
