import type { ChainId } from '../chains/chain-ids';
import type { CanonicalAddress, CanonicalTokenAddress, Instant } from './brands';

/**
 * The data chaintags serves, as records that have passed the import rules (contract §8): every
 * address canonical, every amount an exact decimal string, every timestamp an Instant. Sources
 * hand over RecordInput (record-input.ts); validation turns it into these, and only these are
 * written.
 */

export const RECORD_TYPES = ['chain', 'token', 'price', 'holding', 'transaction'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

/** The sender of a transaction that has none: a mint or a block reward. */
export const NO_SENDER = '0';

export interface ExplorerRecord {
  name: string;
  url: string;
  tx_url: string;
  address_url: string;
}

/** New display data for one of the supported chains; chains themselves come from the registry. */
export interface ChainRecord {
  type: 'chain';
  chain: ChainId;
  chainId: number;
  name: string;
  icon_url: string;
  explorers: ExplorerRecord[];
}

export interface DeploymentRecord {
  chain: ChainId;
  address: CanonicalTokenAddress;
  decimals: number;
}

export interface TokenRecord {
  type: 'token';
  id: string;
  name: string;
  symbol: string;
  icon_url: string;
  deployments: DeploymentRecord[];
}

export interface PriceRecord {
  type: 'price';
  token_id: string;
  /** Exact decimal without exponent, no leading zeros in the integer part, no trailing zeros in the fraction. */
  usd: string;
  at: Instant;
}

export interface HoldingRecord {
  type: 'holding';
  chain: ChainId;
  address: CanonicalAddress;
  token_address: CanonicalTokenAddress;
  /** Up to 78 digits, without leading zeros. */
  balance: string;
  updated_at: Instant;
}

/** Its fields are TRANSACTION_FIELDS, in that order. */
export interface TransactionRecord {
  type: 'transaction';
  id: string;
  chain: ChainId;
  token_address: CanonicalTokenAddress;
  from_address: CanonicalAddress | typeof NO_SENDER;
  to_address: CanonicalAddress;
  /** Up to 78 digits, without leading zeros. */
  value: string;
  tx_hash: string;
  /** Up to 18 digits, without leading zeros. */
  block_number: string;
  block_hash: string;
  block_time: Instant;
}

export type DataRecord = ChainRecord | TokenRecord | PriceRecord | HoldingRecord | TransactionRecord;
