/**
 * The tag load: the dataset's tags through the service's API, as a client would load them (NDJSON
 * cannot carry tags), and then the 10,000-address tag asked for alone.
 */
import { performance } from 'node:perf_hooks';
import { BENCH_ACCOUNTS } from '../dataset/options';
import { fetchAnswer } from '../lib/http';
import { percentile } from '../lib/load';
import type { BigTagAlone, TagLoad } from '../lib/report';
import type { Run } from './context';
import { pathsFor } from './endpoints';

const TAG_BATCH = 1000;
/** Addresses the bench's account tracks without a tag, for the reserved tag's endpoint (`untagged`). */
const UNTAGGED_ADDRESSES = 1000;
const TAG_LOAD_CONCURRENCY = 4;
const WARMUP_REQUESTS = 40;
const WARMUP_ADDRESSES = 20;
/** How many of the slowest requests of TAG_BATCH addresses the report names. */
const SLOWEST_REPORTED = 5;

/**
 * POST /v2/tags/:tag with up to TAG_BATCH addresses a request, a few requests at a time, each with
 * its account's key. With a `suffix`, every tag's name gets it: new tags over the same addresses
 * (`--tags-again`: what assignment costs once the addresses are tracked).
 */
export async function loadTags(run: Run, port: number, suffix = ''): Promise<TagLoad> {
  const { meta, keys, log } = run;
  const jobs: { key: string; tag: string; part: number; addresses: string[] }[] = [];
  for (const tag of meta.tags) {
    for (let start = 0; start < tag.addresses.length; start += TAG_BATCH) {
      jobs.push({
        key: keys[tag.account]!,
        tag: `${tag.name}${suffix}`,
        part: start / TAG_BATCH + 1,
        addresses: tag.addresses.slice(start, start + TAG_BATCH),
      });
    }
  }
  const memberships = jobs.reduce((sum, job) => sum + job.addresses.length, 0);
  log(
    `tags${suffix}: ${meta.tags.length} tags, ${memberships} memberships in ${jobs.length} POST /v2/tags/:tag requests`,
  );
  if (suffix === '') await warmUp(run, port);
  const started = performance.now();
  let next = 0;
  const full: TagLoad['slowest'] = [];
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next]!;
      next += 1;
      const sent = performance.now();
      const response = await fetch(`http://127.0.0.1:${port}/v2/tags/${job.tag}`, {
        method: 'POST',
        headers: { 'x-api-key': job.key, 'content-type': 'application/json' },
        body: JSON.stringify(job.addresses),
        signal: AbortSignal.timeout(120_000),
      });
      const text = await response.text();
      if (response.status !== 200)
        throw new Error(`POST /v2/tags/${job.tag} answered ${response.status}: ${text.slice(0, 300)}`);
      if (job.addresses.length === TAG_BATCH) {
        full.push({ tag: job.tag, part: job.part, sentMs: Math.round(sent - started), ms: performance.now() - sent });
      }
    }
  };
  await Promise.all(Array.from({ length: TAG_LOAD_CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  full.sort((a, b) => a.ms - b.ms);
  const latencies = full.map((request) => request.ms);
  const fullRequestP50Ms = percentile(latencies, 0.5);
  const fullRequestP99Ms = percentile(latencies, 0.99);
  const fullRequestP90Ms = percentile(latencies, 0.9);
  const fullRequestMeanMs = latencies.reduce((sum, latency) => sum + latency, 0) / Math.max(1, latencies.length);
  log(
    `tags${suffix}: loaded in ${seconds.toFixed(1)} s; of the ${latencies.length} requests of ${TAG_BATCH} addresses ` +
      `p50 ${fullRequestP50Ms.toFixed(1)} ms, p99 ${fullRequestP99Ms.toFixed(1)} ms ` +
      `(mean ${fullRequestMeanMs.toFixed(1)} ms, p90 ${fullRequestP90Ms.toFixed(1)} ms)`,
  );
  const slowest = full
    .slice(-SLOWEST_REPORTED)
    .reverse()
    .map((request) => ({ ...request, ms: Math.round(request.ms) }));
  log(
    `tags${suffix}: slowest ${slowest.map((request) => `${request.tag}#${request.part} ${request.ms} ms (sent at ${request.sentMs} ms)`).join(', ')}`,
  );
  if (suffix === '') await trackUntagged(run, port);
  return {
    requests: jobs.length,
    memberships,
    seconds,
    fullRequests: latencies.length,
    fullRequestP50Ms,
    fullRequestP99Ms,
    fullRequestMeanMs,
    fullRequestP90Ms,
    slowest,
  };
}

/**
 * The endpoints are warmed up before they are measured, and so is the tag load: WARMUP_REQUESTS
 * requests of WARMUP_ADDRESSES addresses, a few at a time, each to a tag of its own, deleted after.
 * The addresses are the last dataset tag's, which the load tracks anyway. Without it the load's
 * first requests met a process that had not run the route yet and opened its database connections
 * for them; the p99 of the 57 requests of 1,000 addresses is their slowest, and that was one of
 * the first four (bench/README.md, change 34).
 */
async function warmUp(run: Run, port: number): Promise<void> {
  const tag = run.meta.tags[run.meta.tags.length - 1]!;
  const headers = { 'x-api-key': run.keys[tag.account]!, 'content-type': 'application/json' };
  const started = performance.now();
  let next = 0;
  const send = async (method: 'POST' | 'DELETE', index: number, body?: string) => {
    const response = await fetch(`http://127.0.0.1:${port}/v2/tags/bench_warmup_${index}`, {
      method,
      headers,
      body,
      signal: AbortSignal.timeout(60_000),
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} of a warm-up tag answered ${response.status}: ${text}`);
  };
  const worker = async () => {
    while (next < WARMUP_REQUESTS) {
      const index = next;
      next += 1;
      const from = (index * WARMUP_ADDRESSES) % Math.max(1, tag.addresses.length - WARMUP_ADDRESSES);
      await send('POST', index, JSON.stringify(tag.addresses.slice(from, from + WARMUP_ADDRESSES)));
    }
  };
  await Promise.all(Array.from({ length: TAG_LOAD_CONCURRENCY }, worker));
  for (let index = 0; index < WARMUP_REQUESTS; index += 1) await send('DELETE', index);
  run.log(
    `tags: warmed up with ${WARMUP_REQUESTS} requests of ${WARMUP_ADDRESSES} addresses to throwaway tags ` +
      `(${((performance.now() - started) / 1000).toFixed(1)} s, deleted again)`,
  );
}

/**
 * After the load, the bench's account tracks UNTAGGED_ADDRESSES of the other accounts' tagged
 * addresses (real ones, with holdings and transactions) without a tag: the reserved tag `0`, which
 * the `untagged` endpoint reads, holds them among the account's tracked addresses, all tagged.
 */
async function trackUntagged(run: Run, port: number): Promise<void> {
  const own = new Set(run.meta.tags.filter((tag) => tag.account === BENCH_ACCOUNTS[0]).flatMap((tag) => tag.addresses));
  const others = run.meta.tags.filter((tag) => tag.account !== BENCH_ACCOUNTS[0]).flatMap((tag) => tag.addresses);
  const untagged = [...new Set(others.filter((address) => !own.has(address)))].slice(0, UNTAGGED_ADDRESSES);
  const response = await fetch(`http://127.0.0.1:${port}/v2/tags/0`, {
    method: 'POST',
    headers: { ...run.headers, 'content-type': 'application/json' },
    body: JSON.stringify(untagged),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`POST /v2/tags/0 answered ${response.status}: ${text.slice(0, 300)}`);
  run.log(`tags: ${untagged.length} addresses tracked untagged by ${BENCH_ACCOUNTS[0]} (the reserved tag 0)`);
}

/** Two requests for the 10,000-address tag, one after the other, before anything else asked for it. */
export async function timeBigTagAlone(run: Run, port: number): Promise<BigTagAlone> {
  const [path] = pathsFor('tag_10k', run.meta);
  const timed = async () => {
    const started = performance.now();
    const answer = await fetchAnswer(port, path!, run.headers);
    if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}: ${answer.body.slice(0, 200)}`);
    return performance.now() - started;
  };
  const firstMs = await timed();
  const secondMs = await timed();
  run.log(`10k-address tag alone: ${firstMs.toFixed(1)} ms, then ${secondMs.toFixed(1)} ms`);
  return { firstMs, secondMs };
}
