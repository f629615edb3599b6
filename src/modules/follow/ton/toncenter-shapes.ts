import { Cell } from '@ton/core';

/**
 * The parts of toncenter API v2's answers the TON source reads (the documented shapes, checked
 * against the docs' examples in test/fixtures/ton/).
 */

export const MASTERCHAIN = -1;
/** The masterchain's one shard, as toncenter writes it (a signed 64-bit integer). */
export const MASTERCHAIN_SHARD = '-9223372036854775808';

export interface BlockIdJson {
  workchain: number;
  shard: string;
  seqno: number;
  root_hash: string;
  file_hash: string;
}

export interface MasterchainInfoJson {
  last: BlockIdJson;
  init: BlockIdJson;
}

export interface BlockHeaderJson {
  id: BlockIdJson;
  global_id: number;
  start_lt: string;
  end_lt: string;
  gen_utime: number;
  prev_blocks: BlockIdJson[];
}

export interface ShortTxJson {
  account: string;
  lt: string;
  hash: string;
}

/** An `ext.transaction`: each item of `getTransactions`, and the answer of `tryLocateSourceTx`. */
export interface TransactionJson {
  utime: number;
  /** The transaction's BOC, base64. */
  data: string;
  transaction_id: { lt: string; hash: string };
}

/** A legacy stack entry: `['num', '0x…']`, `['cell', { bytes }]`, `['slice', { bytes }]`. */
export type StackEntryJson = [string, unknown];

export interface RunResultJson {
  exit_code: number;
  stack: StackEntryJson[];
}

export function stackNumber(entry: StackEntryJson): bigint {
  const [kind, value] = entry;
  if (kind !== 'num' || typeof value !== 'string') throw new Error(`expected a number on the stack, got ${kind}`);
  return value.startsWith('-') ? -BigInt(value.slice(1)) : BigInt(value);
}

export function stackCell(entry: StackEntryJson): Cell {
  const [kind, value] = entry;
  const bytes = typeof value === 'string' ? value : (value as { bytes?: unknown } | null)?.bytes;
  if (!['cell', 'slice', 'tvm.Cell', 'tvm.Slice'].includes(kind) || typeof bytes !== 'string') {
    throw new Error(`expected a cell on the stack, got ${kind}`);
  }
  return Cell.fromBase64(bytes);
}

/** The range of account prefixes a shard id covers: its bits down to the lowest set bit. */
function shardRange(shard: string): [bigint, bigint] {
  const unsigned = BigInt.asUintN(64, BigInt(shard));
  const lowest = unsigned & -unsigned;
  return [unsigned - lowest, unsigned + lowest - 1n];
}

export function shardsOverlap(a: string, b: string): boolean {
  const [aLow, aHigh] = shardRange(a);
  const [bLow, bHigh] = shardRange(b);
  return aLow <= bHigh && bLow <= aHigh;
}
