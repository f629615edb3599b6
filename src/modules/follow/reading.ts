import type { ChainId } from '../../core/chains/chain-ids';

/**
 * What the chain reader hands the follower. Every address given to the reader and returned by it
 * is lowercase 0x hex; amounts, block numbers and ids are decimal strings in the form the
 * transaction records take (contract §10, FOLLOW-DESIGN "Row shapes").
 */

/** The token address of a chain's native coin, and the sender of a mint. */
export const NATIVE = '0';

export interface BlockHeader {
  number: bigint;
  /** Lowercase 0x hex. */
  hash: string;
  parentHash: string;
  /** The block's timestamp, ISO 8601 (`toISOString()`). */
  time: string;
}

/** A native or ERC-20 transfer as the transaction record that stores it. */
export interface ObservedTransfer {
  /** `<chain>:<tx hash>:native`, or `<chain>:<tx hash>:<log index>` for a token transfer. */
  id: string;
  chain: ChainId;
  /** `0` for the native coin, else the emitting contract. */
  token_address: string;
  /** `0` for a mint. */
  from_address: string;
  to_address: string;
  value: string;
  tx_hash: string;
  block_number: string;
  block_hash: string;
  block_time: string;
}

/** A balance the follower keeps: `token_address` `0` is the native coin. */
export interface HoldingKey {
  address: string;
  token_address: string;
}

export interface Reading {
  transfers: ObservedTransfer[];
  /** Balances the read blocks may have changed, each once. */
  touched: HoldingKey[];
}

/** The key of `ChainReader.balances`' answer: `${address} ${token_address}`. */
export function holdingKey(key: HoldingKey): string {
  return `${key.address} ${key.token_address}`;
}

/**
 * The node's chain changed while it was being read (a reorganisation): a block's parent is not the
 * block read before it, a log or receipt belongs to another block than the one read at its height,
 * or a block the reading relied on is gone. Nothing of the reading may be kept; read again.
 */
export class ChainMoved extends Error {
  constructor(
    message: string,
    /** The height at which the difference showed. */
    readonly block: bigint,
  ) {
    super(message);
    this.name = 'ChainMoved';
  }
}

/** Collects HoldingKeys once each, in the order first seen. */
export class TouchedSet {
  private readonly keys = new Map<string, HoldingKey>();

  add(address: string, token_address: string): void {
    const key = { address, token_address };
    const text = holdingKey(key);
    if (!this.keys.has(text)) this.keys.set(text, key);
  }

  addAll(keys: Iterable<HoldingKey>): void {
    for (const key of keys) this.add(key.address, key.token_address);
  }

  list(): HoldingKey[] {
    return [...this.keys.values()];
  }
}
