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
