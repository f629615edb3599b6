import fc from 'fast-check';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { evmAddress, FAMILY_EXAMPLES } from './support/addresses';
import { DATABASES, startOnFreshDatabase, TestApp } from './support/test-app';

/**
 * Every operation of the committed OpenAPI document (openapi.json, which foundation's suite keeps
 * equal to the code's), sent random path values, query parameters, bodies, content types and
 * keys: whatever comes in, the answer is never a 5xx and never carries a stack trace; its status
 * is one the document lists for that operation, and an error's code one that the document lists
 * for that status, in the contract's error shape. Swagger UI and generated clients rely on the
 * document; this keeps it honest about what bad input gets.
 */

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, { description: string; headers?: Record<string, { $ref?: string; required?: boolean }> }>;
}

interface Call {
  method: string;
  path: string;
  query: [string, string][];
  contentType?: string;
  body?: string;
  /** alice's full key, her read-only key, none, or a key no account has. */
  key: 'alice' | 'reader' | 'none' | 'unknown';
  /** The operation's header parameters drawn (Idempotency-Key), each sent or not. */
  headers: [string, string][];
}

const OPENAPI = JSON.parse(readFileSync(join(__dirname, '..', 'openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
  components: { headers: Record<string, { required?: boolean }> };
};

/** The headers a documented answer must carry (`required` in their component). */
function requiredHeaders(response: Operation['responses'][string]): string[] {
  return Object.entries(response.headers ?? {})
    .filter(
      ([, header]) =>
        (header.$ref === undefined ? header : OPENAPI.components.headers[header.$ref.split('/').pop()!])?.required ===
        true,
    )
    .map(([name]) => name.toLowerCase());
}
const OPERATIONS = Object.entries(OPENAPI.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({ method, path, operation })),
);
const RUNS_PER_OPERATION = 16;

const addresses = [
  ...Object.values(FAMILY_EXAMPLES).map((example) => example.input),
  evmAddress().checksummed,
  `0x${'ab'.repeat(20)}`,
];
const plausible = fc.constantFrom(
  ...addresses,
  '0',
  'exchanges',
  'whale_watch',
  'wh_4Jq9xR2mT7vK8pL3nB6cW1',
  '1',
  '2',
  '100',
  'ethereum',
  'bitcoin',
  'ton',
  '2024-01-01T00:00:00Z',
  '2024-01-01T00:00:00.123Z',
  'true',
  'false',
  'merge',
  'replace',
);
const junk = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }),
  fc.integer().map(String),
  fc.double().map(String),
  fc.constantFrom('', ' ', '-1', '0x', '1e309', '99999999999999999999', 'null', '[]', '{}', '%', '\u0000', '\ud800'),
  fc.constantFrom('x'.repeat(70), 'x'.repeat(5000), `${addresses[0]} `, addresses.join(',')),
);
const value = fc.oneof({ weight: 2, arbitrary: plausible }, { weight: 3, arbitrary: junk });

/**
 * A header value as a client may send one: a plausible key, or any text an HTTP client can put in a
 * header (Latin-1 but DEL; a value longer than the rules allow included).
 */
const headerValue = fc.oneof(
  fc.uuid(),
  fc.string({
    unit: fc
      .integer({ min: 0x20, max: 0xff })
      .filter((code) => code !== 0x7f)
      .map((code) => String.fromCharCode(code)),
    maxLength: 300,
  }),
);

/** A path segment as a client may spell it: percent-encoded, or with broken percent-encoding. */
const segment = fc.oneof(
  { weight: 5, arbitrary: value.map(percentEncoded) },
  { weight: 1, arbitrary: fc.constantFrom('%C0', '%zz', '%E0%A4', 'abc%', '%FF%FE') },
);

const webhookBody = fc
  .record(
    {
      url: fc.oneof(
        junk,
        fc.constantFrom('https://127.0.0.1/hook', 'http://10.0.0.1/x', 'https://localhost/h', 'ftp://x'),
      ),
      tags: fc.oneof(fc.array(value, { maxLength: 3 }), value),
      chains: fc.oneof(fc.array(value, { maxLength: 3 }), value),
      events: fc.oneof(fc.array(fc.oneof(value, fc.constant('transaction.confirmed')), { maxLength: 3 }), value),
      description: fc.oneof(value, fc.constant(null)),
      status: fc.oneof(value, fc.constantFrom('active', 'paused')),
    },
    { requiredKeys: [] },
  )
  .map((body) => JSON.stringify(body));
const bodyText = fc.oneof(
  fc.array(value, { maxLength: 6 }).map((list) => JSON.stringify(list)),
  fc.jsonValue().map((json) => JSON.stringify(json)),
  webhookBody,
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.constantFrom('', '[', '{"url":', 'tag,address\nexchanges,1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu\n', 'tags: [x]\n'),
);
const contentType = fc.constantFrom(
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'text/plain',
  'application/x-ndjson',
  'text/csv',
  'application/yaml',
  'multipart/form-data; boundary=x',
);

function callOf(method: string, path: string, operation: Operation): fc.Arbitrary<Call> {
  const pathNames = (operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
  const queryNames = [...(operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name), 'limit'];
  const pathValues = fc.tuple(...pathNames.map(() => segment));
  const query = fc.array(fc.tuple(fc.constantFrom(...queryNames), value), { maxLength: 4 });
  // A body goes to every method that can carry one, routes that take none included.
  const body = method === 'get' ? fc.constant(undefined) : fc.option(bodyText, { nil: undefined });
  const declared = Object.keys(operation.requestBody?.content ?? {});
  const type = declared.length > 0 ? fc.oneof(fc.constantFrom(...declared), contentType) : contentType;
  const key = fc.constantFrom<Call['key']>('alice', 'alice', 'alice', 'reader', 'none', 'unknown');
  const headerNames = (operation.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name);
  const headers = fc
    .tuple(...headerNames.map((name) => fc.option(headerValue.map((text): [string, string] => [name, text]))))
    .map((drawn) => drawn.filter((header): header is [string, string] => header !== null));
  return fc.record({ pathValues, query, body, type, key, headers }).map((drawn) => ({
    method,
    path: pathNames.reduce((spelt, name, index) => spelt.replace(`{${name}}`, drawn.pathValues[index]!), path),
    query: drawn.query,
    contentType: drawn.type,
    body: drawn.body,
    key: drawn.key,
    headers: drawn.headers,
  }));
}

/** UTF-8 bytes, percent-encoded but for unreserved characters (a lone surrogate becomes U+FFFD). */
function percentEncoded(text: string): string {
  const encoded = [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9_~-]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
  // An empty segment is another route; a dot segment is taken out by the client's URL parsing.
  return encoded === '' || /^(\.|%2E){1,2}$/.test(encoded) ? 'x' : encoded;
}

describe.each(DATABASES)('the OpenAPI document against random requests on %s', (kind) => {
  let t: TestApp;

  let reader: string;

  beforeAll(async () => {
    t = await startOnFreshDatabase(kind);
    reader = await t.app.get(AccountsService).createKey('alice', 'read');
  });

  afterAll(async () => {
    await t.close();
  });

  async function send(call: Call) {
    const query = new URLSearchParams(call.query).toString();
    const url = `${call.path}${query === '' ? '' : `?${query}`}`;
    let request = t.http()[call.method as 'get'](url);
    if (call.key === 'alice') request = request.set('X-API-Key', t.keys.alice);
    if (call.key === 'reader') request = request.set('X-API-Key', reader);
    if (call.key === 'unknown') request = request.set('X-API-Key', `ctk_${'z'.repeat(32)}`);
    if (call.contentType !== undefined) request = request.set('Content-Type', call.contentType);
    for (const [name, text] of call.headers) request = request.set(name, text);
    const response = await (call.body === undefined ? request : request.send(call.body));
    return { url, status: response.status, text: response.text, headers: response.headers as Record<string, string> };
  }

  it.each(
    OPERATIONS.map(({ method, path, operation }) => [`${method.toUpperCase()} ${path}`, method, path, operation]),
  )('%s answers with a status and code its documentation lists', async (_name, method, path, operation) => {
    await fc.assert(
      fc.asyncProperty(callOf(method, path, operation), async (call) => {
        const { url, status, text, headers } = await send(call);
        const context = `${call.method.toUpperCase()} ${url} (${call.contentType ?? 'no content type'}, key ${call.key}, headers ${JSON.stringify(call.headers)}, body ${JSON.stringify(call.body)?.slice(0, 120)}) answered ${status}: ${text.slice(0, 300)}`;
        if (status >= 500) throw new Error(`a 5xx: ${context}`);
        if (/\n\s+at /.test(text)) throw new Error(`a stack trace: ${context}`);
        const documented = operation.responses[String(status)];
        if (documented === undefined) throw new Error(`an undocumented status: ${context}`);
        const missing = requiredHeaders(documented).filter((name) => headers[name] === undefined);
        if (missing.length > 0) throw new Error(`without its header ${missing.join(', ')}: ${context}`);
        if (status < 400) return;
        const body = JSON.parse(text) as { statusCode: unknown; error: unknown; code: unknown; message: unknown };
        expect(body).toMatchObject({
          statusCode: status,
          error: expect.any(String),
          code: expect.any(String),
          message: expect.any(String),
        });
        const codes = documented.description.split(': ').pop()!.split(', ');
        if (!codes.includes(body.code as string)) throw new Error(`an undocumented code: ${context}`);
      }),
      { numRuns: RUNS_PER_OPERATION },
    );
  });
});
