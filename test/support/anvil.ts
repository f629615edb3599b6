import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Socket } from 'node:net';
import { dirname, join } from 'node:path';
import {
  Address,
  Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  getAddress,
  Hex,
  http,
  HttpTransport,
  PublicClient,
  toHex,
  WalletClient,
} from 'viem';
import { mnemonicToAccount, PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';

/**
 * A real anvil (Foundry's local EVM node) for the tests of the EVM follower.
 *
 * The binary comes from the devDependency `@foundry-rs/anvil-linux-amd64` (Foundry's platform
 * package for Linux on x86-64, the machines the tests and CI run on; `@foundry-rs/anvil`'s other
 * platform packages are not on the registry this project installs from, so the lock file could
 * not hold them). On another platform, install that platform's package or set ANVIL_BINARY. Each node listens on a port
 * anvil picks itself (`--port 0`, read back from its "Listening on" line, so no other process can
 * take the port in between) on 127.0.0.1, mines each transaction as it arrives unless `blockTime`
 * or `noMining` says otherwise, and is killed when the test process ends, however it ends: anvil
 * runs under a small shell that kills it once our end of its stdin pipe closes, which the kernel
 * does even when the test process is SIGKILLed.
 *
 * What anvil 1.7.1 does, as probed when this file was written:
 * - `anvil_reorg` takes `[depth, txBlockPairs]`, both required (`[depth]` alone is rejected with
 *   -32602): `txBlockPairs` is a list of `[transaction, blockOffset]`, the transaction either a
 *   signed raw transaction or a JSON request from a dev account, which anvil signs. It replaces the
 *   top `depth` blocks by `depth` new ones, so the head number stays the same and only the hashes
 *   change; `blockOffset` 0 is the first block above the common ancestor. The replaced blocks'
 *   transactions are gone (not put back in the pool).
 * - `anvil_reorg` and `anvil_rollback` rewind anvil's clock to the common ancestor's timestamp: the
 *   replacement blocks carry the ancestor's timestamp, and blocks mined afterwards continue from
 *   there (seconds behind the wall clock), so a block time can go back across a reorg.
 * - Timestamps are not forced to grow: blocks mined within one second (`anvil_mine` of n blocks,
 *   several automined transactions, `evm_mine` calls in a row) all carry the same timestamp.
 *   `anvil_mine(n, interval)` spaces them by `interval` seconds.
 * - `anvil_rollback` takes `[depth]` (`[null]` = 1) and lowers the head by `depth`.
 */

/** Anvil's default mnemonic: the dev accounts and their keys are the same on every run. */
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';

export interface AnvilOptions {
  /** Default 1. */
  chainId?: number;
  /** Mine a block every this many seconds instead of one block per transaction. */
  blockTime?: number;
  /** Mine nothing until asked (`mine()`). */
  noMining?: boolean;
  /** Dev accounts, default 10. */
  accounts?: number;
  /** Each dev account's starting balance in ether, default 10000. */
  balanceEther?: number;
  /**
   * Keep the state of this many recent blocks in memory and none on disk (`--prune-history N`);
   * calls at older blocks then fail. By default anvil keeps the recent states in memory and moves
   * older ones to disk, where every call at such a block reads the whole state back: slow once the
   * state holds many accounts.
   */
  keepStates?: number;
}

export interface DevAccount {
  /** Lowercase, as chaintags writes addresses. */
  address: Address;
  privateKey: Hex;
  account: PrivateKeyAccount;
}

/** A transaction to put into one of the blocks that replace the reorganised ones. */
export interface ReorgTransaction {
  /** A signed raw transaction, or a request from a dev account that anvil signs. */
  transaction: Hex | { from: Address; to?: Address; value?: bigint; data?: Hex; gas?: bigint };
  /** Which replacement block: 0 is the first one above the common ancestor. */
  block: number;
}

/** A JSON-RPC error answer from the node. */
export class AnvilRpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(`${method}: ${message} (${code})`);
  }
}

export class Anvil {
  readonly publicClient: PublicClient<HttpTransport, Chain>;
  private readonly wallets = new Map<number, WalletClient<HttpTransport, Chain, PrivateKeyAccount>>();
  private readonly chain: Chain;
  private nextId = 1;

  constructor(
    readonly url: string,
    readonly chainId: number,
    readonly accounts: readonly DevAccount[],
    private readonly node: AnvilProcess,
  ) {
    this.chain = defineChain({
      id: chainId,
      name: `anvil ${chainId}`,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [url] } },
    });
    this.publicClient = createPublicClient({ chain: this.chain, transport: http(url), pollingInterval: 50 });
  }

  /** A wallet client that signs locally with dev account `index`. */
  walletClient(index = 0): WalletClient<HttpTransport, Chain, PrivateKeyAccount> {
    let wallet = this.wallets.get(index);
    if (!wallet) {
      const dev = this.accounts[index];
      if (!dev) throw new Error(`anvil has ${this.accounts.length} dev accounts, not ${index + 1}`);
      wallet = createWalletClient({
        account: dev.account,
        chain: this.chain,
        transport: http(this.url),
        pollingInterval: 50,
      });
      this.wallets.set(index, wallet);
    }
    return wallet;
  }

  /** One JSON-RPC call; an error answer throws AnvilRpcError. */
  async rpc<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params }),
    });
    const answer = (await response.json()) as { result?: T; error?: { code: number; message: string } };
    if (answer.error) throw new AnvilRpcError(method, answer.error.code, answer.error.message);
    return answer.result as T;
  }

  /** anvil's process id, for reading its memory and CPU from /proc. */
  get pid(): number | undefined {
    return this.node.pid;
  }

  async head(): Promise<bigint> {
    return BigInt(await this.rpc<Hex>('eth_blockNumber'));
  }

  /** Mines `blocks` empty-or-pending blocks, `intervalSeconds` apart (default: all with one timestamp). */
  async mine(blocks = 1, intervalSeconds?: number): Promise<void> {
    const params: unknown[] = [toHex(blocks)];
    if (intervalSeconds !== undefined) params.push(toHex(intervalSeconds));
    await this.rpc('anvil_mine', params);
  }

  /** Replaces the top `depth` blocks by as many new ones (same head number, new hashes). */
  async reorg(depth: number, transactions: readonly ReorgTransaction[] = []): Promise<void> {
    const pairs = transactions.map(({ transaction, block }) => [
      typeof transaction === 'string'
        ? transaction
        : {
            from: transaction.from,
            to: transaction.to,
            value: transaction.value === undefined ? undefined : toHex(transaction.value),
            data: transaction.data,
            gas: transaction.gas === undefined ? undefined : toHex(transaction.gas),
          },
      block,
    ]);
    await this.rpc('anvil_reorg', [depth, pairs]);
  }

  /** Removes the top `depth` blocks (the head goes down). */
  async rollback(depth = 1): Promise<void> {
    await this.rpc('anvil_rollback', [depth]);
  }

  async setCode(address: Address, code: Hex): Promise<void> {
    await this.rpc('anvil_setCode', [address, code]);
  }

  async setBalance(address: Address, wei: bigint): Promise<void> {
    await this.rpc('anvil_setBalance', [address, toHex(wei)]);
  }

  /** With automine off, transactions wait in the pool until `mine()`, so several can share a block. */
  async setAutomine(on: boolean): Promise<void> {
    await this.rpc('evm_setAutomine', [on]);
  }

  /** The next mined block's timestamp, in Unix seconds. */
  async setNextBlockTimestamp(seconds: number): Promise<void> {
    await this.rpc('evm_setNextBlockTimestamp', [toHex(seconds)]);
  }

  /** Dies at once, as a crashed node would (SIGKILL). */
  kill(): Promise<void> {
    return this.node.end('SIGKILL');
  }

  /** Shuts down cleanly (SIGTERM; SIGKILL after 5 s). */
  stop(): Promise<void> {
    return this.node.end('SIGTERM');
  }
}

/**
 * Starts an anvil on a free loopback port and resolves once it answers eth_chainId with the chain
 * id asked for.
 */
export async function startAnvil(options: AnvilOptions = {}): Promise<Anvil> {
  const chainId = options.chainId ?? 1;
  const args = ['--host', '127.0.0.1', '--port', '0', '--chain-id', String(chainId)];
  if (options.blockTime !== undefined) args.push('--block-time', String(options.blockTime));
  if (options.noMining) args.push('--no-mining');
  if (options.accounts !== undefined) args.push('--accounts', String(options.accounts));
  if (options.balanceEther !== undefined) args.push('--balance', String(options.balanceEther));
  if (options.keepStates !== undefined) args.push('--prune-history', String(options.keepStates));

  const node = new AnvilProcess(anvilBinary(), args);
  try {
    const url = await node.listening();
    const probe = new Anvil(url, chainId, [], node);
    await waitUntilAnswering(probe, chainId);
    const addresses = await probe.rpc<Address[]>('eth_accounts');
    const accounts = addresses.map((address, addressIndex) => devAccount(address, addressIndex));
    return new Anvil(url, chainId, accounts, node);
  } catch (error) {
    await node.end('SIGKILL');
    throw error;
  }
}

/** The anvil binary of the platform package for this OS and CPU. */
export function anvilBinary(): string {
  if (process.env.ANVIL_BINARY) return process.env.ANVIL_BINARY;
  const arch = ({ x64: 'amd64', arm64: 'arm64' } as Record<string, string>)[process.arch] ?? process.arch;
  const platformPackage = `@foundry-rs/anvil-${process.platform}-${arch}`;
  let directory: string;
  try {
    directory = dirname(require.resolve(`${platformPackage}/package.json`));
  } catch {
    throw new Error(
      `anvil not found: ${platformPackage} is not installed (the devDependency is @foundry-rs/anvil-linux-amd64; ` +
        `on another platform install that platform's package, or set ANVIL_BINARY to an anvil binary)`,
    );
  }
  const binary = join(directory, 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
  if (!existsSync(binary)) throw new Error(`anvil not found at ${binary} (set ANVIL_BINARY)`);
  return binary;
}

function devAccount(address: Address, addressIndex: number): DevAccount {
  const derived = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex });
  const key = derived.getHdKey().privateKey;
  if (!key || derived.address !== getAddress(address)) {
    throw new Error(`anvil's dev account ${addressIndex} (${address}) is not the default mnemonic's`);
  }
  const privateKey = toHex(key);
  return { address: address.toLowerCase() as Address, privateKey, account: privateKeyToAccount(privateKey) };
}

async function waitUntilAnswering(anvil: Anvil, chainId: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const answered = Number(await anvil.rpc<Hex>('eth_chainId'));
      if (answered !== chainId) throw new Error(`anvil answered chain id ${answered}, not ${chainId}`);
      return;
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('anvil answered')) throw error;
      if (Date.now() > deadline) throw new Error(`anvil at ${anvil.url} does not answer: ${String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/**
 * Runs anvil under `sh`: the shell prints anvil's pid, then waits for it, while a background
 * reader of the shell's stdin (our pipe) SIGKILLs anvil when the pipe closes, which happens when we
 * end it or when the test process dies by any means.
 */
const WATCHDOG = [
  'exec 3<&0',
  '"$0" "$@" </dev/null &',
  'child=$!',
  'echo "anvil pid $child"',
  '(read _ <&3; kill -9 $child 2>/dev/null) >/dev/null 2>&1 &',
  'wait $child',
].join('\n');

const running = new Set<AnvilProcess>();
let exitHookInstalled = false;

class AnvilProcess {
  private readonly child: ChildProcess;
  private readonly exited: Promise<void>;
  private readonly output: string[] = [];
  /** anvil's own process id (not the watchdog shell's), once it has started. */
  pid: number | undefined;

  constructor(binary: string, args: string[]) {
    this.child = spawn('sh', ['-c', WATCHDOG, binary, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
    // anvil logs every call: keep reading so it never blocks on a full pipe, and keep the tail for errors.
    const keep = (chunk: Buffer) => {
      this.output.push(...chunk.toString().split('\n'));
      if (this.output.length > 200) this.output.splice(0, this.output.length - 200);
    };
    this.child.stdout!.on('data', keep);
    this.child.stderr!.on('data', keep);
    this.child.stdin!.on('error', () => undefined);
    // A node nobody stopped must not keep the test process alive: the exit hook below kills it.
    this.child.unref();
    for (const stream of [this.child.stdin, this.child.stdout, this.child.stderr]) (stream as Socket).unref();
    running.add(this);
    void this.exited.then(() => running.delete(this));
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.once('exit', () => running.forEach((anvil) => anvil.killNow()));
    }
  }

  /** The node's URL, once anvil says where it listens. */
  listening(): Promise<string> {
    return new Promise((resolve, reject) => {
      let seen = '';
      const timer = setTimeout(() => fail(new Error('anvil did not start listening within 30 s')), 30_000);
      const onData = (chunk: Buffer) => {
        seen += chunk.toString();
        const pid = /anvil pid (\d+)/.exec(seen);
        if (pid) this.pid = Number(pid[1]);
        const address = /Listening on ([\d.]+):(\d+)/.exec(seen);
        if (address && this.pid !== undefined) {
          cleanup();
          resolve(`http://${address[1]}:${address[2]}`);
        }
      };
      const onExit = () => fail(new Error('anvil exited before listening'));
      const fail = (error: Error) => {
        cleanup();
        reject(new Error(`${error.message}:\n${this.output.slice(-20).join('\n')}`));
      };
      const cleanup = () => {
        clearTimeout(timer);
        this.child.stdout!.off('data', onData);
        this.child.off('exit', onExit);
      };
      this.child.stdout!.on('data', onData);
      this.child.once('exit', onExit);
    });
  }

  async end(signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
    this.child.ref();
    if (this.child.exitCode === null && this.child.signalCode === null) {
      if (this.pid === undefined) this.child.kill('SIGKILL');
      else signalQuietly(this.pid, signal);
      if (signal === 'SIGTERM') {
        const timer = setTimeout(() => this.pid !== undefined && signalQuietly(this.pid, 'SIGKILL'), 5_000);
        await this.exited;
        clearTimeout(timer);
      }
    }
    await this.exited;
    this.child.stdin!.end();
  }

  /** Synchronous, for process exit. */
  private killNow(): void {
    if (this.pid !== undefined) signalQuietly(this.pid, 'SIGKILL');
    this.child.kill('SIGKILL');
  }
}

function signalQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}
