/**
 * `npm run bench:webhooks`: the webhook targets of issue 19, measured in one process (the service
 * as the e2e tests start it, and a loopback receiver that verifies every delivery with the
 * `standardwebhooks` package).
 *
 * 1. Latency: anvil, the follower at confirmations 0 polling every `--interval-ms`, one webhook on
 *    a tagged address; `--samples` payments one at a time. Reports, per payment, the time from
 *    the block's commit (the event's `timestamp`, set inside the commit) to the receiver, and
 *    from the payment's receipt to the receiver (which adds the follower's polling).
 * 2. Throughput: `--events` events written into the outbox at `--rate` a second (as a follower's
 *    commits write them, without the chain), to one webhook whose receiver answers 500 to half of
 *    them on their first attempt (WEBHOOK_RETRY_SECONDS=1). Reports the attempts a second, the
 *    time until every event was answered 2xx, and checks that none is lost and none is answered
 *    2xx twice.
 *
 *   npm run bench:webhooks [-- --database sqlite|postgres] [--samples 20] [--interval-ms 100]
 *                          [--events 10000] [--rate 1000]
 *
 * PostgreSQL needs the e2e harness's cluster: it is started here. Nothing here runs in `npm test`.
 */
import { ChildProcess, fork } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Command, Option } from 'commander';
import { startAnvil } from '../test/support/anvil';
import { randomAddress } from '../test/support/follow-client';
import { createPostgresTemplate, createSqliteTemplate, SQLITE_TEMPLATE_ENV } from '../test/support/database-templates';
import { startCluster, stopCluster } from '../test/support/pg-cluster';
import { freshDatabase, newKey, startTestApp, TestApp } from '../test/support/test-app';
import { WebhookReceiver } from '../test/support/webhook-receiver';
import type { ReceivedSummary } from './lib/webhook-receiver-process';
import { newEventId } from '../src/modules/webhooks/webhook-ids';
import { WebhooksRepository } from '../src/modules/webhooks/webhooks.repository';

interface Options {
  database: 'sqlite' | 'postgres';
  samples: number;
  intervalMs: number;
  events: number;
  rate: number;
}

const program = new Command()
  .addOption(new Option('--database <kind>').choices(['sqlite', 'postgres']).default('sqlite'))
  .option('--samples <n>', 'payments for the latency', (v) => Number(v), 20)
  .option('--interval-ms <ms>', 'FOLLOW_INTERVAL_MS', (v) => Number(v), 100)
  .option('--events <n>', 'events for the throughput', (v) => Number(v), 10_000)
  .option('--rate <n>', 'events written a second', (v) => Number(v), 1000);

async function createWebhook(
  t: TestApp,
  key: string,
  url: string,
  tags: string[],
): Promise<{ id: string; secret: string }> {
  const response = await t
    .http()
    .post('/v2/webhooks')
    .set('X-API-Key', key)
    .set('Content-Type', 'application/json')
    .send(JSON.stringify({ url, tags }));
  if (response.status !== 201) throw new Error(`create: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { id: string; secret: string };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function latency(options: Options): Promise<void> {
  const anvil = await startAnvil();
  const db = await freshDatabase(options.database);
  const receiver = await WebhookReceiver.start();
  const keys = { alice: newKey(), bob: newKey() };
  const t = await startTestApp({
    databaseUrl: db.url,
    keys,
    env: {
      RPC_URL_ETHEREUM: anvil.url,
      CONFIRMATIONS_ETHEREUM: '0',
      FOLLOW_INTERVAL_MS: String(options.intervalMs),
      WEBHOOK_ALLOW_PRIVATE_URLS: 'on',
    },
  });
  try {
    const payee = randomAddress();
    await t
      .http()
      .post('/v2/tags/bench_latency')
      .set('X-API-Key', keys.alice)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify([payee]));
    const made = await createWebhook(t, keys.alice, receiver.url('/latency'), ['bench_latency']);
    receiver.secret('/latency', made.secret);
    const fromCommit: number[] = [];
    const fromReceipt: number[] = [];
    for (let i = 0; i < options.samples; i++) {
      const hash = await anvil.walletClient(1).sendTransaction({ to: payee, value: 1n });
      await anvil.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 5 });
      const receipt = Date.now();
      await until('the delivery', () => receiver.at('/latency').length > i, 30_000);
      const request = receiver.at('/latency')[i]!;
      if (request.verified === undefined) throw new Error('a delivery did not verify');
      fromCommit.push(request.at - Date.parse(request.verified.timestamp));
      fromReceipt.push(request.at - receipt);
    }
    const line = (label: string, values: number[]) =>
      `  ${label}: p50 ${percentile(values, 50)} ms, p95 ${percentile(values, 95)} ms, max ${Math.max(...values)} ms`;
    console.log(`latency, ${options.database}, ${options.samples} payments, FOLLOW_INTERVAL_MS=${options.intervalMs}`);
    console.log(line('commit → receiver', fromCommit));
    console.log(line('receipt → receiver', fromReceipt));
  } finally {
    await t.close();
    await receiver.close();
    await db.drop();
    await anvil.stop();
  }
}

/** The receiver in its own process (bench/lib/webhook-receiver-process.ts). */
class ReceiverProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  static async start(): Promise<ReceiverProcess> {
    const child = fork(join(__dirname, 'lib', 'webhook-receiver-process.ts'), [], {
      execArgv: ['-r', '@swc-node/register'],
    });
    const { url } = await ReceiverProcess.reply<{ url: string }>(child, 'url');
    return new ReceiverProcess(child, url);
  }

  private static reply<T>(child: ChildProcess, key: string): Promise<T> {
    return new Promise((resolve) => {
      const listen = (message: Record<string, unknown>) => {
        if (!(key in message)) return;
        child.off('message', listen);
        resolve(message as T);
      };
      child.on('message', listen);
    });
  }

  async secret(secret: string): Promise<void> {
    this.child.send({ secret });
    await ReceiverProcess.reply(this.child, 'ready');
  }

  async summary(): Promise<ReceivedSummary[]> {
    this.child.send({ summary: true });
    return (await ReceiverProcess.reply<{ summary: ReceivedSummary[] }>(this.child, 'summary')).summary;
  }

  async stop(): Promise<void> {
    this.child.send({ stop: true });
    await new Promise((resolve) => this.child.once('exit', resolve));
  }
}

async function throughput(options: Options): Promise<void> {
  const db = await freshDatabase(options.database);
  const receiver = await ReceiverProcess.start();
  const keys = { alice: newKey(), bob: newKey() };
  const t = await startTestApp({
    databaseUrl: db.url,
    keys,
    env: { FOLLOW: 'off', WEBHOOK_ALLOW_PRIVATE_URLS: 'on', WEBHOOK_RETRY_SECONDS: '1,1,1,1,1' },
  });
  try {
    const made = await createWebhook(t, keys.alice, receiver.url, ['0']);
    await receiver.secret(made.secret);
    const repository = t.app.get(WebhooksRepository);
    const ids: string[] = [];
    const writtenAt = new Map<string, number>();
    const batch = Math.max(1, Math.round(options.rate / 20));
    const started = Date.now();
    for (let written = 0; written < options.events; written += batch) {
      const at = new Date().toISOString();
      const events = Array.from({ length: Math.min(batch, options.events - written) }, () => {
        const id = newEventId();
        ids.push(id);
        return {
          id,
          webhookId: made.id,
          type: 'webhook.ping',
          chain: null,
          blockNumber: null,
          transferId: null,
          body: JSON.stringify({ type: 'webhook.ping', timestamp: at, data: { webhook_id: made.id } }),
          at,
        };
      });
      await repository.transaction((tx) => repository.insertEvents(tx, events));
      const committed = Date.now();
      for (const event of events) writtenAt.set(event.id, committed);
      const due = started + ((written + batch) / options.rate) * 1000;
      if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
    }
    const writtenMs = Date.now() - started;
    let received: ReceivedSummary[] = [];
    const ok = () => received.filter((request) => request.answered === 200);
    const deadline = Date.now() + 300_000;
    while (ok().length < ids.length) {
      if (Date.now() > deadline) throw new Error('timed out waiting for every event to be answered 2xx');
      await new Promise((resolve) => setTimeout(resolve, 200));
      received = await receiver.summary();
    }
    const doneMs = Math.max(...ok().map((request) => request.at)) - started;
    await new Promise((resolve) => setTimeout(resolve, 3000));
    received = await receiver.summary();
    const okIds = ok().map((request) => request.id);
    const answered = new Set(okIds);
    const twice = okIds.length - answered.size;
    const lost = ids.filter((id) => !answered.has(id)).length;
    const unverified = received.filter((request) => !request.verified).length;
    const firstTry500 = received.filter((request) => request.answered === 500).length;
    const firstAttempt = new Map<string, number>();
    for (const request of received) if (!firstAttempt.has(request.id)) firstAttempt.set(request.id, request.at);
    const waits = ids.map((id) => firstAttempt.get(id)! - writtenAt.get(id)!);
    console.log(`throughput, ${options.database}, ${ids.length} events written at ${options.rate}/s (${writtenMs} ms)`);
    console.log(
      `  ${received.length} attempts (${firstTry500} answered 500), ${Math.round((received.length / doneMs) * 1000)} attempts/s`,
    );
    console.log(
      `  written → first attempt: p50 ${percentile(waits, 50)} ms, p95 ${percentile(waits, 95)} ms, max ${Math.max(...waits)} ms`,
    );
    console.log(`  last 2xx ${doneMs - writtenMs} ms after the last write (a retry waits 1 s)`);
    console.log(`  lost ${lost}, answered 2xx twice ${twice}, signature not verified ${unverified}`);
  } finally {
    await t.close();
    await receiver.stop();
    await db.drop();
  }
}

async function main(): Promise<void> {
  const parsed = program.parse(process.argv).opts<Options>();
  const cluster = parsed.database === 'postgres' ? await startCluster() : undefined;
  let sqliteTemplate: string | undefined;
  try {
    // freshDatabase copies the migrated template the e2e global setup makes: made here the same way.
    if (cluster !== undefined) {
      process.env.CHAINTAGS_TEST_PG = JSON.stringify(cluster);
      await createPostgresTemplate(cluster);
    } else {
      sqliteTemplate = await createSqliteTemplate();
      process.env[SQLITE_TEMPLATE_ENV] = sqliteTemplate;
    }
    if (parsed.samples > 0) await latency(parsed);
    await throughput(parsed);
  } finally {
    if (cluster !== undefined) stopCluster(cluster);
    if (sqliteTemplate !== undefined) rmSync(dirname(sqliteTemplate), { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
