/**
 * The parts of standard Ethereum JSON-RPC answers the reader uses, as nodes send them: quantities
 * are 0x hex, and addresses may come in any letter case (the reader lowercases them).
 */

export interface RpcTx {
  hash: string;
  from: string;
  /** Null for a contract creation. */
  to: string | null;
  value: string;
}

export interface RpcBlockFull {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
  /** The fee recipient. */
  miner: string;
  transactions: RpcTx[];
  /** Withdrawals from the beacon chain (after Shanghai), which credit native balances. */
  withdrawals?: { address: string }[];
}

export type RpcHeader = Omit<RpcBlockFull, 'transactions' | 'withdrawals' | 'miner'>;

export interface RpcLogEntry {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  logIndex: string;
  removed?: boolean;
}

export interface RpcReceipt {
  transactionHash: string;
  blockHash: string;
  /** `0x1` success, `0x0` reverted; absent before Byzantium. */
  status?: string | null;
  contractAddress?: string | null;
}

/** A receipt of `eth_getBlockReceipts`: the transaction's, with its logs. */
export interface RpcBlockReceipt extends RpcReceipt {
  logs: RpcLogEntry[];
}

/** A block number as a JSON-RPC quantity. */
export function quantity(value: bigint): string {
  return `0x${value.toString(16)}`;
}
