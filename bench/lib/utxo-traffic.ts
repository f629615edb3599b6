import { performance } from 'node:perf_hooks';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import type { Litecoind } from '../../test/support/litecoind';
import { seededRandom } from './chain-traffic';

/**
 * Payments on a regtest litecoind for `npm run bench:follow -- --family utxo`: blocks of many
 * transactions paying among many addresses, made quickly, and a count of the transfers chaintags
 * should record (contract §13).
 *
 * The senders are "lanes": wallet addresses (P2WPKH), one coin each, given by one fan-out
 * transaction. Each block spends every lane's coin once: a payment to a tracked address, half the
 * time one to an untracked address too, and the change back to the lane, which is that lane's coin
 * in the next block. Half the lanes are tracked themselves, so the follower also meets spends of
 * tracked outputs and change it must not record. The recipients are scripts derived from the seed
 * (P2PKH and P2WPKH in turn) that nobody holds a key for: they only receive.
 *
 * Transactions are serialised here, signed by the wallet in one JSON-RPC batch per block
 * (`signrawtransactionwithwallet`, with the spent output given, so a block can be signed before
 * the previous one is mined), and mined by `generateblock` with exactly those transactions: no
 * mempool, no fee estimation. A lane's input is P2WPKH, so a transaction's id is the hash of its
 * unsigned form and the next block can spend its change right away.
 */

/** One JSON-RPC call: method and params. */
type Call = [method: string, params: unknown[]];

export interface Coin {
  txid: string;
  vout: number;
  /** Satoshis. */
  value: bigint;
}

export interface Lane {
  /** Its regtest address (`rltc1…`), as the wallet gave it. */
  address: string;
  /** Its output script, lowercase hex. */
  script: string;
  tracked: boolean;
  coin?: Coin;
}

/** A block's transactions, signed, with what they add to the counts once mined. */
export interface SignedBlock {
  transactions: string[];
  /** Payments to tracked scripts that are not lanes (whose balance is their coin). */
  received: [script: string, value: bigint][];
  made: number;
  transfers: number;
  recorded: number;
}

const FEE = 1_000n;
/** The fan-out goes through the mempool, which asks about a satoshi a byte: 200 outputs make 7 kB. */
const FUNDING_FEE = 100_000n;
const MIN_PAYMENT = 1_000;
const PAYMENT_SPREAD = 19_000;
/** What each lane is given: far more than 1,000 blocks of payments spend. */
export const LANE_VALUE = 100_000_000n;

/** Answers a node's JSON-RPC batch; any error answer throws. */
export async function nodeBatch<T = unknown>(node: Litecoind, calls: readonly Call[]): Promise<T[]> {
  if (calls.length === 0) return [];
  const url = new URL(node.rpcUrl);
  const authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
  const response = await fetch(`${url.protocol}//${url.host}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization },
    body: JSON.stringify(calls.map(([method, params], id) => ({ jsonrpc: '1.0', id, method, params }))),
    signal: AbortSignal.timeout(300_000),
  });
  if (response.status === 401) throw new Error('litecoind refused the credentials');
  const answers = (await response.json()) as { id: number; result?: T; error?: { code: number; message: string } }[];
  const byId = new Map(answers.map((answer) => [answer.id, answer]));
  return calls.map(([method], id) => {
    const answer = byId.get(id);
    if (answer === undefined) throw new Error(`${method}: no answer in the batch`);
    if (answer.error) throw new Error(`${method}: ${answer.error.message} (${answer.error.code})`);
    return answer.result as T;
  });
}

/** `count` output scripts from the seed, P2PKH and P2WPKH in turn, that nobody holds a key for. */
export function derivedScripts(seed: string, label: string, count: number): string[] {
  return Array.from({ length: count }, (_unused, index) => {
    const hash = bytesToHex(sha256(new TextEncoder().encode(`${seed}:${label}:${index}`)).slice(0, 20));
    return index % 2 === 0 ? `76a914${hash}88ac` : `0014${hash}`;
  });
}

export class UtxoTraffic {
  private readonly random: () => number;
  private readonly trackedScripts: ReadonlySet<string>;
  /** Blocks mined by `mine`, and the node's height after the last one. */
  height = 0;
  /** Transactions made (not counting coinbases). */
  made = 0;
  /** Outputs paid to someone else than the sender. */
  transfers = 0;
  /** Transfers chaintags should record: with a tracked sender or a tracked recipient. */
  recorded = 0;
  /** Satoshis received by each tracked recipient in the blocks mined (they never spend). */
  private readonly received = new Map<string, bigint>();

  constructor(
    private readonly node: Litecoind,
    readonly lanes: readonly Lane[],
    /** Recipients: tracked scripts (probes left out) and untracked ones. */
    private readonly recipients: { tracked: readonly string[]; untracked: readonly string[] },
    /** Every tracked script: recipients, probes, tracked lanes. */
    trackedScripts: Iterable<string>,
    /** Where the coinbases go (a wallet address nobody tracks). */
    private readonly miner: string,
    seed: string,
  ) {
    this.random = seededRandom(`${seed}:utxo`);
    this.trackedScripts = new Set(trackedScripts);
  }

  /**
   * Gives each lane LANE_VALUE from mature coinbases of the miner's address, in one transaction
   * mined into one block.
   */
  async fund(): Promise<void> {
    const needed = LANE_VALUE * BigInt(this.lanes.length) + FUNDING_FEE;
    const coins = (await this.node.unspent(100)).filter((coin) => coin.address === this.miner);
    const inputs: typeof coins = [];
    let available = 0n;
    for (const coin of coins) {
      if (available >= needed) break;
      inputs.push(coin);
      available += coin.value;
    }
    if (available < needed) throw new Error(`the miner has ${available} satoshis mature, short of ${needed}`);
    const txid = await this.node.send({
      inputs,
      outputs: this.lanes.map((lane) => ({ address: lane.address, value: LANE_VALUE })),
      change: this.miner,
      fee: FUNDING_FEE,
    });
    this.lanes.forEach((lane, vout) => {
      lane.coin = { txid, vout, value: LANE_VALUE };
      if (lane.tracked) this.recorded += 1;
      this.transfers += 1;
    });
    this.made += 1;
    await this.node.mine(1, this.miner);
    this.height = await this.node.tip();
  }

  /**
   * The next block's transactions, signed: one from each of the first `count` lanes. The first
   * pays `probe` (a tracked script that has received nothing) instead of a random tracked one.
   * The lanes' coins move on at once, so the next block can be signed before this one is mined.
   */
  async sign(count: number, probe?: string): Promise<SignedBlock> {
    if (count > this.lanes.length) throw new Error(`${count} transactions need ${count} lanes`);
    const block: SignedBlock = { transactions: [], received: [], made: 0, transfers: 0, recorded: 0 };
    const calls: Call[] = [];
    for (const [index, lane] of this.lanes.slice(0, count).entries()) {
      const coin = lane.coin;
      if (coin === undefined) throw new Error('the lanes have not been funded');
      const payments = [
        {
          script: index === 0 && probe !== undefined ? probe : this.pick(this.recipients.tracked),
          value: this.amount(),
        },
      ];
      if (this.random() < 0.5) payments.push({ script: this.pick(this.recipients.untracked), value: this.amount() });
      const change = coin.value - payments.reduce((sum, payment) => sum + payment.value, 0n) - FEE;
      if (change <= 0n) throw new Error(`lane ${lane.address} has run dry`);
      const unsigned = serialise(coin, [...payments, { script: lane.script, value: change }]);
      const prevout = { txid: coin.txid, vout: coin.vout, scriptPubKey: lane.script, amount: coins(coin.value) };
      calls.push(['signrawtransactionwithwallet', [bytesToHex(unsigned), [prevout]]]);
      lane.coin = { txid: txidOf(unsigned), vout: payments.length, value: change };
      for (const payment of payments) {
        if (this.trackedScripts.has(payment.script)) block.received.push([payment.script, payment.value]);
      }
      block.made += 1;
      block.transfers += payments.length;
      block.recorded += lane.tracked
        ? payments.length
        : payments.filter((payment) => this.trackedScripts.has(payment.script)).length;
    }
    const signed = await nodeBatch<{ hex: string; complete: boolean; errors?: unknown }>(this.node, calls);
    for (const answer of signed) {
      if (!answer.complete) throw new Error(`the wallet could not sign: ${JSON.stringify(answer.errors)}`);
      block.transactions.push(answer.hex);
    }
    return block;
  }

  /** Mines a signed block; when the node answered (the block exists from then on). */
  async mine(block: SignedBlock): Promise<{ height: number; minedAt: number }> {
    await nodeBatch(this.node, [['generateblock', [this.miner, block.transactions]]]);
    const minedAt = performance.now();
    this.height += 1;
    this.made += block.made;
    this.transfers += block.transfers;
    this.recorded += block.recorded;
    for (const [script, value] of block.received) this.received.set(script, (this.received.get(script) ?? 0n) + value);
    return { height: this.height, minedAt };
  }

  /** What each tracked script holds once every signed block is mined: a lane its coin, a recipient what it received. */
  balances(): Map<string, bigint> {
    const balances = new Map(this.received);
    for (const lane of this.lanes) if (lane.tracked) balances.set(lane.script, lane.coin?.value ?? 0n);
    return balances;
  }

  /** Checks that blocks [from, to] hold `perBlock` transactions each, coinbase aside. */
  async checkBlocks(from: number, to: number, perBlock: number): Promise<void> {
    for (let start = from; start <= to; start += 100) {
      const heights = Array.from({ length: Math.min(100, to - start + 1) }, (_unused, index) => start + index);
      const hashes = await nodeBatch<string>(
        this.node,
        heights.map((height) => ['getblockhash', [height]]),
      );
      const headers = await nodeBatch<{ nTx: number; height: number }>(
        this.node,
        hashes.map((hash) => ['getblockheader', [hash]]),
      );
      for (const header of headers) {
        if (header.nTx !== perBlock + 1) {
          throw new Error(`block ${header.height} holds ${header.nTx - 1} transactions, not ${perBlock}`);
        }
      }
    }
  }

  private amount(): bigint {
    return BigInt(MIN_PAYMENT + Math.floor(this.random() * PAYMENT_SPREAD));
  }

  private pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.random() * list.length)]!;
  }
}

/** A version-2 transaction spending `coin` to `outputs`, without its signature (segwit spends sign in the witness). */
function serialise(coin: Coin, outputs: readonly { script: string; value: bigint }[]): Uint8Array {
  const parts: number[] = [];
  const uint = (value: bigint, bytes: number) => {
    for (let index = 0; index < bytes; index++) parts.push(Number((value >> BigInt(8 * index)) & 0xffn));
  };
  const push = (bytes: Uint8Array) => parts.push(...bytes);
  uint(2n, 4);
  parts.push(1);
  push(hexToBytes(coin.txid).reverse());
  uint(BigInt(coin.vout), 4);
  parts.push(0);
  uint(0xffffffffn, 4);
  parts.push(outputs.length);
  for (const output of outputs) {
    uint(output.value, 8);
    const script = hexToBytes(output.script);
    if (script.length >= 0xfd) throw new Error('an output script too long for this serialiser');
    parts.push(script.length);
    push(script);
  }
  uint(0n, 4);
  return Uint8Array.from(parts);
}

/** The id of a transaction from its serialisation without witness: its double SHA-256, reversed. */
function txidOf(serialised: Uint8Array): string {
  return bytesToHex(sha256(sha256(serialised)).reverse());
}

/** Satoshis as the node's decimal coin amount (a string: exact). */
function coins(value: bigint): string {
  const text = value.toString().padStart(9, '0');
  return `${text.slice(0, -8)}.${text.slice(-8)}`;
}
