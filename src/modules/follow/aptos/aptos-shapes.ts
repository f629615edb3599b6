/**
 * The parts of the Aptos node API's answers (REST, `/v1`, as a fullnode serves it; the API's
 * OpenAPI document, version 1.2) that the Aptos source reads. 64-bit numbers are decimal strings,
 * addresses `0x` hex that may be short (`0xa`), as the API writes them.
 */

/** `GET /v1`: the ledger's newest state. */
export interface LedgerInfoJson {
  chain_id: number;
  epoch: string;
  ledger_version: string;
  oldest_ledger_version: string;
  ledger_timestamp: string;
  node_role: string;
  oldest_block_height: string;
  block_height: string;
}

/** `GET /v1/blocks/by_height/{height}?with_transactions=…`. */
export interface BlockJson {
  block_height: string;
  block_hash: string;
  /** Microseconds since the epoch. */
  block_timestamp: string;
  first_version: string;
  last_version: string;
  /**
   * With `with_transactions=true`: the block's transactions in version order, cut at the node's
   * page size (`first_version`..`last_version` says how many there are; the rest come from
   * `GET /v1/transactions`).
   */
  transactions?: TransactionJson[];
}

/**
 * A transaction of any type (`user_transaction`, `block_metadata_transaction`,
 * `state_checkpoint_transaction`, `block_epilogue_transaction`, `genesis_transaction`,
 * `validator_transaction`). Pending transactions never appear in a block.
 */
export interface TransactionJson {
  type: string;
  version: string;
  hash: string;
  success: boolean;
  vm_status?: string;
  /** Microseconds since the epoch (absent on a genesis transaction). */
  timestamp?: string;
  sender?: string;
  /** A sponsored transaction's is `{ type: 'fee_payer_signature', fee_payer_address, … }`: the fee payer pays the gas. */
  signature?: { type: string; fee_payer_address?: string; [field: string]: unknown };
  events?: EventJson[];
  changes?: WriteSetChangeJson[];
}

export interface EventJson {
  /** A module event's is `{ creation_number: "0", account_address: "0x0" }`. */
  guid: { creation_number: string; account_address: string };
  sequence_number: string;
  /** The Move type: `0x1::fungible_asset::Deposit`. */
  type: string;
  data: Record<string, unknown>;
}

/** One change of the transaction's write set (`write_resource`, `delete_resource`, `write_module`, `write_table_item`, …). */
export interface WriteSetChangeJson {
  type: string;
  /** The account or object whose resource changed (resources only). */
  address?: string;
  state_key_hash: string;
  /** `write_resource`: the resource as written. */
  data?: { type: string; data: Record<string, unknown> };
  /** `delete_resource`: the type of the resource deleted. */
  resource?: string;
}

/** An error answer of the API (4xx and 5xx). */
export interface ApiErrorJson {
  message: string;
  /** `block_not_found`, `version_pruned`, `block_pruned`, `resource_not_found`, `invalid_input`, … */
  error_code: string;
  vm_error_code?: number | null;
}

/** The Move types the source reads. */
export const FA_DEPOSIT = '0x1::fungible_asset::Deposit';
export const FA_WITHDRAW = '0x1::fungible_asset::Withdraw';
/** Module events of coins kept in a `CoinStore` (not yet migrated to fungible assets): `{ account, amount, coin_type }`. */
export const COIN_DEPOSIT = '0x1::coin::CoinDeposit';
export const COIN_WITHDRAW = '0x1::coin::CoinWithdraw';
/** An object's owner: `{ owner, allow_ungated_transfer, … }`. */
export const OBJECT_CORE = '0x1::object::ObjectCore';
/** A fungible store: `{ metadata: { inner }, balance, frozen }`. */
export const FUNGIBLE_STORE = '0x1::fungible_asset::FungibleStore';
/** A fungible asset's metadata, at the asset's address: `{ name, symbol, decimals, icon_uri, project_uri }`. */
export const FA_METADATA = '0x1::fungible_asset::Metadata';
/** APT's coin type, which the balance endpoint takes for APT in a `CoinStore` or its primary fungible store. */
export const APT_COIN_TYPE = '0x1::aptos_coin::AptosCoin';
/** APT's fungible asset metadata address (`0xa`), written in full. */
export const APT_METADATA = `0x${'0'.repeat(63)}a`;
