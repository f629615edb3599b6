import type TestAgent from 'supertest/lib/agent';
import { IngestService } from '../../src/modules/ingest/ingest.service';
import { ndjson } from './factories';
import type { TestApp } from './test-app';

/**
 * Loads NDJSON lines into a running test app's database through its import service, the code
 * `cli import -` runs, without starting a process: for suites whose subject is what the API
 * answers about the data. The import suites and one test per command still run the command line.
 * Fails unless every line is valid and the import committed.
 */
export async function importLines(t: TestApp, lines: (Record<string, unknown> | string)[]): Promise<void> {
  const report = await t.app.get(IngestService).import([ndjson(lines)]);
  expect({ committed: report.committed, invalidLines: report.invalidLines }).toEqual({
    committed: true,
    invalidLines: [],
  });
}

/** POST /v2/tags/:tag with `addresses` as the JSON body, as the account of `key`. */
export function tagAddresses(t: TestApp, key: string, tag: string, addresses: string[]): ReturnType<TestAgent['post']> {
  return t
    .http()
    .post(`/v2/tags/${tag}`)
    .set('X-API-Key', key)
    .set('Content-Type', 'application/json')
    .send(JSON.stringify(addresses));
}

/** The relations of a GitHub-style Link header (`<url>; rel="next", …`), by name. */
export function parseLinks(header: string | undefined): Record<string, string> {
  const links: Record<string, string> = {};
  for (const part of (header ?? '').split(',').filter(Boolean)) {
    const match = /<([^>]+)>;\s*rel="(\w+)"/.exec(part.trim());
    if (match) links[match[2]!] = match[1]!;
  }
  return links;
}

/**
 * Requests as the account of `key`: JSON bodies sent as JSON (`del` without a body sends none).
 * `key` is kept for the tests that compare it with what the service recorded.
 */
export function asKey(t: TestApp, key: string) {
  const json = (call: ReturnType<TestAgent['post']>, body: unknown) =>
    call.set('X-API-Key', key).set('Content-Type', 'application/json').send(JSON.stringify(body));
  return {
    key,
    post: (path: string, body: unknown) => json(t.http().post(path), body),
    patch: (path: string, body: unknown) => json(t.http().patch(path), body),
    del: (path: string, body?: unknown) =>
      body === undefined ? t.http().delete(path).set('X-API-Key', key) : json(t.http().delete(path), body),
    get: (path: string) => t.http().get(path).set('X-API-Key', key),
  };
}
