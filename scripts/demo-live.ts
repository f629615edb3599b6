import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Address, formatEther, formatUnits, parseEther } from 'viem';
import { createApp } from '../src/app.factory';
import { stopOnSignals } from '../src/app.shutdown';
import { ConfigError, parseConfig } from '../src/config/config';
import { generateApiKey } from '../src/modules/accounts/api-key';
import { Anvil, startAnvil } from '../test/support/anvil';
import { deployTestToken, mint, transfer } from '../test/support/test-token';

/**
 * `npm run demo:live`: chaintags following a chain while you watch.
 *
 * Starts anvil (a local Ethereum node from the devDependency @foundry-rs/anvil-linux-amd64, chain id 1), the
 * service on a temporary SQLite file with FOLLOW on, RPC_URL_ETHEREUM at anvil, confirmations 0
 * and FOLLOW_INTERVAL_MS 500, and a key for account `demo`. It deploys a test token, tags three of
 * anvil's dev accounts through the API, then makes a transfer between them every two seconds,
 * native and token in turn, printing each one with requests to paste. Ctrl-C stops the transfers,
 * the service and anvil, and removes the database. PORT applies as for the server.
 */

const TAG = 'live_demo';
const EVERY_MS = 2000;
const TOKEN = { name: 'Demo Dollar', symbol: 'DUSD', decimals: 6 };
/** Dev accounts 1-3 are tagged; account 0 deploys the token. */
const TAGGED = [1, 2, 3];

async function main(): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'chaintags-demo-live-'));
  const removeFolder = () => rmSync(folder, { recursive: true, force: true });
  // Also when the process ends some other way than Ctrl-C.
  process.once('exit', removeFolder);
  let anvil: Anvil | undefined;
  let app: Awaited<ReturnType<typeof createApp>> | undefined;
  const stopping = new AbortController();
  let transfers: Promise<void> = Promise.resolve();
  const stop = async () => {
    stopping.abort();
    await transfers.catch(() => undefined);
    await app?.close();
    await anvil?.stop();
    removeFolder();
    process.stdout.write('\nstopped: the service and anvil, and the temporary database is removed\n');
  };
  stopOnSignals(stop);

  try {
    anvil = await startAnvil({ chainId: 1 });
    const key = generateApiKey();
    const config = parseConfig({
      ...process.env,
      DATABASE_URL: `sqlite:${join(folder, 'chaintags.sqlite')}`,
      // A key named here exists before start-up, so the server does not mint a `default` one.
      API_KEYS: `demo:${key}`,
      FOLLOW: 'on',
      RPC_URL_ETHEREUM: anvil.url,
      CONFIRMATIONS_ETHEREUM: '0',
      FOLLOW_INTERVAL_MS: '500',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      // The demo's chain has no market: no price source unless one is asked for.
      PRICE_REFRESH_SECONDS: process.env.PRICE_REFRESH_SECONDS ?? '0',
    });
    const token = await deployTestToken(anvil, TOKEN);
    const accounts = TAGGED.map((index) => anvil!.accounts[index]!.address);
    for (const address of accounts) await mint(anvil, { token, to: address, amount: 1_000_000n * 10n ** 6n });

    app = await createApp(config);
    await app.listen(config.port);
    const base = `http://localhost:${config.port}`;
    await tag(base, key, accounts);
    printIntroduction(base, key, anvil, token, accounts);
    transfers = makeTransfers(anvil, token, base, key, stopping.signal);
    await transfers;
  } catch (error) {
    if (!stopping.signal.aborted) {
      await stop().catch(() => undefined);
      throw error;
    }
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

function printIntroduction(base: string, key: string, anvil: Anvil, token: string, accounts: readonly string[]): void {
  process.stdout.write(
    [
      '',
      `chaintags live demo: following anvil at ${anvil.url} (chain id 1, the "ethereum" chain here)`,
      '',
      'API key of account "demo" (new on every run):',
      '',
      `    ${key}`,
      '',
      `Tagged "${TAG}" (three of anvil's dev accounts; their earlier token mints are read as history):`,
      ...accounts.map((address) => `    ${address}`),
      '',
      `Token ${TOKEN.symbol} at ${token}. A transfer between them every ${EVERY_MS / 1000} s, native and ${TOKEN.symbol} in turn.`,
      '',
      'Try:',
      '',
      `    curl -s '${base}/v2/sync?api_key=${key}'`,
      `    curl -s '${base}/v2/transactions?api_key=${key}&tag=${TAG}&per_page=5'`,
      `    curl -s '${base}/v2/token-holdings?api_key=${key}&tag=${TAG}'`,
      '',
      `API docs: ${base}/docs. Ctrl-C stops everything (anvil too) and removes the database.`,
      '',
    ].join('\n'),
  );
}

/** A transfer every EVERY_MS between the tagged accounts, native and token in turn, until aborted. */
async function makeTransfers(
  anvil: Anvil,
  token: Address,
  base: string,
  key: string,
  signal: AbortSignal,
): Promise<void> {
  for (let turn = 0; !signal.aborted; turn++) {
    await pause(EVERY_MS, signal);
    if (signal.aborted) return;
    const from = TAGGED[turn % TAGGED.length]!;
    const to = anvil.accounts[TAGGED[(turn + 1) % TAGGED.length]!]!.address;
    let what: string;
    let block: bigint;
    if (turn % 2 === 0) {
      const value = parseEther(String(((turn % 9) + 1) / 10));
      const hash = await anvil.walletClient(from).sendTransaction({ to, value });
      block = (await anvil.publicClient.waitForTransactionReceipt({ hash })).blockNumber;
      what = `${formatEther(value)} ETH`;
    } else {
      const amount = BigInt((turn % 7) + 1) * 25n * 10n ** 6n;
      block = (await transfer(anvil, { token, from, to, amount })).blockNumber;
      what = `${formatUnits(amount, TOKEN.decimals)} ${TOKEN.symbol}`;
    }
    const time = new Date().toISOString().slice(11, 19);
    process.stdout.write(
      [
        `[${time}] block ${block}: ${what} from ${anvil.accounts[from]!.address} to ${to}`,
        `    curl -s '${base}/v2/transactions?api_key=${key}&address=${to}&per_page=3'`,
        `    curl -s '${base}/v2/sync?api_key=${key}'`,
        '',
      ].join('\n'),
    );
  }
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
