import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { satoshis } from '../../src/modules/follow/utxo/utxo-block';
import { freePort } from './pg-cluster';

/**
 * A real litecoind (Litecoin Core 0.21, a Bitcoin Core 0.21 fork, from Debian's `litecoind`
 * package: `.ci/run` installs it when missing) in `-regtest`, standing in for the Bitcoin family's
 * nodes in the tests: same JSON-RPC, same script forms, blocks made on demand.
 *
 * The binary is `LITECOIND` if set, else the package's real binary `/usr/lib/litecoin/litecoind`,
 * else `/usr/bin/litecoind`. The latter is a wrapper script that creates `~/.litecoin` with a
 * config file before it runs the former: the tests would leave that behind in the home directory,
 * so the real binary is preferred.
 *
 * Each node has its own data directory under the system's temp directory, random RPC credentials,
 * free loopback ports, no P2P listening, and a legacy wallet (this litecoind is built without
 * sqlite, so it has no descriptor wallets). It is killed when the test process ends, however it
 * ends: it runs under a small shell that SIGKILLs it when our end of its stdin pipe closes.
 *
 * What litecoind 0.21.2.1 does, as probed when this file was written:
 * - `scriptPubKey` carries `addresses[]` (pre-22 shape) and regtest addresses are `rltc1…`
 *   (bech32), `m…`/`n…` (P2PKH) and `Q…` (P2SH, version 0x3a, not Bitcoin's 0xc4 `2…`).
 * - `getblock <hash> 2` works, `getrawtransaction <txid> true <blockhash>` works with `-txindex`.
 * - `stop` (and SIGTERM) waits for every open HTTP connection to close: a client's idle kept-alive
 *   socket (undici keeps them 4 s) delays the exit by that long. This harness's own calls close
 *   their connection; a `BitcoinRpc` used against the node keeps its sockets alive, so the harness
 *   ends its nodes with SIGKILL (`Litecoind.stop`).
 * - MWEB (Litecoin's extension blocks) activates on regtest by version-bits signalling after a few
 *   144-block windows: tests that mine fewer than 432 blocks never see its HogEx transactions.
 */

function litecoindBinary(): string {
  return (
    process.env.LITECOIND ??
    (existsSync('/usr/lib/litecoin/litecoind') ? '/usr/lib/litecoin/litecoind' : '/usr/bin/litecoind')
  );
}

/**
 * Arguments that keep MWEB from ever activating, for a node that mines past a few hundred blocks
 * (benches, demos): from then on its blocks need a HogEx transaction that `generatetoaddress` and
 * `generateblock` fail to make ("bad-txns-vin-empty").
 */
export const WITHOUT_MWEB = ['-vbparams=mweb:0:0'];

export type AddressType = 'legacy' | 'p2sh-segwit' | 'bech32';

export interface WalletAddress {
  /** The regtest form, as litecoind prints it (`rltc1…`, `m…`/`n…`, `Q…`). */
  address: string;
  /** The output script, lowercase hex: the same on every network. */
  script: string;
}

export interface Outpoint {
  txid: string;
  vout: number;
}

export interface Unspent extends Outpoint {
  /** Satoshis. */
  value: bigint;
  address: string;
  script: string;
  confirmations: number;
}

export interface SendOrder {
  /** The outpoints to spend, all of them (coin control: nothing else is added). */
  inputs: readonly Outpoint[];
  /** Regtest address → satoshis, in this order. */
  outputs: readonly { address: string; value: bigint }[];
  /** Where what is left after outputs and fee goes, as the last output; omitted when nothing is left. */
  change?: string;
  /** Default 10,000 satoshis. */
  fee?: bigint;
}

export interface LitecoindOptions {
  extraArgs?: string[];
}

/** A JSON-RPC error answer from the node. */
export class LitecoindRpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(`${method}: ${message} (${code})`);
  }
}

export class Litecoind {
  private nextId = 1;
  private miningAddress: string | undefined;

  constructor(
    /** `http://user:password@127.0.0.1:port`, as `RPC_URL_<CHAIN>` takes it. */
    readonly rpcUrl: string,
    readonly rpcPort: number,
    readonly password: string,
    private readonly plainUrl: string,
    private readonly authorization: string,
    private readonly process: NodeProcess,
    /** The node's data directory, removed by `stop`. */
    readonly dataDir: string,
  ) {}

  /** One call; an error answer throws LitecoindRpcError. */
  async rpc<T = unknown>(method: string, ...params: unknown[]): Promise<T> {
    const response = await fetch(this.plainUrl, {
      method: 'POST',
      // No kept-alive connection: litecoind's shutdown waits for open ones to time out.
      headers: { 'content-type': 'application/json', authorization: this.authorization, connection: 'close' },
      body: JSON.stringify({ jsonrpc: '1.0', id: this.nextId++, method, params }),
    });
    const text = await response.text();
    if (response.status === 401) throw new Error(`${method}: litecoind refused the credentials`);
    const answer = JSON.parse(text) as { result?: T; error?: { code: number; message: string } | null };
    if (answer.error) throw new LitecoindRpcError(method, answer.error.code, answer.error.message);
    return answer.result as T;
  }

  /** Mines `blocks` blocks paying their coinbase to `toRegtestAddress` (default: a wallet address); their hashes. */
  async mine(blocks: number, toRegtestAddress?: string): Promise<string[]> {
    const address = toRegtestAddress ?? (this.miningAddress ??= (await this.newAddress('legacy')).address);
    return this.rpc<string[]>('generatetoaddress', blocks, address);
  }

  async newAddress(type: AddressType): Promise<WalletAddress> {
    const address = await this.rpc<string>('getnewaddress', '', type);
    const info = await this.rpc<{ scriptPubKey: string }>('getaddressinfo', address);
    return { address, script: info.scriptPubKey.toLowerCase() };
  }

  /** The wallet's confirmed unspent outputs (at least `minConfirmations`, default 1). */
  async unspent(minConfirmations = 1): Promise<Unspent[]> {
    const list = await this.rpc<
      { txid: string; vout: number; amount: number; address: string; scriptPubKey: string; confirmations: number }[]
    >('listunspent', minConfirmations);
    return list.map((entry) => ({
      txid: entry.txid,
      vout: entry.vout,
      value: satoshis(entry.amount),
      address: entry.address,
      script: entry.scriptPubKey.toLowerCase(),
      confirmations: entry.confirmations,
    }));
  }

  /** Spends exactly the given outpoints to the given outputs (and change), signed by the wallet; the txid. */
  async send(order: SendOrder): Promise<string> {
    const raw = await this.signedTransaction(order);
    return this.rpc<string>('sendrawtransaction', raw);
  }

  /** The signed raw transaction of `send`, without broadcasting it (for `generateBlock`). */
  async signedTransaction(order: SendOrder): Promise<string> {
    const fee = order.fee ?? 10_000n;
    let available = 0n;
    for (const input of order.inputs) {
      const out = await this.rpc<{ value: number } | null>('gettxout', input.txid, input.vout, true);
      if (out === null) throw new Error(`outpoint ${input.txid}:${input.vout} is spent or unknown`);
      available += satoshis(out.value);
    }
    const paid = order.outputs.reduce((sum, output) => sum + output.value, 0n);
    const left = available - paid - fee;
    if (left < 0n) throw new Error(`the inputs hold ${available} satoshis, short of ${paid} + fee ${fee}`);
    const outputs = order.outputs.map((output) => ({ [output.address]: coins(output.value) }));
    if (left > 0n) {
      if (order.change === undefined) throw new Error(`${left} satoshis would go to the fee: name a change address`);
      outputs.push({ [order.change]: coins(left) });
    }
    const unsigned = await this.rpc<string>(
      'createrawtransaction',
      order.inputs.map(({ txid, vout }) => ({ txid, vout })),
      outputs,
    );
    const signed = await this.rpc<{ hex: string; complete: boolean; errors?: unknown }>(
      'signrawtransactionwithwallet',
      unsigned,
    );
    if (!signed.complete) throw new Error(`the wallet could not sign: ${JSON.stringify(signed.errors)}`);
    return signed.hex;
  }

  /** A block with exactly these transactions (txids from the mempool, or raw hex), coinbase to `outputAddress`; its hash. */
  async generateBlock(outputAddress: string, transactions: readonly string[]): Promise<string> {
    const { hash } = await this.rpc<{ hash: string }>('generateblock', outputAddress, transactions);
    return hash;
  }

  /** litecoind's process id, once it has started. */
  get pid(): number | undefined {
    return this.process.nodePid;
  }

  async invalidate(hash: string): Promise<void> {
    await this.rpc('invalidateblock', hash);
  }

  async reconsider(hash: string): Promise<void> {
    await this.rpc('reconsiderblock', hash);
  }

  async tip(): Promise<number> {
    return this.rpc<number>('getblockcount');
  }

  /**
   * Ends the node with SIGKILL, then removes its data directory. Nothing of a node outlives it, so
   * it needs no clean shutdown, which would wait for the idle sockets a service's `BitcoinRpc`
   * keeps open to it: about 4 s a node, most of the time the Bitcoin-family suites spent outside
   * their tests.
   */
  async stop(): Promise<void> {
    await this.process.end();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

export async function startLitecoind(options: LitecoindOptions = {}): Promise<Litecoind> {
  const binary = litecoindBinary();
  if (!existsSync(binary)) {
    throw new Error(`litecoind not found at ${binary}: install Debian's litecoind package, or set LITECOIND`);
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'chaintags-litecoind-'));
  const user = `u${randomBytes(6).toString('hex')}`;
  const password = randomBytes(18).toString('hex');
  const rpcPort = await freePort();
  const p2pPort = await freePort();
  const args = [
    '-regtest',
    '-server',
    '-txindex',
    `-datadir=${dataDir}`,
    `-rpcuser=${user}`,
    `-rpcpassword=${password}`,
    '-rpcbind=127.0.0.1',
    '-rpcallowip=127.0.0.1',
    `-rpcport=${rpcPort}`,
    `-port=${p2pPort}`,
    '-listen=0',
    '-listenonion=0',
    '-discover=0',
    '-dnsseed=0',
    '-upnp=0',
    '-fallbackfee=0.0001',
    '-rpcworkqueue=64',
    '-rpcthreads=4',
    '-printtoconsole=1',
    '-nodebuglogfile',
    // A new wallet derives its whole key pool (1,000 keys each way) before it answers: 0.85 s of CPU
    // and of wall time a node. One key ahead, the rest derived as addresses are asked for.
    '-keypool=1',
    ...(options.extraArgs ?? []),
  ];
  const child = new NodeProcess(binary, args);
  const plainUrl = `http://127.0.0.1:${rpcPort}/`;
  const node = new Litecoind(
    `http://${user}:${password}@127.0.0.1:${rpcPort}`,
    rpcPort,
    password,
    plainUrl,
    `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
    child,
    dataDir,
  );
  try {
    await waitUntilAnswering(node, child);
    await node.rpc('createwallet', 'chaintags');
  } catch (error) {
    await node.stop();
    throw error;
  }
  return node;
}

async function waitUntilAnswering(node: Litecoind, child: NodeProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await node.rpc('getblockchaininfo');
      return;
    } catch (error) {
      if (child.exited) throw new Error(`litecoind exited before answering:\n${child.tail()}`);
      if (Date.now() > deadline)
        throw new Error(`litecoind did not answer within 60 s: ${String(error)}\n${child.tail()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** Satoshis as the decimal coin amount the node takes (a string: exact). */
function coins(value: bigint): string {
  const text = value.toString().padStart(9, '0');
  return `${text.slice(0, -8)}.${text.slice(-8)}`;
}

/**
 * The shell prints the node's pid, waits for it, and a background reader of its stdin (our pipe)
 * SIGKILLs the node when the pipe closes: when we end it, or when the test process dies by any means.
 */
const WATCHDOG = [
  'exec 3<&0',
  '"$0" "$@" </dev/null &',
  'child=$!',
  'echo "node pid $child"',
  '(read _ <&3; kill -9 $child 2>/dev/null) >/dev/null 2>&1 &',
  'wait $child',
].join('\n');

const running = new Set<NodeProcess>();
let exitHookInstalled = false;

class NodeProcess {
  private readonly child: ChildProcess;
  private readonly done: Promise<void>;
  private readonly output: string[] = [];
  private pid: number | undefined;
  exited = false;

  constructor(binary: string, args: string[]) {
    this.child = spawn('sh', ['-c', WATCHDOG, binary, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.done = new Promise((resolve) =>
      this.child.once('exit', () => {
        this.exited = true;
        resolve();
      }),
    );
    const keep = (chunk: Buffer) => {
      const text = chunk.toString();
      this.pid ??= Number(/node pid (\d+)/.exec(text)?.[1] ?? NaN) || undefined;
      this.output.push(...text.split('\n'));
      if (this.output.length > 200) this.output.splice(0, this.output.length - 200);
    };
    this.child.stdout!.on('data', keep);
    this.child.stderr!.on('data', keep);
    this.child.stdin!.on('error', () => undefined);
    this.child.unref();
    for (const stream of [this.child.stdin, this.child.stdout, this.child.stderr]) (stream as Socket).unref();
    running.add(this);
    void this.done.then(() => running.delete(this));
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.once('exit', () => running.forEach((node) => node.killNow()));
    }
  }

  /** The node's own process id (not the watchdog shell's), once known. */
  get nodePid(): number | undefined {
    return this.pid;
  }

  tail(): string {
    return this.output.slice(-20).join('\n');
  }

  /**
   * SIGKILLs the node, and waits for the watchdog shell, which waits for the node, to exit (the
   * shell itself, while the node's pid is not known yet).
   */
  async end(): Promise<void> {
    this.child.ref();
    if (!this.exited) {
      if (this.pid === undefined) this.child.kill('SIGKILL');
      else signalQuietly(this.pid, 'SIGKILL');
      const timer = setTimeout(() => this.killNow(), 30_000);
      await this.done;
      clearTimeout(timer);
    }
    this.child.stdin!.end();
  }

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
