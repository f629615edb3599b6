/**
 * `npm run bench:follow -- --family ton`: the TON follower (src/modules/follow/ton) measured
 * against the toncenter stand-in of the tests (test/support/toncenter-stand-in.ts), whose
 * transactions `@ton/sandbox` executes in this process.
 *
 * 1. Starts the stand-in and makes the wallets: `--tracked` tracked ones and as many untracked.
 * 2. Starts chaintags (compiled, as bench/follow.ts runs it) with RPC_URL_TON at the stand-in,
 *    NETWORK_TON=localnet, tags the tracked wallets, waits until GET /v2/sync says synced, stops it.
 * 3. Makes `--blocks` masterchain blocks, each of `--per-block` payments between the wallets
 *    (each payment is two transactions: the sender's and the recipient's), spread over two shard
 *    blocks, so that the follower walks a shard block the masterchain block does not name.
 * 4. Catch-up: starts chaintags again on the same database and times it until synced at the head.
 * 5. Correctness: `stats verify`, the transfers recorded against those expected, and every tracked
 *    wallet's balance against the sandbox's.
 *
 * The stand-in answers from this process, so its own cost (the sandbox's snapshots, JSON) is part
 * of what the follower waits for: the figures are the follower's pace against this stand-in, not
 * against toncenter. Prints the figures and writes bench/results/follow-ton-latest.json.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Command, Option } from 'commander';
import { toNano } from '@ton/core';
import type { SandboxContract, TreasuryContract } from '@ton/sandbox';
import { TonStandIn } from '../test/support/toncenter-stand-in';
import type { PgCluster } from '../test/support/pg-cluster';
import { seededRandom } from './lib/chain-traffic';
import { DatabaseKind, phases } from './lib/follow-report';
import {
  countTransactions,
  cpuMeter,
  freshDatabase,
  nativeBalances,
  postTags,
  prepareRuns,
  sampleRss,
  SyncWatch,
  tagsOf,
  waitSynced,
} from './lib/follow-service';
import { benchLog, Cleanups, runBench } from './lib/lifecycle';
import { parseCommandLine, wholeNumber } from './lib/options';
import { hostFacts, ROOT, startService, statsVerify } from './lib/processes';
import { number } from './lib/report';

const RESULTS_DIR = join(ROOT, 'bench', 'results');
const ACCOUNT = 'bench';
const CHAIN = 'ton';

interface Settings {
  blocks: number;
  perBlock: number;
  tracked: number;
  intervalMs: number;
  databases: DatabaseKind[];
  seed: string;
}

interface TonFigures {
  generation: { blocks: number; payments: number; expected: number; seconds: number };
  catchUp: {
    blocks: number;
    followingSeconds: number;
    secondsFromStart: number;
    blocksPerSecond: number;
    recordedPerSecond: number;
    cpuSeconds: Record<string, number>;
    loadAverage: number;
  };
  rss: { peakSampledMb: number; highWaterMb: number };
  correctness: {
    statsVerifyExact: boolean;
    recorded: number;
    expected: number;
    balancesChecked: number;
    balancesWrong: number;
  };
}

const cleanups = new Cleanups();
const log = benchLog('bench:follow ton');
const followerErrors: string[] = [];

/** Runs the TON bench on this command line (without node, the script and `--family ton`). */
export function followTon(argv: readonly string[]): void {
  runBench(() => main(argv), cleanups, log);
}

async function main(argv: readonly string[]): Promise<void> {
  const settings = readSettings(argv);
  if (settings === undefined) return;
  const startedAt = new Date().toISOString();
  const loadBefore = loadavg()[0]!;
  mkdirSync(RESULTS_DIR, { recursive: true });
  const { build, cluster } = await prepareRuns(settings.databases, cleanups, log);
  const runs: Partial<Record<DatabaseKind, TonFigures>> = {};
  for (const kind of settings.databases) runs[kind] = await runOn(kind, settings, cluster, build);
  await cleanups.run(log);
  const results = {
    command: `npm run bench:follow -- --family ton${argv.length > 0 ? ` ${argv.join(' ')}` : ''}`,
    startedAt,
    machine: {
      ...hostFacts(),
      loadAverageBefore: Number(loadBefore.toFixed(2)),
      loadAverageAfter: Number(loadavg()[0]!.toFixed(2)),
    },
    settings,
    followerErrors,
    runs,
  };
  writeFileSync(join(RESULTS_DIR, 'follow-ton-latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  const lines = [`chaintags TON follower benchmark — ${results.command}`];
  lines.push(
    `machine: ${results.machine.cpu} × ${results.machine.cpus}, Node ${results.machine.node}; load average ` +
      `${results.machine.loadAverageBefore} before, ${results.machine.loadAverageAfter} after`,
  );
  for (const [kind, run] of Object.entries(runs)) {
    lines.push(
      '',
      kind,
      phases([
        [
          'blocks made',
          `${run.generation.blocks} masterchain blocks, ${run.generation.payments} payments in ${number(run.generation.seconds, 1)} s`,
        ],
        [
          'catch-up',
          `${number(run.catchUp.blocksPerSecond, 1)} masterchain blocks/s, ${number(run.catchUp.recordedPerSecond)} transfers ` +
            `recorded/s (${number(run.catchUp.followingSeconds, 1)} s following; load ${run.catchUp.loadAverage})`,
        ],
        [
          '',
          `CPU: chaintags ${number(run.catchUp.cpuSeconds.service ?? NaN, 1)} s, stand-in ${number(run.catchUp.cpuSeconds.standIn ?? NaN, 1)} s` +
            (Number.isFinite(run.catchUp.cpuSeconds.postgres)
              ? `, PostgreSQL ${number(run.catchUp.cpuSeconds.postgres!, 1)} s`
              : ''),
        ],
        ['RSS', `peak sampled ${number(run.rss.peakSampledMb)} MiB, high-water ${number(run.rss.highWaterMb)} MiB`],
        [
          'correctness',
          `stats verify ${run.correctness.statsVerifyExact ? 'exact' : 'DRIFT'}; ${run.correctness.recorded} transfers ` +
            `recorded, ${run.correctness.expected} expected; ${run.correctness.balancesWrong} of ` +
            `${run.correctness.balancesChecked} balances wrong`,
        ],
      ]),
    );
  }
  process.stdout.write(`\n${lines.join('\n')}\n`);
  log(`wrote ${join('bench', 'results', 'follow-ton-latest.json')}`);
}

async function runOn(
  kind: DatabaseKind,
  settings: Settings,
  cluster: PgCluster | undefined,
  build: { main: string; cli: string },
): Promise<TonFigures> {
  log(`${kind}: starting the toncenter stand-in and ${settings.tracked * 2} wallets`);
  const ton = await TonStandIn.start();
  cleanups.push(() => ton.close());
  const tracked: SandboxContract<TreasuryContract>[] = [];
  const untracked: SandboxContract<TreasuryContract>[] = [];
  for (let index = 0; index < settings.tracked; index++) {
    tracked.push(await ton.blockchain.treasury(`tracked-${index}`));
    untracked.push(await ton.blockchain.treasury(`untracked-${index}`));
  }
  const trackedSet = new Set(tracked.map((wallet) => wallet.address.toRawString()));
  ton.seal();

  const databaseUrl = await freshDatabase(kind, cluster, cleanups, 'bench_follow_ton');
  const key = `ctk_${randomBytes(24).toString('base64url')}`;
  const headers = { 'x-api-key': key };
  const env = {
    FOLLOW: 'on',
    RPC_URL_TON: ton.apiUrl,
    NETWORK_TON: 'localnet',
    FOLLOW_INTERVAL_MS: String(settings.intervalMs),
  };
  const serviceOptions = { databaseUrl, apiKeys: `${ACCOUNT}:${key}`, env };
  const watch = (port: number): SyncWatch => ({
    port,
    headers,
    chain: CHAIN,
    head: () => Promise.resolve(BigInt(ton.head)),
    errors: followerErrors,
    log,
  });
  const setupStartedAt = new Date();
  const setup = cleanups.track(
    await startService(build.main, { ...serviceOptions, logFile: join(RESULTS_DIR, `follow-ton-${kind}-setup.log`) }),
  );
  await postTags(setup.port, key, tagsOf('tracked', [...trackedSet]));
  await waitSynced(watch(setup.port), 600_000, setupStartedAt);
  await setup.stop();

  log(`${kind}: making ${settings.blocks} masterchain blocks of ${settings.perBlock} payments`);
  const random = seededRandom(`${settings.seed}:${kind}`);
  const everyone = [...tracked, ...untracked];
  let expected = 0;
  let payments = 0;
  const making = performance.now();
  for (let block = 0; block < settings.blocks; block++) {
    for (let index = 0; index < settings.perBlock; index++) {
      const from = everyone[Math.floor(random() * everyone.length)]!;
      let to = everyone[Math.floor(random() * everyone.length)]!;
      if (to === from) to = everyone[(everyone.indexOf(from) + 1) % everyone.length]!;
      ton.record(await from.send({ to: to.address, value: toNano('0.001') + BigInt(index), bounce: false }));
      payments++;
      // One transfer per payment touching a tracked wallet (recorded once when both are tracked).
      if (trackedSet.has(from.address.toRawString()) || trackedSet.has(to.address.toRawString())) expected++;
    }
    ton.seal({ shardBlocks: 2 });
    if ((block + 1) % 100 === 0) log(`  ${block + 1} blocks (load ${loadavg()[0]!.toFixed(2)})`);
  }
  const generation = { blocks: settings.blocks, payments, expected, seconds: (performance.now() - making) / 1000 };

  const loadAtCatchUp = loadavg()[0]!;
  const spawnedAt = performance.now();
  const serviceStartedAt = new Date();
  const service = cleanups.track(
    await startService(build.main, { ...serviceOptions, logFile: join(RESULTS_DIR, `follow-ton-${kind}.log`) }),
  );
  const cpu = cpuMeter(service, { name: 'standIn', pid: process.pid }, cluster, kind);
  const rss = sampleRss(service);
  cleanups.push(() => rss.stop());
  const synced = await waitSynced(watch(service.port), 1_800_000, serviceStartedAt);
  const followingSeconds = (synced.at - synced.firstSample.at) / 1000;
  const followed = ton.head - Number(synced.firstSample.indexed);
  const memory = service.memory();
  const cpuSeconds = cpu.since();
  rss.stop();
  await service.stop();
  const recorded = await countTransactions(databaseUrl, CHAIN);
  const catchUp = {
    blocks: settings.blocks,
    followingSeconds,
    secondsFromStart: (synced.at - spawnedAt) / 1000,
    blocksPerSecond: followed / followingSeconds,
    recordedPerSecond: (followed * (expected / settings.blocks)) / followingSeconds,
    cpuSeconds,
    loadAverage: Number(((loadAtCatchUp + loadavg()[0]!) / 2).toFixed(2)),
  };
  log(`${kind}: ${catchUp.blocksPerSecond.toFixed(1)} masterchain blocks/s; ${recorded} transfers recorded`);

  const verify = statsVerify(build.cli, databaseUrl);
  const held = await nativeBalances(databaseUrl, CHAIN);
  let wrong = 0;
  for (const wallet of tracked) {
    const actual = (await ton.blockchain.getContract(wallet.address)).balance;
    if (held.get(wallet.address.toRawString()) !== actual) wrong++;
  }
  await ton.close();
  return {
    generation,
    catchUp,
    rss: { peakSampledMb: rss.peak(), highWaterMb: memory.peakMb },
    correctness: {
      statsVerifyExact: verify.exact,
      recorded,
      expected: expected + 0,
      balancesChecked: tracked.length,
      balancesWrong: wrong,
    },
  };
}

function readSettings(argv: readonly string[]): Settings | undefined {
  const count = (flags: string, description: string, fallback: number, min: number) =>
    new Option(flags, description).default(fallback).argParser(wholeNumber(min));
  const command = new Command('npm run bench:follow -- --family ton')
    .description("chaintags' TON follower against the toncenter stand-in (bench/README.md).")
    .addOption(count('--blocks <n>', 'masterchain blocks to catch up', 500, 1))
    .addOption(count('--per-block <n>', 'payments in each masterchain block', 10, 1))
    .addOption(count('--tracked <n>', 'tracked wallets (as many untracked)', 20, 1))
    .addOption(count('--interval-ms <ms>', "the follower's interval (FOLLOW_INTERVAL_MS)", 200, 50))
    .option('--sqlite', 'SQLite too, after PostgreSQL')
    .option('--skip-postgres', 'leave out PostgreSQL (with --sqlite)')
    .addOption(new Option('--seed <text>', 'seed of the traffic').default('chaintags-follow-ton'));
  const options = parseCommandLine<{
    blocks: number;
    perBlock: number;
    tracked: number;
    intervalMs: number;
    sqlite?: boolean;
    skipPostgres?: boolean;
    seed: string;
  }>(command, argv, (parsed) =>
    parsed.skipPostgres === true && parsed.sqlite !== true ? '--skip-postgres needs --sqlite' : undefined,
  );
  if (options === undefined) return undefined;
  const { sqlite, skipPostgres, ...rest } = options;
  return {
    ...rest,
    databases: [
      ...(skipPostgres === true ? [] : ['postgres' as const]),
      ...(sqlite === true ? ['sqlite' as const] : []),
    ],
  };
}
