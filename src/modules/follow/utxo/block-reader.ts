import { ChainMoved } from '../reading';
import { BitcoinRpc, BitcoinRpcError } from './bitcoin-rpc';
import {
  blockFromVerbose,
  MalformedNodeAnswer,
  NO_PARENT,
  transactionFromVerbose,
  UtxoBlock,
  UtxoTransaction,
} from './utxo-block';

/**
 * Reading blocks of the Bitcoin family from a node, in one of two ways:
 *
 * - `verbose-block`: `getblock <hash> 2`, the transactions inside the block's answer. Bitcoin Core
 *   ≥ 0.15, Bitcoin Cash Node, Litecoin Core ≥ 0.15.
 * - `block-and-transactions`: `getblock <hash> true` (txids only), then every transaction with
 *   `getrawtransaction <txid> true [<block hash>]`, batched. For Dogecoin Core 1.14, whose
 *   `getblock` takes a boolean only; it needs `-txindex`, and takes no block hash argument (added in
 *   Bitcoin Core 0.16), so the reader finds out once per client whether the node accepts one.
 *
 * Both give identical `UtxoBlock`s.
 */
export type BlockReadPath = 'verbose-block' | 'block-and-transactions';

/** Bitcoin Core's RPC_INVALID_PARAMETER, which `getblockhash` answers for a height above the tip. */
const RPC_INVALID_PARAMETER = -8;
/** RPC_INVALID_ADDRESS_OR_KEY: "Block not found" (and "No such mempool or blockchain transaction"). */
const RPC_INVALID_ADDRESS_OR_KEY = -5;
/** RPC_MISC_ERROR: what nodes before Bitcoin Core 0.16 answer a call with too many parameters (their help text). */
const RPC_MISC_ERROR = -1;

/** Whether a client's node took `getrawtransaction`'s block hash argument, once known. */
const takesBlockHash = new WeakMap<BitcoinRpc, boolean>();

/**
 * The way this node can read blocks: `verbose-block` when it answers `getblock <sample> 2` with
 * transactions inside, else `block-and-transactions`. Dogecoin Core 1.14 either refuses the 2 (its
 * verbose argument is a boolean) or would answer another shape: both fall back. A sample block the
 * node does not have is an error, not a reason to fall back.
 */
export async function choosePath(rpc: BitcoinRpc, sampleHash: string): Promise<BlockReadPath> {
  let answer: unknown;
  try {
    answer = await rpc.call('getblock', [sampleHash, 2]);
  } catch (error) {
    if (error instanceof BitcoinRpcError && error.code !== RPC_INVALID_ADDRESS_OR_KEY) return 'block-and-transactions';
    throw error;
  }
  const tx = typeof answer === 'object' && answer !== null ? (answer as { tx?: unknown }).tx : undefined;
  const withTransactions =
    Array.isArray(tx) && tx.length > 0 && tx.every((entry) => typeof entry === 'object' && entry !== null);
  return withTransactions ? 'verbose-block' : 'block-and-transactions';
}

/**
 * How much one reading of blocks holds. A node's answer to `getblock <hash> 2` grows with the block:
 * a Bitcoin mainnet block of 3,000-4,000 transactions is 5-10 MB of JSON, so a hundred of them in
 * one batch would be a string at or past the longest V8 allows (about 512 MiB), and their parsed
 * transactions hundreds of megabytes of heap. So blocks are asked for in groups of about
 * `perRequest` transactions (one block at least), each group sized by the blocks read before it
 * and at most twice the group before it, and, when `limit` is given, the reading ends with the
 * block that brings it to `limit` transactions: the caller gets the first blocks of what it asked
 * for, one at least.
 */
export interface ReadBudget {
  perRequest: number;
  limit?: number;
}

/** Transactions per node answer when nothing else is said: a few megabytes of JSON on mainnet. */
export const TRANSACTIONS_PER_REQUEST = 5_000;

/**
 * Blocks `from`..`to` of the node's current chain, in order: all of them, or as many as the
 * budget's `limit` lets through (the first blocks of the range; one at least). Every block's parent
 * must be the block read before it and every block must still be on the node's chain, else the
 * chain moved while it was read (a reorganisation): `ChainMoved`, nothing of the reading to keep.
 * Whether `from`'s parent is the block the caller read last is the caller's check (`parentHash`).
 */
export async function readBlocks(
  rpc: BitcoinRpc,
  from: bigint,
  to: bigint,
  path: BlockReadPath,
  budget: ReadBudget = { perRequest: TRANSACTIONS_PER_REQUEST },
): Promise<UtxoBlock[]> {
  if (from < 0n) throw new RangeError(`block ${from} does not exist`);
  const read: UtxoBlock[] = [];
  let transactions = 0;
  // The first group is one block: nothing tells its size before it is read.
  let group = 1;
  for (let next = from; next <= to;) {
    if (budget.limit !== undefined && read.length > 0 && transactions >= budget.limit) break;
    const last = next + BigInt(group) - 1n < to ? next + BigInt(group) - 1n : to;
    for (const block of await readGroup(rpc, next, last, path, read[read.length - 1])) {
      read.push(block);
      transactions += block.transactions.length;
    }
    next = last + 1n;
    // Sized by the blocks read so far, and at most twice the group before: a few small blocks
    // (an empty one after a full one happens on mainnet) must not make the next request the rest
    // of the range at once.
    const perBlock = Math.max(1, transactions / read.length);
    const room = budget.limit === undefined ? Infinity : Math.ceil((budget.limit - transactions) / perBlock);
    group = Math.max(1, Math.min(2 * group, Math.floor(budget.perRequest / perBlock), room));
  }
  return read;
}

/** Blocks `from`..`to` in one request of each kind; `previous` is the block read just before `from`, if any. */
async function readGroup(
  rpc: BitcoinRpc,
  from: bigint,
  to: bigint,
  path: BlockReadPath,
  previous: UtxoBlock | undefined,
): Promise<UtxoBlock[]> {
  const heights: bigint[] = [];
  for (let height = from; height <= to; height++) heights.push(height);

  const hashes = await rpc.batch<string>(
    heights.map((height) => ({ method: 'getblockhash', params: [Number(height)] })),
  );
  const blocks =
    path === 'verbose-block'
      ? await rpc.batch<unknown>(hashes.map((hash) => ({ method: 'getblock', params: [hash, 2] })))
      : await rpc.batch<unknown>(hashes.map((hash) => ({ method: 'getblock', params: [hash, true] })));
  const transactions = path === 'verbose-block' ? undefined : await readTransactions(rpc, hashes, blocks);

  const read: UtxoBlock[] = [];
  blocks.forEach((json, index) => {
    const height = heights[index]!;
    if ((json as { confirmations?: unknown } | null)?.confirmations === -1) {
      throw new ChainMoved(
        `block ${hashes[index]} at height ${height} left the node's chain while it was read`,
        height,
      );
    }
    const block = blockFromVerbose(json, transactions?.[index]);
    if (block.hash !== hashes[index]) {
      throw new MalformedNodeAnswer(`getblock ${hashes[index]} answered block ${block.hash}`);
    }
    if (block.height !== height) {
      throw new MalformedNodeAnswer(`block ${block.hash} is at height ${block.height}, read as ${height}`);
    }
    const parent = read[index - 1] ?? previous;
    if (parent !== undefined && block.parentHash !== parent.hash) {
      throw new ChainMoved(`block ${height}'s parent is not the block read at ${height - 1n}`, height);
    }
    read.push(block);
  });
  return read;
}

/** Every block's transactions, in block order, read with `getrawtransaction` in batches. */
async function readTransactions(
  rpc: BitcoinRpc,
  hashes: readonly string[],
  blocks: readonly unknown[],
): Promise<UtxoTransaction[][]> {
  const wanted = blocks.flatMap((json, index) =>
    txidsOf(json, hashes[index]!).map((txid) => ({ txid, block: hashes[index]! })),
  );
  const answers = await getRawTransactions(rpc, wanted);
  const parsed = answers.map((answer, index) => {
    const { txid, block } = wanted[index]!;
    const blockHash = (answer as { blockhash?: unknown } | null)?.blockhash;
    // With a txindex lookup the node names the block it found the transaction in: another one means
    // the transaction moved to another block since the block was read.
    if (typeof blockHash === 'string' && blockHash !== block) {
      throw new ChainMoved(`transaction ${txid} is no longer in block ${block}`, heightOf(blocks, hashes, block));
    }
    const transaction = transactionFromVerbose(answer);
    if (transaction.txid !== txid)
      throw new MalformedNodeAnswer(`getrawtransaction ${txid} answered ${transaction.txid}`);
    return transaction;
  });
  let next = 0;
  return blocks.map((json, index) => {
    const count = txidsOf(json, hashes[index]!).length;
    next += count;
    return parsed.slice(next - count, next);
  });
}

async function getRawTransactions(
  rpc: BitcoinRpc,
  wanted: readonly { txid: string; block: string }[],
): Promise<unknown[]> {
  if (wanted.length === 0) return [];
  if (takesBlockHash.get(rpc) !== false) {
    try {
      const answers = await rpc.batch<unknown>(
        wanted.map(({ txid, block }) => ({ method: 'getrawtransaction', params: [txid, true, block] })),
      );
      takesBlockHash.set(rpc, true);
      return answers;
    } catch (error) {
      const refusedArgument =
        error instanceof BitcoinRpcError &&
        error.code === RPC_MISC_ERROR &&
        error.nodeMessage.startsWith('getrawtransaction');
      if (!refusedArgument || takesBlockHash.get(rpc) === true) throw error;
      takesBlockHash.set(rpc, false);
    }
  }
  return rpc.batch<unknown>(wanted.map(({ txid }) => ({ method: 'getrawtransaction', params: [txid, true] })));
}

function txidsOf(json: unknown, hash: string): string[] {
  const tx = typeof json === 'object' && json !== null ? (json as { tx?: unknown }).tx : undefined;
  if (!Array.isArray(tx) || !tx.every((entry) => typeof entry === 'string')) {
    throw new MalformedNodeAnswer(`getblock ${hash} true did not list txids`);
  }
  return tx;
}

function heightOf(blocks: readonly unknown[], hashes: readonly string[], hash: string): bigint {
  const height = (blocks[hashes.indexOf(hash)] as { height?: unknown } | undefined)?.height;
  return typeof height === 'number' ? BigInt(height) : 0n;
}

/** The header of the node's block at `height`, or undefined when its chain is not that long. */
export async function readHeader(
  rpc: BitcoinRpc,
  height: bigint,
): Promise<{ number: bigint; hash: string; parentHash: string; time: string } | undefined> {
  let hash: string;
  try {
    hash = await rpc.call<string>('getblockhash', [Number(height)]);
  } catch (error) {
    if (error instanceof BitcoinRpcError && error.code === RPC_INVALID_PARAMETER) return undefined;
    throw error;
  }
  const header = await rpc.call<unknown>('getblockheader', [hash, true]);
  const fields = (typeof header === 'object' && header !== null ? header : {}) as Record<string, unknown>;
  if (fields.hash !== hash) throw new MalformedNodeAnswer(`getblockheader ${hash} answered another block`);
  if (fields.height !== Number(height)) {
    throw new ChainMoved(`the block at height ${height} changed while its header was read`, height);
  }
  const parentHash = height === 0n ? NO_PARENT : fields.previousblockhash;
  if (typeof parentHash !== 'string' || !/^[0-9a-f]{64}$/.test(parentHash)) {
    throw new MalformedNodeAnswer(`header ${hash} has no previousblockhash`);
  }
  if (typeof fields.time !== 'number' || !Number.isSafeInteger(fields.time)) {
    throw new MalformedNodeAnswer(`header ${hash} has no time`);
  }
  return { number: height, hash, parentHash, time: new Date(fields.time * 1000).toISOString() };
}
