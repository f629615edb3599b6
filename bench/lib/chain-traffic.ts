import { encodeAbiParameters, encodeFunctionData, Hex, keccak256, toHex } from 'viem';
import { testTokenAbi } from '../../test/support/test-token';
import { seededRandom } from './random';

/**
 * Transfers on an anvil for `npm run bench:follow`: many senders and recipients, blocks of many
 * transactions, and a count of what chaintags should record.
 *
 * The senders are not dev accounts: anvil impersonates any address (anvil_autoImpersonateAccount),
 * so a sender needs only ether and tokens, which the bench writes straight into state
 * (anvil_setBalance, and the token's balance slot through anvil_setStorageAt). Funding that way
 * moves no value and emits no Transfer log, so the transactions chaintags records are exactly the
 * transfers this file sends. Each block's transactions go to the node in one JSON-RPC batch with
 * their nonces and gas given, so anvil neither estimates nor looks anything up, then
 * `anvil_mine` mines them into one block (automine off).
 */

/** The bench's one generator (./random), as bench/follow.ts and bench/lib/utxo-traffic.ts import it from here. */
export { seededRandom };

/** One JSON-RPC call: method and params. */
export type RpcCall = [method: string, params: unknown[]];

interface RpcAnswer {
  id: number;
  result?: unknown;
  error?: { code: number; message: string };
}

/** Sends the calls in one HTTP request (a JSON-RPC batch); any error answer throws. */
export async function rpcBatch<T = unknown>(url: string, calls: readonly RpcCall[]): Promise<T[]> {
  if (calls.length === 0) return [];
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(calls.map(([method, params], id) => ({ jsonrpc: '2.0', id, method, params }))),
    signal: AbortSignal.timeout(120_000),
  });
  if (!response.ok) throw new Error(`the node answered HTTP ${response.status} to a batch of ${calls.length}`);
  const answers = (await response.json()) as RpcAnswer[];
  const byId = new Map(answers.map((answer) => [answer.id, answer]));
  return calls.map(([method], id) => {
    const answer = byId.get(id);
    if (answer === undefined) throw new Error(`${method}: no answer in the batch`);
    if (answer.error) throw new Error(`${method}: ${answer.error.message} (${answer.error.code})`);
    return answer.result as T;
  });
}

/** Sends many calls, `perRequest` to an HTTP request, a few requests at a time. */
export async function rpcMany<T = unknown>(url: string, calls: readonly RpcCall[], perRequest = 1000): Promise<T[]> {
  const groups: RpcCall[][] = [];
  for (let start = 0; start < calls.length; start += perRequest) groups.push(calls.slice(start, start + perRequest));
  const answers: T[][] = new Array<T[]>(groups.length);
  let next = 0;
  const worker = async () => {
    while (next < groups.length) {
      const index = next;
      next += 1;
      answers[index] = await rpcBatch<T>(url, groups[index]!);
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return answers.flat();
}

/** `count` distinct addresses, lowercase, the same for the same seed and label. */
export function derivedAddresses(seed: string, label: string, count: number): string[] {
  return Array.from({ length: count }, (_v, index) => `0x${keccak256(toHex(`${seed}:${label}:${index}`)).slice(26)}`);
}

/** The address groups of the bench. */
export interface AddressPool {
  /** Tagged before the blocks are made; receive, and some of them send. */
  tracked: string[];
  /** Tagged with `tracked` but left out of the random transfers: each receives one transfer while
   *  the head latency is measured, so its first transaction is the one waited for. */
  probes: string[];
  /** Receive transfers in the blocks, and are tagged only afterwards (the backfill). */
  late: string[];
  /** Never tagged; receive, and some of them send. */
  untracked: string[];
  /** The addresses that send: some tracked, some untracked. Only they are funded. */
  senders: string[];
}

/** A transfer to make: native (`token` undefined) or of an ERC-20 token. */
export interface PlannedTransfer {
  from: string;
  to: string;
  token?: string;
  amount: bigint;
}

const GAS_PRICE = 10n ** 10n;
const NATIVE_GAS = 21_000n;
/** An OpenZeppelin ERC-20 transfer to a new holder takes about 52,000. */
const TOKEN_GAS = 90_000n;
/** What each sender is given: far more than the bench spends. */
const SENDER_WEI = 10n ** 24n;
const SENDER_TOKENS = 10n ** 36n;

/**
 * Makes the blocks and keeps the count of what chaintags should record: every transfer with an
 * end among the tracked addresses (tracked and probes), and, once the late addresses are tagged
 * too, every transfer with an end among any of them.
 */
export class Traffic {
  private readonly random: () => number;
  private readonly nonces = new Map<string, number>();
  private readonly recipients: { list: string[]; weight: number }[];
  private readonly tracked: Set<string>;
  private readonly late: Set<string>;
  /** Transfers made, per address of tracked, probes and late. */
  readonly perAddress = new Map<string, number>();
  made = 0;
  touchingTracked = 0;
  touchingTrackedOrLate = 0;

  constructor(
    private readonly url: string,
    readonly pool: AddressPool,
    readonly tokens: readonly string[],
    seed: string,
  ) {
    this.random = seededRandom(seed);
    const groups = [
      { list: pool.tracked, weight: 0.4 },
      { list: pool.untracked, weight: 0.4 },
      { list: pool.late, weight: 0.2 },
    ].filter((group) => group.list.length > 0);
    const total = groups.reduce((sum, group) => sum + group.weight, 0);
    this.recipients = groups.map((group) => ({ list: group.list, weight: group.weight / total }));
    this.tracked = new Set([...pool.tracked, ...pool.probes]);
    this.late = new Set(pool.late);
  }

  /** Gives every sender ether and a balance of each token, without transactions; mines one block. */
  async fund(): Promise<void> {
    const calls: RpcCall[] = [['anvil_autoImpersonateAccount', [true]]];
    for (const address of this.pool.senders) {
      calls.push(['anvil_setBalance', [address, toHex(SENDER_WEI)]]);
      for (const token of this.tokens) {
        calls.push(['anvil_setStorageAt', [token, balanceSlot(address), toHex(SENDER_TOKENS, { size: 32 })]]);
      }
    }
    await rpcMany(this.url, calls);
    await rpcBatch(this.url, [['anvil_mine', ['0x1']]]);
    // The balance slot is OpenZeppelin ERC20's layout: check that the token reads what was written.
    const [answer] = await rpcBatch<Hex>(this.url, [
      [
        'eth_call',
        [
          {
            to: this.tokens[0],
            data: encodeFunctionData({ abi: testTokenAbi, functionName: 'balanceOf', args: [this.pool.senders[0]] }),
          },
          'latest',
        ],
      ],
    ]);
    if (BigInt(answer!) !== SENDER_TOKENS)
      throw new Error(`funding by storage did not work: balanceOf answered ${answer}`);
  }

  /** `count` random transfers: half native, half of a random token; senders tracked or untracked. */
  plan(count: number): PlannedTransfer[] {
    return Array.from({ length: count }, () => this.randomTransfer());
  }

  /** A transfer to `to` from a random sender, native or of a token as asked. */
  transferTo(to: string, token: string | undefined): PlannedTransfer {
    return { from: this.pick(this.pool.senders), to, token, amount: this.amount(token) };
  }

  /**
   * Sends the transfers in one batch and mines them into one block. Returns the block's number
   * and the moment anvil answered the mining call (the block exists from then on).
   */
  async block(transfers: readonly PlannedTransfer[]): Promise<{ number: bigint; minedAt: number }> {
    await rpcBatch(
      this.url,
      transfers.map((transfer) => ['eth_sendTransaction', [this.transaction(transfer)]]),
    );
    await rpcBatch(this.url, [['anvil_mine', ['0x1']]]);
    const minedAt = performance.now();
    for (const transfer of transfers) this.count(transfer);
    const [head] = await rpcBatch<Hex>(this.url, [['eth_blockNumber', []]]);
    return { number: BigInt(head!), minedAt };
  }

  /**
   * Checks that blocks [from, to] hold `perBlock` transactions each and that every one succeeded
   * (a reverted transfer is not recorded, so the counts would be off).
   */
  async checkBlocks(from: bigint, to: bigint, perBlock: number): Promise<void> {
    const calls: RpcCall[] = [];
    for (let number = from; number <= to; number++) calls.push(['eth_getBlockReceipts', [toHex(number)]]);
    const blocks = await rpcMany<{ status: Hex }[]>(this.url, calls, 50);
    blocks.forEach((receipts, index) => {
      const number = from + BigInt(index);
      if (receipts.length !== perBlock) {
        throw new Error(`block ${number} holds ${receipts.length} transactions, not ${perBlock}`);
      }
      const failed = receipts.filter((receipt) => BigInt(receipt.status) !== 1n).length;
      if (failed > 0) throw new Error(`block ${number}: ${failed} transactions reverted`);
    });
  }

  private randomTransfer(): PlannedTransfer {
    const from = this.pick(this.pool.senders);
    let to = from;
    while (to === from) to = this.pick(this.pickWeighted());
    const token = this.random() < 0.5 ? undefined : this.pick(this.tokens);
    return { from, to, token, amount: this.amount(token) };
  }

  private amount(token: string | undefined): bigint {
    const scale = token === undefined ? 10n ** 12n : 10n ** 15n;
    return BigInt(1 + Math.floor(this.random() * 1_000_000)) * scale;
  }

  private transaction(transfer: PlannedTransfer): Record<string, string> {
    const nonce = this.nonces.get(transfer.from) ?? 0;
    this.nonces.set(transfer.from, nonce + 1);
    const common = { from: transfer.from, nonce: toHex(nonce), gasPrice: toHex(GAS_PRICE) };
    if (transfer.token === undefined) {
      return { ...common, to: transfer.to, value: toHex(transfer.amount), gas: toHex(NATIVE_GAS) };
    }
    return {
      ...common,
      to: transfer.token,
      gas: toHex(TOKEN_GAS),
      data: encodeFunctionData({ abi: testTokenAbi, functionName: 'transfer', args: [transfer.to, transfer.amount] }),
    };
  }

  private count(transfer: PlannedTransfer): void {
    this.made += 1;
    const ends = [transfer.from, transfer.to];
    if (ends.some((end) => this.tracked.has(end))) this.touchingTracked += 1;
    if (ends.some((end) => this.tracked.has(end) || this.late.has(end))) this.touchingTrackedOrLate += 1;
    for (const end of ends) {
      if (this.tracked.has(end) || this.late.has(end)) this.perAddress.set(end, (this.perAddress.get(end) ?? 0) + 1);
    }
  }

  private pickWeighted(): string[] {
    let roll = this.random();
    for (const group of this.recipients) {
      if (roll < group.weight) return group.list;
      roll -= group.weight;
    }
    return this.recipients[this.recipients.length - 1]!.list;
  }

  private pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.random() * list.length)]!;
  }
}

/** The storage slot of `holder`'s balance in an OpenZeppelin 5 ERC20 (`_balances`, slot 0). */
function balanceSlot(holder: string): Hex {
  return keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [holder as Hex, 0n]));
}
