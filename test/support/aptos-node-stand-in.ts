import { randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { sha3_256 } from '@noble/hashes/sha3.js';
import {
  APT_COIN_TYPE,
  APT_METADATA,
  COIN_DEPOSIT,
  COIN_WITHDRAW,
  FA_DEPOSIT,
  FA_METADATA,
  FA_WITHDRAW,
  FUNGIBLE_STORE,
  OBJECT_CORE,
  type ApiErrorJson,
  type BlockJson,
  type EventJson,
  type LedgerInfoJson,
  type TransactionJson,
  type WriteSetChangeJson,
} from '../../src/modules/follow/aptos/aptos-shapes';

/**
 * An Aptos fullnode's REST API (`/v1`, the Aptos Node API's OpenAPI document v1.2) over an
 * in-memory model of the ledger's fungible assets (FA), for the Aptos follower's tests: no Aptos
 * node or Move VM runs here, so this models what their answers show. The test records operations
 * (`fund`, `transfer`, `mint`, `burn`, `fail`, `coinTransfer`), each one user transaction, and
 * `seal` puts the recorded ones in a block; only sealed blocks are visible through the API.
 *
 * What is modelled:
 * - Assets: APT (metadata `0xa`, 8 decimals) and the assets `createAsset` makes (a random metadata
 *   address; no transaction creates them, their metadata is there at every version).
 * - Balances live in primary fungible stores, one per (owner, asset), at the address Aptos derives
 *   (sha3-256 of owner ‖ metadata ‖ 0xFC); a store comes into being with its first deposit. APT is
 *   always in the primary store too: `coinTransfer` only shows the events of a not-yet-migrated
 *   `CoinStore` (`CoinWithdraw`/`CoinDeposit`), while the balances and write set are the stores'.
 * - Every user transaction charges its sender a gas fee in APT (100 octas unless told) with no
 *   Withdraw event, as Aptos burns gas, and ends with a `FeeStatement` event. An operation that would
 *   take a balance below zero (or above u64) is refused: it throws and records nothing.
 * - Write sets: for each store a transaction touched, its `FungibleStore` and `ObjectCore` (the
 *   latter left out with `omitObjectCore`, as a node may leave out unchanged resource-group
 *   members), then the sender's `0x1::account::Account` with the sequence number bumped.
 * - Blocks: the genesis block (height 0, timestamp 0) holds the genesis transaction at version 0,
 *   which gives `FAUCET` its APT (`fund` mints from it and pays its gas from it). Every later block
 *   holds a `block_metadata_transaction`, the recorded user transactions in order and a
 *   `state_checkpoint_transaction`; versions are continuous, timestamps come from a clock that
 *   starts at `FIRST_BLOCK_TIME` and moves 1 s a block (or `seal({ at })`).
 * - State history: every store's balance and every account's sequence number is kept per version,
 *   so `ledger_version` queries answer the state after that version.
 *
 * Served (GET only): `/v1`, `/v1/blocks/by_height/{h}`, `/v1/blocks/by_version/{v}`,
 * `/v1/transactions`, `/v1/transactions/by_version/{v}`, `/v1/transactions/by_hash/{hash}`,
 * `/v1/accounts/{address}/balance/{asset_type}` and `/v1/accounts/{address}/resource/{type}`,
 * with the node's error codes and statuses (`block_not_found`, `version_not_found`,
 * `resource_not_found` 404; `invalid_input` 400, also for `/v1/transactions?start=` beyond the
 * ledger, as aptos-core's `Page::start` answers) and the `X-Aptos-*` ledger headers. Addresses are
 * written as the API writes them (AIP-40): the special addresses `0x0`..`0xf` short, all others in
 * full.
 */

/** The account `fund` mints from and whose APT pays its gas (the local testnet's core resources account). */
export const FAUCET = `0x${'a550c18'.padStart(64, '0')}`;
/** What the genesis transaction gives `FAUCET`, in octas. */
export const FAUCET_GENESIS_BALANCE = 10n ** 18n;
/** The timestamp (µs) of block 1; each later block is 1 s after the one before unless `seal({ at })` says otherwise. */
export const FIRST_BLOCK_TIME = 1_767_225_600_000_000n;
/** The gas fee a user transaction charges its sender unless told otherwise, in octas. */
export const DEFAULT_FEE = 100n;
/** The event that ends every user transaction, with its gas (a reader must pass it by). */
export const FEE_STATEMENT = '0x1::transaction_fee::FeeStatement';
/** An account's resource, written with the sequence number bumped by each transaction it sends. */
export const ACCOUNT_RESOURCE = '0x1::account::Account';
/** The event of each block's `block_metadata_transaction`. */
export const NEW_BLOCK_EVENT = '0x1::block::NewBlockEvent';

const U64_MAX = 2n ** 64n - 1n;
/** The largest page `GET /v1/transactions` answers (the node's `max_transactions_page_size`). */
const MAX_TRANSACTIONS_PAGE = 100;
const DEFAULT_TRANSACTIONS_PAGE = 25;
const EXECUTED = 'Executed successfully';
const MODULE_EVENT_GUID = { creation_number: '0', account_address: '0x0' };
/** The validator every block names as its proposer. */
const PROPOSER = `0x${'5e1ec7'.padStart(64, '0')}`;

/** How a stand-in is set up. */
export interface AptosStandInOptions {
  /** `chain_id` of the ledger info: 4 (the default) is a local testnet's, 1 mainnet's, 2 testnet's. */
  chainId?: number;
  /** When set, every request must carry `Authorization: Bearer <apiKey>`, as Aptos Labs' API gateway asks; else 401. */
  apiKey?: string;
  /** How many transactions `GET /v1/blocks/by_height/{h}?with_transactions=true` includes at most (100). */
  pageSize?: number;
}

/** One request as the stand-in saw it. */
export interface AptosCall {
  /** The path as requested, with `/v1` (`/v1/blocks/by_height/3`). */
  path: string;
  query: Record<string, string>;
  authorization: string | undefined;
  /** The answer's status. */
  status: number;
}

/** A fungible asset: its metadata address (full) and metadata. */
export interface AptosAsset {
  address: string;
  name: string;
  symbol: string;
  decimals: number;
  iconUri: string;
  projectUri: string;
}

/** Options every operation takes. */
export interface OperationOptions {
  /** The gas fee charged to the sender, in octas (`DEFAULT_FEE`). */
  fee?: bigint | number;
  /** Leaves the stores' `ObjectCore` writes out of the transaction's write set. */
  omitObjectCore?: boolean;
}

/** One movement of a transfer: `amount` of `asset` from `from`'s primary store to `to`'s. */
export interface TransferLeg {
  from: string;
  to: string;
  /** The asset's metadata address (`APT_METADATA` for APT), short or full. */
  asset: string;
  amount: bigint | number;
}

interface Store {
  address: string;
  owner: string;
  asset: string;
  /** The balance after each sealed version that wrote it, ascending. */
  history: { version: bigint; value: bigint }[];
}

interface PendingTransaction {
  hash: string;
  sender: string;
  sequenceNumber: bigint;
  success: boolean;
  vmStatus: string;
  events: EventJson[];
  /** The new balance of each store the transaction touched, in the order it touched them. */
  writes: { store: string; balance: bigint }[];
  omitObjectCore: boolean;
  gasUsed: bigint;
  gasUnitPrice: bigint;
  payload: Record<string, unknown>;
}

interface Block {
  height: number;
  hash: string;
  timestamp: bigint;
  first: bigint;
  last: bigint;
}

/** A transaction as the API writes it: the fields the follower reads and the others a node sends. */
type Transaction = TransactionJson & Record<string, unknown>;

class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** `address` in full (`0x` and 64 lowercase hex digits); `0x` optional, any case and length up to 64 digits. */
export function fullAddress(address: string): string {
  const full = parseAddress(address);
  if (full === undefined) throw new Error(`not an Aptos address: ${address}`);
  return full;
}

/** `address` as the API writes it (AIP-40): the special addresses `0x0`..`0xf` short, every other one in full. */
export function apiAddress(address: string): string {
  const full = fullAddress(address);
  return /^0x0{63}[0-9a-f]$/.test(full) ? `0x${full.slice(-1)}` : full;
}

/** The address of `owner`'s primary fungible store of the asset at `metadata`: sha3-256(owner ‖ metadata ‖ 0xFC). */
export function primaryStoreAddress(owner: string, metadata: string): string {
  const seed = new Uint8Array(65);
  seed.set(Buffer.from(fullAddress(owner).slice(2), 'hex'), 0);
  seed.set(Buffer.from(fullAddress(metadata).slice(2), 'hex'), 32);
  seed[64] = 0xfc;
  return `0x${Buffer.from(sha3_256(seed)).toString('hex')}`;
}

function parseAddress(text: string): string | undefined {
  const match = /^(?:0x)?([0-9a-fA-F]{1,64})$/.exec(text);
  return match === null ? undefined : `0x${match[1]!.toLowerCase().padStart(64, '0')}`;
}

function randomHash(): string {
  return `0x${randomBytes(32).toString('hex')}`;
}

function amountOf(value: bigint | number): bigint {
  if (typeof value === 'number' && !Number.isSafeInteger(value)) throw new Error(`not an exact amount: ${value}`);
  const amount = BigInt(value);
  if (amount < 0n || amount > U64_MAX) throw new Error(`amount out of range: ${amount}`);
  return amount;
}

/** A Move struct tag with its address written as the API writes it (`0x0…01::coin::X` becomes `0x1::coin::X`). */
function normalTypeTag(tag: string): string | undefined {
  const match = /^\s*((?:0x)?[0-9a-fA-F]{1,64})::(\w+)::(\w+)(<.*>)?\s*$/.exec(tag);
  if (match === null) return undefined;
  const generics = match[4] === undefined ? '' : match[4].replace(/\s+/g, '');
  return `${apiAddress(match[1]!)}::${match[2]!}::${match[3]!}${generics}`;
}

/**
 * The stand-in (see the comment at the top of this file): `start` it, record operations, `seal`
 * blocks, point the follower at `url`, and `stop` it.
 */
export class AptosStandIn {
  /** Every request, in order. */
  readonly calls: AptosCall[] = [];
  /** The API's base URL as a follower is given it: `http://127.0.0.1:<port>/v1`. */
  url = '';
  /** Milliseconds every answer waits before it is sent (a slow node). */
  delayMs = 0;
  readonly chainId: number;
  private readonly pageSize: number;
  private readonly assets = new Map<string, AptosAsset>();
  private readonly stores = new Map<string, Store>();
  /** Every store's balance after every recorded operation, sealed or not. */
  private readonly live = new Map<string, bigint>();
  /** Every account's next sequence number, counting recorded operations. */
  private readonly nextSequence = new Map<string, bigint>();
  /** Every account's sequence number after each sealed version that changed it. */
  private readonly sequences = new Map<string, { version: bigint; value: bigint }[]>();
  private readonly ledger: Transaction[] = [];
  private readonly byHash = new Map<string, Transaction>();
  private readonly blocks: Block[] = [];
  private pending: PendingTransaction[] = [];
  private clock = FIRST_BLOCK_TIME;
  private failures: number[] = [];
  /** Blocks below this height, and state before the version that begins it, are pruned (410). */
  private oldestHeight = 0;
  private server: Server | undefined;

  private constructor(private readonly options: AptosStandInOptions) {
    this.chainId = options.chainId ?? 4;
    this.pageSize = options.pageSize ?? 100;
    this.assets.set(APT_METADATA, {
      address: APT_METADATA,
      name: 'Aptos Coin',
      symbol: 'APT',
      decimals: 8,
      iconUri: '',
      projectUri: '',
    });
  }

  /** A stand-in with its genesis block, listening on 127.0.0.1 at a free port. */
  static async start(options: AptosStandInOptions = {}): Promise<AptosStandIn> {
    const standIn = new AptosStandIn(options);
    standIn.genesis();
    await standIn.listen();
    return standIn;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** A new fungible asset at a fresh random metadata address. */
  createAsset(metadata: {
    name: string;
    symbol: string;
    decimals: number;
    iconUri?: string;
    projectUri?: string;
  }): AptosAsset {
    let address = randomHash();
    while (apiAddress(address) !== address || this.assets.has(address)) address = randomHash();
    const asset: AptosAsset = {
      address,
      name: metadata.name,
      symbol: metadata.symbol,
      decimals: metadata.decimals,
      iconUri: metadata.iconUri ?? '',
      projectUri: metadata.projectUri ?? '',
    };
    this.assets.set(address, asset);
    return asset;
  }

  /** The address of `owner`'s primary store of `asset` (whether it exists yet or not). */
  storeOf(owner: string, asset: string): string {
    return primaryStoreAddress(owner, asset);
  }

  /** `owner`'s balance of `asset` after every recorded operation, sealed or not. */
  balance(owner: string, asset: string): bigint {
    return this.live.get(primaryStoreAddress(owner, asset)) ?? 0n;
  }

  /** The height of the last sealed block. */
  height(): number {
    return this.blocks[this.blocks.length - 1]!.height;
  }

  /** The version of the last sealed transaction. */
  ledgerVersion(): bigint {
    return this.blocks[this.blocks.length - 1]!.last;
  }

  /** Every transaction of the sealed block at `height` (block metadata, user, state checkpoint), as the API writes them. */
  transactionsOf(height: number): TransactionJson[] {
    const block = this.blocks[height];
    if (block === undefined) throw new Error(`no block at height ${height}`);
    return structuredClone(this.ledger.slice(Number(block.first), Number(block.last) + 1));
  }

  /** Answers the next `count` requests with `status` (an ApiErrorJson), whatever they ask. */
  failNext(count: number, status = 503): void {
    for (let index = 0; index < count; index++) this.failures.push(status);
  }

  /**
   * Prunes the blocks below `height` and the state before the version that begins it, as a node
   * whose ledger pruner has run: their blocks answer 410 `block_pruned`, state queries 410
   * `version_pruned`, and `GET /v1` says `oldest_block_height` and `oldest_ledger_version`.
   */
  prune(height: number): void {
    if (height > this.height()) throw new Error(`cannot prune above the newest block ${this.height()}`);
    this.oldestHeight = Math.max(this.oldestHeight, height);
  }

  /** Mints `amount` octas of APT to `owner`: a transaction of `FAUCET` with one Deposit event and no Withdraw. */
  fund(owner: string, amount: bigint | number, options: OperationOptions = {}): string {
    const to = fullAddress(owner);
    const octas = amountOf(amount);
    const payload = entryFunction('0x1::aptos_coin::mint', [], [to, octas.toString()]);
    return this.execute(FAUCET, options, payload, (move) => [
      faEvent(FA_DEPOSIT, move(to, APT_METADATA, octas), octas),
    ]);
  }

  /**
   * A user transaction signed by `sender` that moves each leg in order: a Withdraw event from the
   * leg's `from` store, then a Deposit event to its `to` store.
   */
  transfer(operation: { sender: string; legs: TransferLeg[] } & OperationOptions): string {
    const legs = operation.legs.map((leg) => ({
      from: fullAddress(leg.from),
      to: fullAddress(leg.to),
      asset: this.assetAddress(leg.asset),
      amount: amountOf(leg.amount),
    }));
    const first = legs[0];
    const payload = entryFunction(
      '0x1::primary_fungible_store::transfer',
      [FA_METADATA],
      first === undefined ? [] : [{ inner: apiAddress(first.asset) }, first.to, first.amount.toString()],
    );
    return this.execute(operation.sender, operation, payload, (move) =>
      legs.flatMap((leg) => [
        faEvent(FA_WITHDRAW, move(leg.from, leg.asset, -leg.amount), leg.amount),
        faEvent(FA_DEPOSIT, move(leg.to, leg.asset, leg.amount), leg.amount),
      ]),
    );
  }

  /** New units of `asset` in `to`'s store: a Deposit event only. */
  mint(operation: { sender: string; to: string; asset: string; amount: bigint | number } & OperationOptions): string {
    const to = fullAddress(operation.to);
    const asset = this.assetAddress(operation.asset);
    const amount = amountOf(operation.amount);
    const sender = fullAddress(operation.sender);
    const payload = entryFunction(`${sender}::managed_asset::mint`, [], [to, amount.toString()]);
    return this.execute(sender, operation, payload, (move) => [faEvent(FA_DEPOSIT, move(to, asset, amount), amount)]);
  }

  /** Units of `asset` taken out of `from`'s store and destroyed: a Withdraw event only. */
  burn(operation: { sender: string; from: string; asset: string; amount: bigint | number } & OperationOptions): string {
    const from = fullAddress(operation.from);
    const asset = this.assetAddress(operation.asset);
    const amount = amountOf(operation.amount);
    const sender = fullAddress(operation.sender);
    const payload = entryFunction(`${sender}::managed_asset::burn`, [], [from, amount.toString()]);
    return this.execute(sender, operation, payload, (move) => [
      faEvent(FA_WITHDRAW, move(from, asset, -amount), amount),
    ]);
  }

  /** A transaction that aborted: `success: false`, no Deposit or Withdraw, only the fee charged. */
  fail(operation: { sender: string } & OperationOptions): string {
    const sender = fullAddress(operation.sender);
    const payload = entryFunction(
      '0x1::primary_fungible_store::transfer',
      [FA_METADATA],
      [{ inner: '0xa' }, sender, '1000000000000'],
    );
    return this.execute(
      sender,
      operation,
      payload,
      () => [],
      'Move abort in 0x1::fungible_asset: EINSUFFICIENT_BALANCE(0x10004): The balance is insufficient to withdraw.',
    );
  }

  /** APT moved as a coin not yet migrated: `CoinWithdraw` and `CoinDeposit` events (no FA events); the stores move. */
  coinTransfer(
    operation: { sender: string; from: string; to: string; amount: bigint | number } & OperationOptions,
  ): string {
    const from = fullAddress(operation.from);
    const to = fullAddress(operation.to);
    const amount = amountOf(operation.amount);
    const payload = entryFunction('0x1::coin::transfer', [APT_COIN_TYPE], [to, amount.toString()]);
    return this.execute(operation.sender, operation, payload, (move) => {
      move(from, APT_METADATA, -amount);
      move(to, APT_METADATA, amount);
      return [
        moduleEvent(COIN_WITHDRAW, { account: from, amount: amount.toString(), coin_type: APT_COIN_TYPE }),
        moduleEvent(COIN_DEPOSIT, { account: to, amount: amount.toString(), coin_type: APT_COIN_TYPE }),
      ];
    });
  }

  /**
   * Seals the recorded transactions into the next block (block metadata, them, state checkpoint) at
   * `at` (µs; the clock's next second by default) and returns its height.
   */
  seal(options: { at?: bigint | number } = {}): number {
    const previous = this.blocks[this.blocks.length - 1]!;
    const timestamp = options.at === undefined ? this.clock : BigInt(options.at);
    if (timestamp <= previous.timestamp) throw new Error(`block time ${timestamp} is not after ${previous.timestamp}`);
    this.clock = timestamp + 1_000_000n;
    const height = previous.height + 1;
    const hash = randomHash();
    const first = previous.last + 1n;
    let version = first;
    this.append(this.blockMetadata(version++, height, hash, timestamp));
    for (const transaction of this.pending) this.append(this.userTransaction(transaction, version++, timestamp));
    this.pending = [];
    this.append({
      ...common('state_checkpoint_transaction', version, randomHash(), true, EXECUTED, '0'),
      state_checkpoint_hash: randomHash(),
      changes: [],
      timestamp: timestamp.toString(),
    });
    this.blocks.push({ height, hash, timestamp, first, last: version });
    return height;
  }

  /** Seals `count` blocks with no user transactions (the ones recorded go into the first); returns the last height. */
  sealEmpty(count: number): number {
    for (let index = 0; index < count; index++) this.seal();
    return this.height();
  }

  private assetAddress(asset: string): string {
    const address = fullAddress(asset);
    if (!this.assets.has(address)) throw new Error(`no fungible asset at ${asset}`);
    return address;
  }

  /**
   * Records one user transaction: `body` moves balances (through `move`, which returns the store
   * and refuses a balance below 0 or above u64) and gives the events; then the fee is charged to the
   * sender's APT and the FeeStatement event added. Nothing is recorded when anything throws.
   */
  private execute(
    senderAddress: string,
    options: OperationOptions,
    payload: Record<string, unknown>,
    body: (move: (owner: string, asset: string, delta: bigint) => string) => EventJson[],
    abort?: string,
  ): string {
    const sender = fullAddress(senderAddress);
    const fee = amountOf(options.fee ?? DEFAULT_FEE);
    const balances = new Map<string, { owner: string; asset: string; balance: bigint }>();
    const move = (owner: string, asset: string, delta: bigint): string => {
      const store = primaryStoreAddress(owner, asset);
      const before = balances.get(store)?.balance ?? this.live.get(store) ?? 0n;
      const after = before + delta;
      if (after < 0n) {
        throw new Error(`${owner} has ${before} of ${apiAddress(asset)}, not ${-delta} (store ${store})`);
      }
      if (after > U64_MAX) throw new Error(`the balance of store ${store} would exceed u64`);
      balances.set(store, { owner: fullAddress(owner), asset, balance: after });
      return store;
    };
    const events = abort === undefined ? body(move) : [];
    if (fee > 0n) move(sender, APT_METADATA, -fee);
    const gasUnitPrice = fee % 100n === 0n ? 100n : 1n;
    const gasUsed = fee / gasUnitPrice;
    events.push(
      moduleEvent(FEE_STATEMENT, {
        execution_gas_units: gasUsed.toString(),
        io_gas_units: '0',
        storage_fee_octas: '0',
        storage_fee_refund_octas: '0',
        total_charge_gas_units: gasUsed.toString(),
      }),
    );
    for (const [store, { owner, asset, balance }] of balances) {
      this.live.set(store, balance);
      if (!this.stores.has(store)) this.stores.set(store, { address: store, owner, asset, history: [] });
    }
    const sequenceNumber = this.nextSequence.get(sender) ?? 0n;
    this.nextSequence.set(sender, sequenceNumber + 1n);
    const hash = randomHash();
    this.pending.push({
      hash,
      sender,
      sequenceNumber,
      success: abort === undefined,
      vmStatus: abort ?? EXECUTED,
      events,
      writes: [...balances].map(([store, { balance }]) => ({ store, balance })),
      omitObjectCore: options.omitObjectCore === true,
      gasUsed,
      gasUnitPrice,
      payload,
    });
    return hash;
  }

  private append(transaction: Transaction): void {
    this.ledger.push(transaction);
    this.byHash.set(transaction.hash, transaction);
  }

  /** Block 0: the genesis transaction at version 0, which gives the faucet its APT. */
  private genesis(): void {
    const store = primaryStoreAddress(FAUCET, APT_METADATA);
    this.stores.set(store, {
      address: store,
      owner: FAUCET,
      asset: APT_METADATA,
      history: [{ version: 0n, value: FAUCET_GENESIS_BALANCE }],
    });
    this.live.set(store, FAUCET_GENESIS_BALANCE);
    this.nextSequence.set(FAUCET, 0n);
    this.sequences.set(FAUCET, [{ version: 0n, value: 0n }]);
    this.append({
      ...common('genesis_transaction', 0n, randomHash(), true, EXECUTED, '0'),
      state_checkpoint_hash: randomHash(),
      changes: [...this.storeChanges(store, FAUCET_GENESIS_BALANCE, false), accountChange(FAUCET, 0n)],
      payload: { type: 'write_set_payload', write_set: { type: 'direct_write_set', changes: [], events: [] } },
      events: [],
    });
    this.blocks.push({ height: 0, hash: randomHash(), timestamp: 0n, first: 0n, last: 0n });
  }

  private blockMetadata(version: bigint, height: number, hash: string, timestamp: bigint): Transaction {
    const round = height.toString();
    return {
      ...common('block_metadata_transaction', version, randomHash(), true, EXECUTED, '0'),
      state_checkpoint_hash: null,
      changes: [
        writeResource('0x1', randomHash(), '0x1::block::BlockResource', {
          epoch_interval: '7200000000',
          height: round,
          new_block_events: {
            counter: (BigInt(height) + 1n).toString(),
            guid: { id: { addr: '0x1', creation_num: '3' } },
          },
          update_epoch_interval_events: { counter: '0', guid: { id: { addr: '0x1', creation_num: '4' } } },
        }),
        writeResource('0x1', randomHash(), '0x1::timestamp::CurrentTimeMicroseconds', {
          microseconds: timestamp.toString(),
        }),
      ],
      id: hash,
      epoch: '1',
      round,
      events: [
        {
          guid: { creation_number: '3', account_address: '0x1' },
          sequence_number: round,
          type: NEW_BLOCK_EVENT,
          data: {
            epoch: '1',
            failed_proposer_indices: [],
            hash,
            height: round,
            previous_block_votes_bitvec: '0x',
            proposer: PROPOSER,
            round,
            time_microseconds: timestamp.toString(),
          },
        },
      ],
      previous_block_votes_bitvec: [],
      proposer: PROPOSER,
      failed_proposer_indices: [],
      timestamp: timestamp.toString(),
    };
  }

  /** A recorded transaction as sealed at `version`; its writes go into the state history. */
  private userTransaction(pending: PendingTransaction, version: bigint, timestamp: bigint): Transaction {
    const changes: WriteSetChangeJson[] = [];
    for (const { store, balance } of pending.writes) {
      this.stores.get(store)!.history.push({ version, value: balance });
      changes.push(...this.storeChanges(store, balance, pending.omitObjectCore));
    }
    const sequence = pending.sequenceNumber + 1n;
    const history = this.sequences.get(pending.sender) ?? [];
    history.push({ version, value: sequence });
    this.sequences.set(pending.sender, history);
    changes.push(accountChange(pending.sender, sequence));
    return {
      ...common(
        'user_transaction',
        version,
        pending.hash,
        pending.success,
        pending.vmStatus,
        pending.gasUsed.toString(),
      ),
      state_checkpoint_hash: null,
      changes,
      sender: apiAddress(pending.sender),
      sequence_number: pending.sequenceNumber.toString(),
      max_gas_amount: '200000',
      gas_unit_price: pending.gasUnitPrice.toString(),
      expiration_timestamp_secs: (timestamp / 1_000_000n + 600n).toString(),
      payload: pending.payload,
      signature: {
        public_key: randomHash(),
        signature: `${randomHash()}${randomHash().slice(2)}`,
        type: 'ed25519_signature',
      },
      events: pending.events,
      timestamp: timestamp.toString(),
    };
  }

  /** The writes of a store's resource group: its `FungibleStore` and (unless omitted) its `ObjectCore`. */
  private storeChanges(address: string, balance: bigint, omitObjectCore: boolean): WriteSetChangeJson[] {
    const store = this.stores.get(address)!;
    const stateKeyHash = randomHash();
    const changes = [writeResource(address, stateKeyHash, FUNGIBLE_STORE, fungibleStoreData(store.asset, balance))];
    if (!omitObjectCore) changes.push(writeResource(address, stateKeyHash, OBJECT_CORE, objectCoreData(store)));
    return changes;
  }

  private async listen(): Promise<void> {
    const server = createServer((request, response) => this.serve(request, response));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}/v1`;
  }

  private serve(request: IncomingMessage, response: ServerResponse): void {
    request.resume();
    const url = new URL(request.url ?? '/', 'http://stand-in');
    const call: AptosCall = {
      path: url.pathname,
      query: Object.fromEntries(url.searchParams.entries()),
      authorization: request.headers.authorization,
      status: 0,
    };
    this.calls.push(call);
    const send = (status: number, body: string, headers: Record<string, string> = {}) => {
      call.status = status;
      const write = () => {
        response.writeHead(status, { 'content-type': 'application/json', ...headers });
        response.end(body);
      };
      if (this.delayMs > 0) setTimeout(write, this.delayMs);
      else write();
    };
    const error = (status: number, code: string, message: string, headers?: Record<string, string>) =>
      send(status, JSON.stringify({ message, error_code: code, vm_error_code: null } satisfies ApiErrorJson), headers);
    const failure = this.failures.shift();
    if (failure !== undefined) {
      error(failure, 'internal_error', `The stand-in was told to fail this request with ${failure}`);
      return;
    }
    if (this.options.apiKey !== undefined && request.headers.authorization !== `Bearer ${this.options.apiKey}`) {
      error(401, 'unauthorized', 'A valid API key is required (Authorization: Bearer <key>)');
      return;
    }
    const headers = this.ledgerHeaders();
    try {
      if (request.method !== 'GET') throw new ApiFailure(405, 'web_framework_error', 'Method not allowed');
      send(200, this.answer(url), headers);
    } catch (thrown) {
      if (thrown instanceof ApiFailure) error(thrown.status, thrown.code, thrown.message, headers);
      else error(500, 'internal_error', thrown instanceof Error ? thrown.message : String(thrown), headers);
    }
  }

  /** The body of the answer to a GET of `url`, or an ApiFailure. */
  private answer(url: URL): string {
    const segments = url.pathname.replace(/\/+$/, '').split('/').slice(1).map(decodeURIComponent);
    if (segments[0] !== 'v1') throw notFound(url.pathname);
    const [, kind, first, second, third] = segments;
    const length = segments.length;
    const query = url.searchParams;
    if (length === 1) return JSON.stringify(this.ledgerInfo());
    if (kind === 'blocks' && length === 4 && (first === 'by_height' || first === 'by_version')) {
      const byHeight = first === 'by_height';
      const value = integer(second!, byHeight ? 'block_height' : 'version');
      const block = byHeight
        ? value <= BigInt(this.height())
          ? this.blocks[Number(value)]
          : undefined
        : this.blockAt(value);
      if (block !== undefined && block.height < this.oldestHeight) {
        throw new ApiFailure(410, 'block_pruned', `Block(${block.height}) has been pruned`);
      }
      if (block === undefined) {
        throw byHeight
          ? new ApiFailure(404, 'block_not_found', `Block not found by Block height(${value})`)
          : versionNotFound(value);
      }
      return JSON.stringify(this.blockJson(block, query.get('with_transactions') === 'true'));
    }
    if (kind === 'transactions' && length === 2) return JSON.stringify(this.transactionPage(query));
    if (kind === 'transactions' && length === 4 && first === 'by_version') {
      const version = integer(second!, 'txn_version');
      if (version > this.ledgerVersion()) {
        throw new ApiFailure(404, 'transaction_not_found', `Transaction not found by Ledger version(${version})`);
      }
      return JSON.stringify(this.ledger[Number(version)]);
    }
    if (kind === 'transactions' && length === 4 && first === 'by_hash') {
      const transaction = this.byHash.get(second!.toLowerCase());
      if (transaction === undefined || BigInt(transaction.version) > this.ledgerVersion()) {
        throw new ApiFailure(404, 'transaction_not_found', `Transaction not found by Transaction hash(${second})`);
      }
      return JSON.stringify(transaction);
    }
    if (kind === 'accounts' && length === 5 && (second === 'balance' || second === 'resource')) {
      const address = parseAddress(first!);
      if (address === undefined) throw invalid(`Invalid address: ${first}`);
      const version = this.lookupVersion(query.get('ledger_version'));
      return second === 'balance'
        ? this.balanceAt(address, third!, version)
        : this.resourceAt(address, third!, version);
    }
    throw notFound(url.pathname);
  }

  private ledgerInfo(): LedgerInfoJson & { git_hash: string } {
    const last = this.blocks[this.blocks.length - 1]!;
    return {
      chain_id: this.chainId,
      epoch: '1',
      ledger_version: last.last.toString(),
      oldest_ledger_version: this.blocks[this.oldestHeight]!.first.toString(),
      ledger_timestamp: last.timestamp.toString(),
      node_role: 'full_node',
      oldest_block_height: String(this.oldestHeight),
      block_height: last.height.toString(),
      git_hash: '0000000000000000000000000000000000000000',
    };
  }

  private ledgerHeaders(): Record<string, string> {
    const info = this.ledgerInfo();
    return {
      'x-aptos-chain-id': String(info.chain_id),
      'x-aptos-ledger-version': info.ledger_version,
      'x-aptos-ledger-oldest-version': info.oldest_ledger_version,
      'x-aptos-ledger-timestampusec': info.ledger_timestamp,
      'x-aptos-epoch': info.epoch,
      'x-aptos-block-height': info.block_height,
      'x-aptos-oldest-block-height': info.oldest_block_height,
    };
  }

  private blockAt(version: bigint): Block | undefined {
    return this.blocks.find((block) => block.first <= version && version <= block.last);
  }

  private blockJson(block: Block, withTransactions: boolean): BlockJson {
    const json: BlockJson = {
      block_height: block.height.toString(),
      block_hash: block.hash,
      block_timestamp: block.timestamp.toString(),
      first_version: block.first.toString(),
      last_version: block.last.toString(),
    };
    if (withTransactions) {
      const end = Math.min(Number(block.last) + 1, Number(block.first) + this.pageSize);
      json.transactions = this.ledger.slice(Number(block.first), end);
    }
    return json;
  }

  /** `GET /v1/transactions`: as aptos-core's `Page`, the limit is capped at 100 and a start past the ledger is invalid input. */
  private transactionPage(query: URLSearchParams): Transaction[] {
    const ledgerVersion = this.ledgerVersion();
    const limitText = query.get('limit');
    const requested = limitText === null ? DEFAULT_TRANSACTIONS_PAGE : Number(integer(limitText, 'limit'));
    if (requested === 0) throw invalid('Given limit value (0) must not be zero');
    const limit = BigInt(Math.min(requested, MAX_TRANSACTIONS_PAGE));
    const startText = query.get('start');
    const lastPage = ledgerVersion > limit - 1n ? ledgerVersion - (limit - 1n) : 0n;
    const start = startText === null ? lastPage : integer(startText, 'start');
    const oldest = this.blocks[this.oldestHeight]!.first;
    if (start < oldest) throw new ApiFailure(410, 'version_pruned', `Ledger version(${start}) has been pruned`);
    if (start > ledgerVersion) {
      throw invalid(
        `Given start value (${start}) is higher than the current ledger version, it must be < ${ledgerVersion}`,
      );
    }
    const end = start + limit > ledgerVersion + 1n ? ledgerVersion + 1n : start + limit;
    return this.ledger.slice(Number(start), Number(end));
  }

  /** The version a state query reads: `ledger_version` or the newest; 404 `version_not_found` past the ledger. */
  private lookupVersion(text: string | null): bigint {
    if (text === null) return this.ledgerVersion();
    const version = integer(text, 'ledger_version');
    if (version > this.ledgerVersion()) throw versionNotFound(version);
    const oldest = this.blocks[this.oldestHeight]!.first;
    if (version < oldest) throw new ApiFailure(410, 'version_pruned', `Ledger version(${version}) has been pruned`);
    return version;
  }

  /** `GET /v1/accounts/{address}/balance/{asset_type}`: a bare JSON integer, written from the bigint's digits. */
  private balanceAt(owner: string, assetType: string, version: bigint): string {
    let metadata: string | undefined;
    if (assetType.includes('::')) {
      const tag = normalTypeTag(assetType);
      if (tag === undefined) throw invalid(`Invalid asset type: ${assetType}`);
      // Coin types other than APT have no paired fungible asset in this model, and no CoinStore.
      if (tag !== APT_COIN_TYPE) return '0';
      metadata = APT_METADATA;
    } else {
      metadata = parseAddress(assetType);
      if (metadata === undefined) throw invalid(`Invalid asset type: ${assetType}`);
    }
    const store = this.stores.get(primaryStoreAddress(owner, metadata));
    return (store === undefined ? 0n : (valueAt(store.history, version) ?? 0n)).toString();
  }

  /** `GET /v1/accounts/{address}/resource/{resource_type}` for the resources this model has. */
  private resourceAt(address: string, resourceType: string, version: bigint): string {
    const type = normalTypeTag(resourceType);
    if (type === undefined) throw invalid(`Invalid resource type: ${resourceType}`);
    const store = this.stores.get(address);
    const balance = store === undefined ? undefined : valueAt(store.history, version);
    let data: Record<string, unknown> | undefined;
    if (store !== undefined && balance !== undefined && type === FUNGIBLE_STORE) {
      data = fungibleStoreData(store.asset, balance);
    } else if (store !== undefined && balance !== undefined && type === OBJECT_CORE) {
      data = objectCoreData(store);
    } else if (type === FA_METADATA && this.assets.has(address)) {
      const asset = this.assets.get(address)!;
      data = {
        decimals: asset.decimals,
        icon_uri: asset.iconUri,
        name: asset.name,
        project_uri: asset.projectUri,
        symbol: asset.symbol,
      };
    } else if (type === ACCOUNT_RESOURCE) {
      const sequence = valueAt(this.sequences.get(address) ?? [], version);
      if (sequence !== undefined) data = accountData(address, sequence);
    }
    if (data === undefined) {
      throw new ApiFailure(
        404,
        'resource_not_found',
        `Resource not found by Address(${apiAddress(address)}), Struct tag(${type}) and Ledger version(${version})`,
      );
    }
    return JSON.stringify({ type, data });
  }
}

/** The value after `version`: the last entry at or before it, undefined when there is none. */
function valueAt(history: { version: bigint; value: bigint }[], version: bigint): bigint | undefined {
  for (let index = history.length - 1; index >= 0; index--) {
    if (history[index]!.version <= version) return history[index]!.value;
  }
  return undefined;
}

function integer(text: string, name: string): bigint {
  if (!/^\d{1,20}$/.test(text) || BigInt(text) > U64_MAX) throw invalid(`Invalid ${name}: ${text}`);
  return BigInt(text);
}

function invalid(message: string): ApiFailure {
  return new ApiFailure(400, 'invalid_input', message);
}

function versionNotFound(version: bigint): ApiFailure {
  return new ApiFailure(404, 'version_not_found', `Ledger version not found by Ledger version(${version})`);
}

function notFound(path: string): ApiFailure {
  return new ApiFailure(404, 'web_framework_error', `Not found: ${path}`);
}

/** The fields every transaction type has. */
function common(type: string, version: bigint, hash: string, success: boolean, vmStatus: string, gasUsed: string) {
  return {
    type,
    version: version.toString(),
    hash,
    state_change_hash: randomHash(),
    event_root_hash: randomHash(),
    gas_used: gasUsed,
    success,
    vm_status: vmStatus,
    accumulator_root_hash: randomHash(),
  };
}

function entryFunction(name: string, typeArguments: string[], args: unknown[]): Record<string, unknown> {
  return { type: 'entry_function_payload', function: name, type_arguments: typeArguments, arguments: args };
}

function moduleEvent(type: string, data: Record<string, unknown>): EventJson {
  return { guid: { ...MODULE_EVENT_GUID }, sequence_number: '0', type, data };
}

function faEvent(type: string, store: string, amount: bigint): EventJson {
  return moduleEvent(type, { store, amount: amount.toString() });
}

function writeResource(
  address: string,
  stateKeyHash: string,
  type: string,
  data: Record<string, unknown>,
): WriteSetChangeJson {
  return { address: apiAddress(address), state_key_hash: stateKeyHash, data: { type, data }, type: 'write_resource' };
}

function fungibleStoreData(asset: string, balance: bigint): Record<string, unknown> {
  return { balance: balance.toString(), frozen: false, metadata: { inner: apiAddress(asset) } };
}

function objectCoreData(store: Store): Record<string, unknown> {
  return {
    allow_ungated_transfer: false,
    guid_creation_num: '1125899906842625',
    owner: apiAddress(store.owner),
    transfer_events: { counter: '0', guid: { id: { addr: store.address, creation_num: '1125899906842624' } } },
  };
}

function accountData(address: string, sequence: bigint): Record<string, unknown> {
  const handle = (creation: string) => ({
    counter: '0',
    guid: { id: { addr: apiAddress(address), creation_num: creation } },
  });
  return {
    authentication_key: fullAddress(address),
    coin_register_events: handle('0'),
    guid_creation_num: '2',
    key_rotation_events: handle('1'),
    rotation_capability_offer: { for: { vec: [] } },
    sequence_number: sequence.toString(),
    signer_capability_offer: { for: { vec: [] } },
  };
}

function accountChange(address: string, sequence: bigint): WriteSetChangeJson {
  return writeResource(address, randomHash(), ACCOUNT_RESOURCE, accountData(address, sequence));
}
