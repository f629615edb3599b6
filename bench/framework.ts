/**
 * What the HTTP stack alone costs per request on this machine: the same small JSON answer from
 * node:http, from Express 5, from NestJS 11 on Express's own adapter and on chaintags' adapter
 * (ExpressServerAdapter, which the service runs on), with none of chaintags' own layers, each in
 * its own process, driven like the service in `npm run bench`.
 *
 * The floor (bench/floor.ts) answers from node:http; the service runs on NestJS and Express
 * through ExpressServerAdapter. The `nestjs+chaintags` line is the share of the service/floor gap
 * that the framework takes; the `nestjs` line what it took before that adapter.
 *
 *   npm run bench:framework -- [--seconds 8] [--warmup 2] [--connections 10]   (--help lists them)
 */
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Controller, Get, Module, Param } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, NestExpressApplication } from '@nestjs/platform-express';
import express from 'express';
import { Command, Option } from 'commander';
import { ExpressServerAdapter } from '../src/http/express-server';
import { drive, LoadResult } from './lib/load';
import { parseCommandLine, wholeNumber } from './lib/options';
import { freePort } from '../test/support/pg-cluster';
import { cpuSecondsOf, ROOT, sleep } from './lib/processes';

const KINDS = ['node:http', 'express', 'nestjs', 'nestjs+chaintags'] as const;
type Kind = (typeof KINDS)[number];

const ANSWER = { chain: 'ethereum', address: '0x0000000000000000000000000000000000000001', tags: ['bench_a'] };

@Controller('hello')
class HelloController {
  @Get(':id')
  hello(@Param('id') _id: string): typeof ANSWER {
    return ANSWER;
  }
}

@Module({ controllers: [HelloController] })
class HelloModule {}

async function serve(kind: Kind, port: number): Promise<void> {
  if (kind === 'node:http') {
    createServer((_request, response) => {
      const text = JSON.stringify(ANSWER);
      response.writeHead(200, {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Length': Buffer.byteLength(text),
      });
      response.end(text);
    }).listen(port, '127.0.0.1');
  } else if (kind === 'express') {
    const app = express();
    app.disable('x-powered-by');
    app.get('/hello/:id', (_request, response) => void response.json(ANSWER));
    app.listen(port, '127.0.0.1');
  } else {
    const adapter = kind === 'nestjs' ? new ExpressAdapter() : new ExpressServerAdapter();
    const app = await NestFactory.create<NestExpressApplication>(HelloModule, adapter, { logger: false });
    app.disable('x-powered-by');
    await app.listen(port, '127.0.0.1');
  }
}

interface Figures extends LoadResult {
  kind: Kind;
}

async function measure(kind: Kind, settings: Settings): Promise<Figures> {
  const port = await freePort();
  const child = spawn(process.execPath, ['-r', '@swc-node/register', __filename, '--serve', kind, String(port)], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
  try {
    await waitUntilAnswering(port);
    const load = { port, paths: ['/hello/1', '/hello/2'], headers: {}, connections: settings.connections };
    await drive({ ...load, seconds: settings.warmup });
    const before = cpuSecondsOf(child.pid!);
    const result = await drive({ ...load, seconds: settings.seconds });
    const cpuMsPerRequest = ((cpuSecondsOf(child.pid!) - before) * 1000) / result.requests;
    return { kind, ...result, cpuMsPerRequest };
  } finally {
    child.kill('SIGTERM');
  }
}

async function waitUntilAnswering(port: number): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/hello/0`)).ok) return;
    } catch {
      // Not listening yet.
    }
    await sleep(100);
  }
  throw new Error(`nothing answered on port ${port}`);
}

interface Settings {
  seconds: number;
  warmup: number;
  connections: number;
}

/** The run's settings from its command line; undefined after `--help` or a refused option. */
function readSettings(argv: readonly string[]): Settings | undefined {
  const count = (flags: string, description: string, fallback: number) =>
    new Option(flags, description).default(fallback).argParser(wholeNumber(1));
  const command = new Command('npm run bench:framework')
    .description('What node:http, Express and NestJS alone cost per request on this machine (bench/README.md).')
    .addOption(count('--seconds <n>', 'length of each measured window', 8))
    .addOption(count('--warmup <n>', 'warm-up before each measured window, in seconds', 2))
    .addOption(count('--connections <n>', 'concurrent connections of the load', 10));
  return parseCommandLine<Settings>(command, argv);
}

async function main(): Promise<void> {
  const settings = readSettings(process.argv.slice(2));
  if (settings === undefined) return;
  const results: Figures[] = [];
  for (const kind of KINDS) results.push(await measure(kind, settings));
  const base = results[0]!.cpuMsPerRequest!;
  const lines = [
    `${'stack'.padEnd(16)} ${'rps'.padStart(7)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'CPU ms'.padStart(7)} ${'over node:http'.padStart(15)}`,
    ...results.map(
      (figures) =>
        `${figures.kind.padEnd(16)} ${Math.round(figures.rps).toString().padStart(7)} ${figures.p50.toFixed(2).padStart(7)} ` +
        `${figures.p99.toFixed(2).padStart(7)} ${figures.cpuMsPerRequest!.toFixed(3).padStart(7)} ` +
        `${(figures.cpuMsPerRequest! - base).toFixed(3).padStart(15)}`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  writeFileSync(
    join(ROOT, 'bench', 'results', 'framework.json'),
    `${JSON.stringify({ node: process.version, settings, results }, null, 2)}\n`,
  );
}

if (process.argv[2] === '--serve') {
  void serve(process.argv[3] as Kind, Number(process.argv[4]));
} else {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
