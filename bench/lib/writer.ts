/**
 * The writer of the "reads while writing" scenario (bench/run.ts), in a process of its own as a
 * chain follower would be: every `--every-ms` it commits one batch of `--transfers` transfers
 * between tagged addresses through chaintags' own sink (per-batch policy, so each batch is one
 * transaction, aggregates included). It writes until its standard input closes, then prints one
 * JSON line: the batches committed and their commit latencies.
 *
 *   DATABASE_URL=… node -r @swc-node/register bench/lib/writer.ts <addresses.json> [--transfers 50] [--every-ms 100]
 *
 * addresses.json: EVM addresses (any spelling) that carry tags; the transfers go between them.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { NestFactory } from '@nestjs/core';
import { CliModule } from '../../src/cli/cli.module';
import { parseConfig } from '../../src/config/config';
import type { RecordInput } from '../../src/core/records/record-input';
import { IngestModule } from '../../src/modules/ingest/ingest.module';
import { RecordSink } from '../../src/modules/ingest/sink/record-sink';
import type { SourceBatch } from '../../src/modules/ingest/sources/record-source';

interface WriterOptions {
  addresses: string[];
  transfers: number;
  everyMs: number;
}

function parseArguments(argv: string[]): WriterOptions {
  const [file, ...rest] = argv;
  if (file === undefined) throw new Error('usage: writer.ts <addresses.json> [--transfers N] [--every-ms MS]');
  const options: WriterOptions = {
    addresses: JSON.parse(readFileSync(file, 'utf8')) as string[],
    transfers: 50,
    everyMs: 100,
  };
  for (let index = 0; index < rest.length; index += 2) {
    const value = Number(rest[index + 1]);
    if (rest[index] === '--transfers') options.transfers = value;
    else if (rest[index] === '--every-ms') options.everyMs = value;
    else throw new Error(`unknown option ${rest[index]}`);
  }
  if (options.addresses.length < 2) throw new Error('the writer needs at least two addresses');
  return options;
}

async function main(): Promise<void> {
  const options = parseArguments(process.argv.slice(2));
  const context = await NestFactory.createApplicationContext(
    CliModule.forRoot(parseConfig(process.env), [IngestModule]),
    { logger: ['error', 'fatal'], abortOnError: false },
  );
  let stopping = false;
  process.stdin.resume();
  process.stdin.on('end', () => (stopping = true));
  process.stdin.on('close', () => (stopping = true));

  const commitMs: number[] = [];
  const run = `${process.pid}-${Date.now()}`;
  let block = 0;
  async function* batches(): AsyncGenerator<SourceBatch> {
    let next = performance.now();
    while (!stopping) {
      block += 1;
      const items = Array.from({ length: options.transfers }, (_v, index) => ({
        position: block * options.transfers + index,
        record: transfer(options.addresses, run, block, index),
      }));
      const started = performance.now();
      yield { items };
      commitMs.push(performance.now() - started);
      next += options.everyMs;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
    }
  }
  try {
    const report = await context.get(RecordSink).write(batches(), { policy: 'per-batch' });
    commitMs.sort((a, b) => a - b);
    const p99 = commitMs[Math.min(commitMs.length - 1, Math.ceil(0.99 * commitMs.length) - 1)] ?? NaN;
    process.stdout.write(
      `${JSON.stringify({ commits: report.commits, invalid: report.invalid, commitP50Ms: commitMs[Math.floor(commitMs.length / 2)] ?? NaN, commitP99Ms: p99 })}\n`,
    );
  } finally {
    await context.close();
  }
}

/** A transfer between two of the addresses, different in every batch. */
function transfer(addresses: readonly string[], run: string, block: number, index: number): RecordInput {
  const from = addresses[(block * 31 + index * 7) % addresses.length]!;
  const to = addresses[(block * 17 + index * 13 + 1) % addresses.length]!;
  return {
    type: 'transaction',
    id: `bench-writer-${run}-${block}-${index}`,
    chain: 'ethereum',
    token_address: '0',
    from_address: from,
    to_address: to,
    value: String(1000 + index),
    tx_hash: `0x${block.toString(16).padStart(64, '0')}`,
    block_number: String(block),
    block_hash: `0x${(block + 1).toString(16).padStart(64, '0')}`,
    block_time: new Date().toISOString(),
  };
}

main().catch((error: unknown) => {
  process.stderr.write(`writer: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
