import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { Address, formatEther, formatUnits, parseEther } from 'viem';
import { createApp } from '../src/app.factory';
import { stopOnSignals } from '../src/app.shutdown';
import { ConfigError, parseConfig } from '../src/config/config';
import { addressOfScript } from '../src/core/addresses/output-script';
import { generateApiKey } from '../src/modules/accounts/api-key';
import { Anvil, startAnvil } from '../test/support/anvil';
import { Litecoind, startLitecoind, WITHOUT_MWEB } from '../test/support/litecoind';
import { deployTestToken, mint, transfer } from '../test/support/test-token';

/**
 * `npm run demo:live [-- --chain bitcoin]`: chaintags following a chain while you watch.
 *
 * Ethereum (the default): starts anvil (a local Ethereum node from the devDependency
 * @foundry-rs/anvil-linux-amd64, chain id 1), deploys a test token, tags three of anvil's dev
 * accounts through the API, then makes a transfer between them every two seconds, native and
 * token in turn.
 *
 * Bitcoin: starts litecoind (Debian's `litecoind`, a Bitcoin Core fork speaking the same
 * JSON-RPC) in regtest, followed as the bitcoin chain with NETWORK_BITCOIN=regtest, so its
 * scripts are shown in their mainnet forms (`1…`, `3…`, `bc1q…`). It tags three wallet
 * addresses, one of each form, then mines a block with a payment between them every three
 * seconds (the first three paid from mined coins), change going back to the sender.
 *
 * Either way the service runs on a temporary SQLite file with FOLLOW on, confirmations 0 and
 * FOLLOW_INTERVAL_MS 500, and a key for account `demo`; each payment is printed with requests to
 * paste. Ctrl-C stops the payments, the service and the node, and removes the database. PORT
 * applies as for the server.
 */

const TAG = 'live_demo';
const CHAINS = ['ethereum', 'bitcoin'] as const;
type DemoChain = (typeof CHAINS)[number];

/** A node that chaintags follows during the demo, and the payments made on it. */
interface LiveChain {
  /** The service's settings that point the follower at the node. */
  env: Record<string, string>;
  /** The addresses tagged, in the form the API takes. */
  tagged: readonly string[];
  /** The introduction's lines about the node and the addresses. */
  introduction: string[];
  /** More requests to paste, under the introduction. */
  requests: (base: string, key: string) => string[];
  everyMs: number;
  /** Makes one payment and mines it; what to print. */
  pay: (turn: number) => Promise<{ block: bigint | number; what: string; from: string; to: string }>;
  stop: () => Promise<void>;
}

async function main(): Promise<void> {
  const chain = readChain(process.argv.slice(2));
  if (chain === undefined) return;
  const folder = mkdtempSync(join(tmpdir(), 'chaintags-demo-live-'));
  const removeFolder = () => rmSync(folder, { recursive: true, force: true });
  // Also when the process ends some other way than Ctrl-C.
  process.once('exit', removeFolder);
  let node: LiveChain | undefined;
  let app: Awaited<ReturnType<typeof createApp>> | undefined;
  const stopping = new AbortController();
  let payments: Promise<void> = Promise.resolve();
  const stop = async () => {
    stopping.abort();
    await payments.catch(() => undefined);
    await app?.close();
    await node?.stop();
    removeFolder();
    process.stdout.write('\nstopped: the service and the node, and the temporary database is removed\n');
  };
  stopOnSignals(stop);

  try {
    node = chain === 'bitcoin' ? await startBitcoin() : await startEthereum();
    const key = generateApiKey();
    const config = parseConfig({
      ...process.env,
      DATABASE_URL: `sqlite:${join(folder, 'chaintags.sqlite')}`,
      // A key named here exists before start-up, so the server does not mint a `default` one.
      API_KEYS: `demo:${key}`,
      FOLLOW: 'on',
      ...node.env,
      FOLLOW_INTERVAL_MS: '500',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      // The demo's chain has no market: no price source unless one is asked for.
      PRICE_REFRESH_SECONDS: process.env.PRICE_REFRESH_SECONDS ?? '0',
    });
    app = await createApp(config);
    await app.listen(config.port);
    const base = `http://localhost:${config.port}`;
    await tag(base, key, node.tagged);
    printIntroduction(base, key, node);
    payments = makePayments(node, base, key, stopping.signal);
    await payments;
  } catch (error) {
    if (!stopping.signal.aborted) {
      await stop().catch(() => undefined);
      throw error;
    }
  }
}

/** `--chain`, from the command line; undefined after `--help` or a refused option. */
function readChain(argv: readonly string[]): DemoChain | undefined {
  const command = new Command('npm run demo:live --')
    .description('chaintags following a local node while you watch (README, "A demo with live chain data").')
    .addOption(
      new Option('--chain <chain>', 'the chain followed: anvil as ethereum, or litecoind in regtest as bitcoin')
        .choices(CHAINS)
        .default('ethereum'),
    )
    .exitOverride();
  try {
    command.parse([...argv], { from: 'user' });
    return command.opts<{ chain: DemoChain }>().chain;
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    process.exitCode = error.exitCode;
    return undefined;
  }
}

async function tag(base: string, key: string, addresses: readonly string[]): Promise<void> {
  const response = await fetch(`${base}/v2/tags/${TAG}`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(addresses),
  });
  if (response.status !== 200) throw new Error(`tagging answered ${response.status}: ${await response.text()}`);
}

function printIntroduction(base: string, key: string, node: LiveChain): void {
  process.stdout.write(
    [
      '',
      ...node.introduction,
      '',
      'API key of account "demo" (new on every run):',
      '',
      `    ${key}`,
      '',
      'Try:',
      '',
      `    curl -s '${base}/v2/sync?api_key=${key}'`,
      `    curl -s '${base}/v2/transactions?api_key=${key}&tag=${TAG}&per_page=5'`,
      ...node.requests(base, key),
      '',
      `API docs: ${base}/docs. Ctrl-C stops everything (the node too) and removes the database.`,
      '',
    ].join('\n'),
  );
}

/** A payment every `everyMs`, until aborted. */
async function makePayments(node: LiveChain, base: string, key: string, signal: AbortSignal): Promise<void> {
  for (let turn = 0; !signal.aborted; turn++) {
    await pause(node.everyMs, signal);
    if (signal.aborted) return;
    const { block, what, from, to } = await node.pay(turn);
    const time = new Date().toISOString().slice(11, 19);
    process.stdout.write(
      [
        `[${time}] block ${block}: ${what} from ${from} to ${to}`,
        `    curl -s '${base}/v2/transactions?api_key=${key}&address=${to}&per_page=3'`,
        `    curl -s '${base}/v2/sync?api_key=${key}'`,
        '',
      ].join('\n'),
    );
  }
}

const TOKEN = { name: 'Demo Dollar', symbol: 'DUSD', decimals: 6 };
/** Dev accounts 1-3 are tagged; account 0 deploys the token. */
const TAGGED_ACCOUNTS = [1, 2, 3];

/** anvil as ethereum: a test token, three dev accounts tagged, native and token transfers in turn. */
async function startEthereum(): Promise<LiveChain> {
  const anvil = await startAnvil({ chainId: 1 });
  try {
    const token = await deployTestToken(anvil, TOKEN);
    const accounts = TAGGED_ACCOUNTS.map((index) => anvil.accounts[index]!.address);
    for (const address of accounts) await mint(anvil, { token, to: address, amount: 1_000_000n * 10n ** 6n });
    const everyMs = 2000;
    return {
      env: { RPC_URL_ETHEREUM: anvil.url, CONFIRMATIONS_ETHEREUM: '0' },
      tagged: accounts,
      introduction: [
        `chaintags live demo: following anvil at ${anvil.url} (chain id 1, the "ethereum" chain here)`,
        '',
        `Tagged "${TAG}" (three of anvil's dev accounts; their earlier token mints are read as history):`,
        ...accounts.map((address) => `    ${address}`),
        '',
        `Token ${TOKEN.symbol} at ${token}. A transfer between them every ${everyMs / 1000} s, native and ${TOKEN.symbol} in turn.`,
      ],
      requests: (base, key) => [`    curl -s '${base}/v2/token-holdings?api_key=${key}&tag=${TAG}'`],
      everyMs,
      pay: (turn) => ethereumTransfer(anvil, token, turn),
      stop: () => anvil.stop(),
    };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}

async function ethereumTransfer(
  anvil: Anvil,
  token: Address,
  turn: number,
): Promise<{ block: bigint; what: string; from: string; to: string }> {
  const from = TAGGED_ACCOUNTS[turn % TAGGED_ACCOUNTS.length]!;
  const to = anvil.accounts[TAGGED_ACCOUNTS[(turn + 1) % TAGGED_ACCOUNTS.length]!]!.address;
  if (turn % 2 === 0) {
    const value = parseEther(String(((turn % 9) + 1) / 10));
    const hash = await anvil.walletClient(from).sendTransaction({ to, value });
    const block = (await anvil.publicClient.waitForTransactionReceipt({ hash })).blockNumber;
    return { block, what: `${formatEther(value)} ETH`, from: anvil.accounts[from]!.address, to };
  }
  const amount = BigInt((turn % 7) + 1) * 25n * 10n ** 6n;
  const block = (await transfer(anvil, { token, from, to, amount })).blockNumber;
  return {
    block,
    what: `${formatUnits(amount, TOKEN.decimals)} ${TOKEN.symbol}`,
    from: anvil.accounts[from]!.address,
    to,
  };
}

/** A wallet address of the node, with the mainnet bitcoin form of its script (what is tagged and shown). */
interface BitcoinAddress {
  regtest: string;
  mainnet: string;
}

/** litecoind in regtest as bitcoin: three wallet addresses (1…, 3…, bc1q…) tagged, a payment a block. */
async function startBitcoin(): Promise<LiveChain> {
  const node = await startLitecoind({ extraArgs: WITHOUT_MWEB });
  try {
    const miner = (await node.newAddress('legacy')).address;
    // Coinbases can be spent after 100 blocks: the first payments come from these.
    await node.mine(103, miner);
    const tagged: BitcoinAddress[] = [];
    for (const type of ['legacy', 'p2sh-segwit', 'bech32'] as const) {
      const address = await node.newAddress(type);
      const mainnet = addressOfScript('bitcoin', address.script);
      if (mainnet === undefined) throw new Error(`no bitcoin address for ${address.address}`);
      tagged.push({ regtest: address.address, mainnet });
    }
    const everyMs = 3000;
    return {
      env: { RPC_URL_BITCOIN: node.rpcUrl, NETWORK_BITCOIN: 'regtest', CONFIRMATIONS_BITCOIN: '0' },
      tagged: tagged.map((address) => address.mainnet),
      introduction: [
        `chaintags live demo: following litecoind in regtest as the "bitcoin" chain (NETWORK_BITCOIN=regtest:`,
        'its scripts are shown in their mainnet address forms)',
        '',
        `Tagged "${TAG}" (three wallet addresses of the node, legacy, P2SH-SegWit and SegWit):`,
        ...tagged.map((address) => `    ${address.mainnet}`),
        '',
        `A block with a payment between them every ${everyMs / 1000} s (the first three from mined coins), ` +
          'the change going back to the sender.',
      ],
      requests: (base, key) => [`    curl -s '${base}/v2/token-holdings?api_key=${key}&tag=${TAG}&chain=bitcoin'`],
      everyMs,
      pay: (turn) => bitcoinPayment(node, miner, tagged, turn),
      stop: () => node.stop(),
    };
  } catch (error) {
    await node.stop();
    throw error;
  }
}

/**
 * Turn n pays the n-th tagged address (in turn): from a mature coinbase for the first three, then
 * from the coin the previous address received, half of it, the rest back to the sender as change.
 */
async function bitcoinPayment(
  node: Litecoind,
  miner: string,
  tagged: readonly BitcoinAddress[],
  turn: number,
): Promise<{ block: number; what: string; from: string; to: string }> {
  const to = tagged[turn % tagged.length]!;
  const from = turn < tagged.length ? undefined : tagged[(turn - 1) % tagged.length]!;
  const spendable = await node.unspent(from === undefined ? 100 : 1);
  const coin = spendable
    .filter((entry) => entry.address === (from?.regtest ?? miner))
    .sort((a, b) => (b.value > a.value ? 1 : b.value < a.value ? -1 : 0))[0];
  if (coin === undefined) throw new Error(`no coin to spend from ${from?.mainnet ?? 'the miner'}`);
  const value = from === undefined ? BigInt((turn % 3) + 1) * 100_000_000n : coin.value / 2n;
  await node.send({ inputs: [coin], outputs: [{ address: to.regtest, value }], change: from?.regtest ?? miner });
  await node.mine(1, miner);
  const paid = value.toString().padStart(9, '0');
  return {
    block: await node.tip(),
    what: `${paid.slice(0, -8)}.${paid.slice(-8)} BTC`,
    from: from?.mainnet ?? 'mined coins',
    to: to.mainnet,
  };
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}

main().catch((error: unknown) => {
  process.stderr.write(
    `chaintags live demo failed: ${error instanceof ConfigError || error instanceof Error ? error.message : String(error)}\n`,
  );
  // Not process.exit(): the message may still be on its way through a pipe.
  process.exitCode = 1;
});
