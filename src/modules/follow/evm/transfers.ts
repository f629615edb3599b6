import { toEventSelector } from 'viem';
import type { ChainId } from '../../../core/chains/chain-ids';
import { NATIVE, type BlockHeader, type ObservedTransfer } from '../reading';
import type { RpcBlockFull, RpcHeader, RpcLogEntry, RpcReceipt, RpcTx } from './rpc-shapes';

/** topic0 of ERC-20 (and ERC-721) `Transfer(address indexed from, address indexed to, uint256)`. */
export const TRANSFER_TOPIC = toEventSelector('Transfer(address,address,uint256)');

const ZERO_WORD_PREFIX = '0x000000000000000000000000';
const TOPIC = /^0x000000000000000000000000[0-9a-f]{40}$/;
const WORD_DATA = /^0x[0-9a-f]{64}$/;
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** An address as an indexed event argument: left-padded to 32 bytes. */
export function addressTopic(address: string): string {
  return ZERO_WORD_PREFIX + address.slice(2);
}

/** The address an indexed argument holds, or undefined when the word is not a padded address. */
export function topicAddress(topic: string): string | undefined {
  const word = topic.toLowerCase();
  return TOPIC.test(word) ? `0x${word.slice(26)}` : undefined;
}

export function toHeader(block: RpcHeader): BlockHeader {
  return {
    number: BigInt(block.number),
    hash: block.hash.toLowerCase(),
    parentHash: block.parentHash.toLowerCase(),
    time: new Date(Number(BigInt(block.timestamp)) * 1000).toISOString(),
  };
}

/** The token ends and amount of an ERC-20 Transfer log, or undefined for any other log. */
export interface TokenTransferLog {
  token: string;
  from: string;
  to: string;
  value: bigint;
}

/**
 * Reads an ERC-20 `Transfer` log: topic0 Transfer, exactly three topics (ERC-721 has four, the
 * token id indexed), padded address topics and exactly 32 bytes of data. A transfer of 0 moves
 * nothing and is left out, as a native transaction of value 0 is.
 */
export function readTransferLog(log: RpcLogEntry): TokenTransferLog | undefined {
  if (log.topics.length !== 3 || log.topics[0]!.toLowerCase() !== TRANSFER_TOPIC) return undefined;
  const data = log.data.toLowerCase();
  if (!WORD_DATA.test(data)) return undefined;
  const from = topicAddress(log.topics[1]!);
  const to = topicAddress(log.topics[2]!);
  if (from === undefined || to === undefined) return undefined;
  const value = BigInt(data);
  if (value === 0n) return undefined;
  return { token: log.address.toLowerCase(), from, to, value };
}

/** The transaction record of a token transfer; a mint (from the zero address) has sender `0`. */
export function tokenTransfer(
  chain: ChainId,
  log: RpcLogEntry,
  transfer: TokenTransferLog,
  header: BlockHeader,
): ObservedTransfer {
  const txHash = log.transactionHash.toLowerCase();
  return {
    id: `${chain}:${txHash}:${BigInt(log.logIndex).toString()}`,
    chain,
    token_address: transfer.token,
    from_address: transfer.from === ZERO_ADDRESS ? NATIVE : transfer.from,
    to_address: transfer.to,
    value: transfer.value.toString(),
    tx_hash: txHash,
    block_number: header.number.toString(),
    block_hash: header.hash,
    block_time: header.time,
  };
}

/** The transaction record of a native transfer. */
export function nativeTransfer(chain: ChainId, tx: RpcTx, to: string, header: BlockHeader): ObservedTransfer {
  const txHash = tx.hash.toLowerCase();
  return {
    id: `${chain}:${txHash}:native`,
    chain,
    token_address: NATIVE,
    from_address: tx.from.toLowerCase(),
    to_address: to,
    value: BigInt(tx.value).toString(),
    tx_hash: txHash,
    block_number: header.number.toString(),
    block_hash: header.hash,
    block_time: header.time,
  };
}

/** A transaction of a block that may move native value to or from a tracked address. */
export interface NativeCandidate {
  tx: RpcTx;
  header: BlockHeader;
}

/** What a block's transactions say before their receipts are read. */
export interface NativeScan {
  /** Transactions with value whose sender or recipient is tracked, and value-carrying contract
   *  creations (the created address is only known from the receipt). */
  candidates: NativeCandidate[];
  /** Tracked addresses whose native balance the block changed whatever the transactions' fate: the
   *  senders of any transaction (gas), the fee recipient, and withdrawal recipients. */
  balanceChanged: string[];
}

export function scanNative(block: RpcBlockFull, header: BlockHeader, tracked: ReadonlySet<string>): NativeScan {
  const candidates: NativeCandidate[] = [];
  const balanceChanged: string[] = [];
  for (const tx of block.transactions) {
    const from = tx.from.toLowerCase();
    const fromTracked = tracked.has(from);
    if (fromTracked) balanceChanged.push(from);
    if (BigInt(tx.value) === 0n) continue;
    if (tx.to === null || fromTracked || tracked.has(tx.to.toLowerCase())) candidates.push({ tx, header });
  }
  const miner = block.miner.toLowerCase();
  if (tracked.has(miner)) balanceChanged.push(miner);
  for (const withdrawal of block.withdrawals ?? []) {
    const address = withdrawal.address.toLowerCase();
    if (tracked.has(address)) balanceChanged.push(address);
  }
  return { candidates, balanceChanged };
}

/**
 * The native transfer a candidate made, given its receipt: none when it reverted. A receipt
 * without status (before Byzantium) counts as success. The recipient of a contract creation is
 * the created contract.
 */
export function settledTransfer(
  chain: ChainId,
  candidate: NativeCandidate,
  receipt: RpcReceipt,
  tracked: ReadonlySet<string>,
): ObservedTransfer | undefined {
  if (receipt.status !== undefined && receipt.status !== null && BigInt(receipt.status) !== 1n) return undefined;
  const { tx, header } = candidate;
  const to = (tx.to ?? receipt.contractAddress ?? '').toLowerCase();
  if (to === '') return undefined;
  if (!tracked.has(tx.from.toLowerCase()) && !tracked.has(to)) return undefined;
  return nativeTransfer(chain, tx, to, header);
}
