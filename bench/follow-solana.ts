/**
 * `npm run bench:follow -- --family solana`: the Solana follower (src/modules/follow/solana)
 * catching up, measured. litesvm executes real SOL transfers and the tests' JSON-RPC stand-in
 * (test/support/solana-rpc-stand-in.ts) serves them as finalized blocks, in this process.
 *
 * 1. Starts the stand-in, funds the senders (one per transaction of a block) and derives the
 *    tracked recipients.
 * 2. Starts chaintags (compiled, as bench/follow.ts runs it) with RPC_URL_SOLANA at the stand-in,
 *    NETWORK_SOLANA=localnet, tags the tracked addresses, waits until GET /v2/sync says synced,
 *    and stops it.
 * 3. Makes the blocks (default 500 of 20 transfers, one slot in four skipped), each transfer
 *    paying a tracked recipient.
 * 4. Catch-up: starts chaintags again on the same database and times it until synced at the
 *    finalized slot: blocks/s and the server's RSS.
 * 5. Correctness: `stats verify`, the transfers recorded against those made, and every tracked
 *    recipient's SOL balance against litesvm's.
 *
 * The stand-in answers from memory in this process, so the figures are chaintags' own cost of
 * reading and writing; a real node's `getBlock` (MB-scale on mainnet) costs far more. Prints the
 * figures with the load average and writes bench/results/follow-solana-latest.json. Nothing here
 * runs in `npm test`.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { generateKeyPairSigner, lamports, type Address, type KeyPairSigner } from '@solana/kit';
import { Command, Option } from 'commander';
import { startSolanaStandIn } from '../test/support/solana-rpc-stand-in';
import { sendSol } from '../test/support/solana-tokens';
import { DatabaseKind } from './lib/follow-report';
import {
  countTransactions,
  freshDatabase,
  nativeBalances,
  postTags,
  prepareRuns,
  sampleRss,
  tagsOf,
  waitSynced,
  type SyncWatch,
} from './lib/follow-service';
import { benchLog, Cleanups, runBench } from './lib/lifecycle';
import { parseCommandLine, wholeNumber } from './lib/options';
import { hostFacts, ROOT, startService, statsVerify } from './lib/processes';

const RESULTS_DIR = join(ROOT, 'bench', 'results');
const CHAIN = 'solana';
const SOL = 1_000_000_000n;

interface Settings {
  blocks: number;
  perBlock: number;
  addresses: number;
  intervalMs: number;
  databases: DatabaseKind[];
}

const cleanups = new Cleanups();
const log = benchLog('bench:follow solana');

/** Runs the Solana bench on this command line (without node, the script and `--family solana`). */
export function followSolana(argv: readonly string[]): void {
  runBench(() => main(argv), cleanups, log);
}

async function main(argv: readonly string[]): Promise<void> {
  const settings = readSettings(argv);
  if (settings === undefined) return;
  const started = performance.now();
  const loadBefore = loadavg()[0]!;
  mkdirSync(RESULTS_DIR, { recursive: true });
  const { build, cluster } = await prepareRuns(settings.databases, cleanups, log);
  const runs: Record<string, unknown> = {};
  const lines: string[] = [];
  for (const kind of settings.databases) {
    const run = await runOn(kind, settings, build, cluster);
    runs[kind] = run;
    lines.push(run.summary);
  }
  await cleanups.run(log);
  const results = {
    command: `npm run bench:follow -- --family solana${argv.length > 0 ? ` ${argv.join(' ')}` : ''}`,
    startedAt: new Date().toISOString(),
    wallSeconds: (performance.now() - started) / 1000,
    machine: {
      ...hostFacts(),
      loadAverageBefore: Number(loadBefore.toFixed(2)),
      loadAverageAfter: Number(loadavg()[0]!.toFixed(2)),
    },
    settings,
    runs,
  };
  writeFileSync(join(RESULTS_DIR, 'follow-solana-latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  const machine = results.machine;
  process.stdout.write(
    [
      '',
      `chaintags Solana follower benchmark — ${results.command}`,
      `machine: ${machine.cpu} × ${machine.cpus}, ${machine.memoryGb} GB, Node ${machine.node}; load average ` +
        `${machine.loadAverageBefore} before, ${machine.loadAverageAfter} after (other jobs share the cores)`,
      ...lines,
      `wall time ${results.wallSeconds.toFixed(0)} s`,
      '',
    ].join('\n'),
  );
  log(`wrote ${join('bench', 'results', 'follow-solana-latest.json')}`);
}

async function runOn(
  kind: DatabaseKind,
  settings: Settings,
  build: { main: string; cli: string },
  cluster: Parameters<typeof freshDatabase>[1],
) {
  log(`${kind}: starting the Solana stand-in (litesvm) and funding ${settings.perBlock} senders`);
  const node = await startSolanaStandIn();
  cleanups.push(() => node.close());
  const senders: KeyPairSigner[] = [];
  for (let index = 0; index < settings.perBlock; index++) {
    const sender = await generateKeyPairSigner();
    node.svm.airdrop(sender.address, lamports(1_000n * SOL));
    senders.push(sender);
  }
  const recipients: Address[] = [];
  for (let index = 0; index < settings.addresses; index++) recipients.push((await generateKeyPairSigner()).address);
  node.produce();

  const databaseUrl = await freshDatabase(kind, cluster, cleanups, 'bench_follow_solana');
  const key = `ctk_${randomBytes(24).toString('base64url')}`;
  const headers = { 'x-api-key': key };
  const serviceOptions = {
    databaseUrl,
    apiKeys: `bench:${key}`,
    env: {
      FOLLOW: 'on',
      RPC_URL_SOLANA: node.url,
      NETWORK_SOLANA: 'localnet',
      FOLLOW_INTERVAL_MS: String(settings.intervalMs),
    },
  };
  const watch = (port: number): SyncWatch => ({
    port,
    headers,
    chain: CHAIN,
    head: () => Promise.resolve(node.finalized()),
    errors: [],
    log,
  });

  const setupStartedAt = new Date();
  const setup = cleanups.track(
    await startService(build.main, {
      ...serviceOptions,
      logFile: join(RESULTS_DIR, `follow-solana-${kind}-setup.log`),
    }),
  );
  const tagging = await postTags(setup.port, key, tagsOf('tracked', recipients));
  log(`${kind}: tagged ${tagging.addresses} addresses in ${tagging.seconds.toFixed(1)} s; waiting for the follower`);
  await waitSynced(watch(setup.port), 600_000, setupStartedAt);
  await setup.stop();

  log(`${kind}: making ${settings.blocks} blocks of ${settings.perBlock} transfers (load ${loadavg()[0]!.toFixed(2)})`);
  const making = performance.now();
  const firstSlot = node.finalized();
  let made = 0;
  for (let block = 0; block < settings.blocks; block++) {
    for (const [index, sender] of senders.entries()) {
      const recipient = recipients[(block * settings.perBlock + index) % recipients.length]!;
      // At least the rent-exempt minimum: a recipient left below it would fail the transfer.
      const paid = await node.send(sender, [sendSol(sender, recipient, 1_000_000n + BigInt(block))]);
      if (paid.failed) throw new Error('a transfer failed');
      made += 1;
    }
    node.produce({ skip: block % 4 === 3 ? 1 : 0 });
  }
  const makingSeconds = (performance.now() - making) / 1000;
  const slots = Number(node.finalized() - firstSlot);
  log(`${kind}: ${made} transfers in ${settings.blocks} blocks (${slots} slots) in ${makingSeconds.toFixed(1)} s`);

  const loadAtCatchUp = loadavg()[0]!;
  const spawnedAt = performance.now();
  const serviceStartedAt = new Date();
  const service = cleanups.track(
    await startService(build.main, { ...serviceOptions, logFile: join(RESULTS_DIR, `follow-solana-${kind}.log`) }),
  );
  const rss = sampleRss(service);
  cleanups.push(() => rss.stop());
  const cpuAtStart = service.cpuSeconds();
  const synced = await waitSynced(watch(service.port), 1_800_000, serviceStartedAt);
  const followingSeconds = (synced.at - synced.firstSample.at) / 1000;
  const followedBlocks = node.slots().filter((slot) => slot > synced.firstSample.indexed).length;
  const cpuSeconds = service.cpuSeconds() - cpuAtStart;
  const memory = service.memory();
  const loadAverage = Number(((loadAtCatchUp + loadavg()[0]!) / 2).toFixed(2));
  rss.stop();
  await service.stop();

  const verify = statsVerify(build.cli, databaseUrl);
  const recorded = await countTransactions(databaseUrl, CHAIN);
  const held = await nativeBalances(databaseUrl, CHAIN);
  const wrong = recipients.filter((address) => (held.get(address) ?? 0n) !== (node.svm.getBalance(address) ?? 0n));
  const figures = {
    blocks: settings.blocks,
    transfers: made,
    secondsFromStart: (synced.at - spawnedAt) / 1000,
    followingSeconds,
    blocksPerSecond: followedBlocks / followingSeconds,
    transfersPerSecond: (followedBlocks * settings.perBlock) / followingSeconds,
    serviceCpuSeconds: cpuSeconds,
    rss: { peakSampledMb: rss.peak(), highWaterMb: memory.peakMb, atEndMb: memory.rssMb },
    loadAverage,
    correctness: {
      statsVerifyExact: verify.exact,
      recorded,
      expected: made,
      balancesChecked: recipients.length,
      balancesWrong: wrong.length,
    },
  };
  const name = kind === 'postgres' ? 'PostgreSQL' : 'SQLite';
  const summary = [
    '',
    `${name}: ${settings.addresses} tracked addresses, ${settings.blocks} blocks of ${settings.perBlock} SOL transfers`,
    `  catch-up     ${figures.blocksPerSecond.toFixed(1)} blocks/s, ${figures.transfersPerSecond.toFixed(0)} transfers/s ` +
      `(${followingSeconds.toFixed(1)} s following, ${figures.secondsFromStart.toFixed(1)} s from spawning; ` +
      `chaintags CPU ${cpuSeconds.toFixed(1)} s; load ${loadAverage})`,
    `  server RSS   peak ${memory.peakMb.toFixed(0)} MiB (VmHWM; sampled max ${rss.peak().toFixed(0)}), ` +
      `${memory.rssMb.toFixed(0)} MiB at the end`,
    `  correctness  stats verify ${verify.exact ? 'exact' : `DRIFT ${JSON.stringify(verify.drift)}`}; ${recorded} ` +
      `transfers recorded of ${made}; balances: ${wrong.length} wrong of ${recipients.length}`,
  ].join('\n');
  log(summary);
  await node.close();
  return { ...figures, summary };
}

function readSettings(argv: readonly string[]): Settings | undefined {
  const count = (flags: string, description: string, fallback: number, min: number) =>
    new Option(flags, description).default(fallback).argParser(wholeNumber(min));
  const command = new Command('npm run bench:follow -- --family solana')
    .description("chaintags' Solana follower catching up on a litesvm-backed JSON-RPC stand-in (bench/README.md).")
    .addOption(count('--blocks <n>', 'blocks to catch up', 500, 1))
    .addOption(count('--per-block <n>', 'SOL transfers in each block (one per sender)', 20, 1))
    .addOption(count('--addresses <n>', 'tracked recipients', 1000, 1))
    .addOption(count('--interval-ms <ms>', "the follower's interval (FOLLOW_INTERVAL_MS)", 200, 50))
    .option('--sqlite', 'SQLite too, after PostgreSQL')
    .option('--skip-postgres', 'leave out PostgreSQL (with --sqlite)');
  const options = parseCommandLine<Omit<Settings, 'databases'> & { sqlite?: boolean; skipPostgres?: boolean }>(
    command,
    argv,
    (parsed) => (parsed.skipPostgres === true && parsed.sqlite !== true ? '--skip-postgres needs --sqlite' : undefined),
  );
  if (options === undefined) return undefined;
  const { sqlite, skipPostgres, ...shared } = options;
  return {
    ...shared,
    databases: [
      ...(skipPostgres === true ? [] : ['postgres' as const]),
      ...(sqlite === true ? ['sqlite' as const] : []),
    ],
  };
}
