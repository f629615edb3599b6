import { randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { base58 } from '@scure/base';

/**
 * A Sui full node's gRPC API (`sui.rpc.v2`, what full nodes serve since JSON-RPC was removed) over
 * an in-memory model of the ledger's balances, for the Sui follower's tests: no Sui node or Move VM
 * runs here, so this models what the API shows. It speaks gRPC-web over HTTP/1.1 as
 * `@mysten/sui`'s `SuiGrpcClient` does (`@protobuf-ts/grpcweb-transport`): POST
 * `/<package.Service>/<Method>` with `application/grpc-web-text` (base64, the client's default) or
 * `application/grpc-web+proto` (binary) bodies of frames (a flag byte, a 4-byte big-endian length,
 * a protobuf message). Messages are decoded and encoded with the package's own message types (the
 * `MethodInfo`s of `client.ledgerService` and `client.stateService`), so they are what a node sends.
 *
 * Answers: 200 with the data frame and then a trailer frame (`grpc-status:0`), in the format the
 * request came in (`application/grpc-web-text+proto` or `application/grpc-web+proto`), and the
 * `x-sui-*` headers a node adds (chain id, chain, epoch, checkpoint height, timestamp, lowest
 * available checkpoints). Errors are trailers-only answers, as tonic-web sends them: 200, no body,
 * `grpc-status` and `grpc-message` (percent-encoded as gRPC does) in the HTTP headers; the client
 * raises them as `RpcError` with the code's name (`NOT_FOUND`). `failNext` can put the status in a
 * trailer frame instead, or answer a bare HTTP status as a proxy would.
 *
 * What is modelled:
 * - Coins: SUI (`SUI_TYPE`, 9 decimals) and those `createCoin` makes, at a random package address
 *   (no transaction publishes them; their metadata is there from the start). Coin types are written
 *   in full (`0x` and 64 hex digits), as the API writes them; short forms are accepted everywhere.
 * - Balances per (owner, coin type). Each operation (`fund`, `transfer`, `mint`, `burn`, `fail`) is
 *   one executed transaction with a random base58 digest, recorded until `seal` puts the recorded
 *   ones into the next checkpoint; only sealed checkpoints and their state are visible through the
 *   API. Every operation but `fund` charges gas in SUI to its gas owner (the sender unless
 *   `gasOwner` is given): computation + storage - rebate, included in that owner's SUI balance
 *   change as on Sui. A transaction's balance changes are the net change per (address, coin type)
 *   over its movements and the gas, in order of first appearance, zero nets left out. An operation
 *   that would take a balance below zero (or above u64) is refused: it throws and records nothing.
 * - Checkpoints: 0 is the genesis checkpoint `start` seals (no transactions; its digest is the
 *   chain id); each later one holds the transactions recorded since, with a summary (previous
 *   digest, epoch 0, total network transactions, the epoch's rolling gas, a timestamp from a clock
 *   that starts at `GENESIS_TIME_MS` and moves 1 s a checkpoint) and contents (transaction and
 *   effects digests). Balances are kept per checkpoint; the API answers the latest sealed state.
 * - `prune` makes checkpoints below a sequence number answer NOT_FOUND (`Checkpoint 3 not found`,
 *   as a node whose pruner has run) and moves `lowestAvailableCheckpoint`.
 *
 * Not modelled: objects (coins as objects, `changedObjects`, gas coins, object ids of the
 * balances), transaction kinds and inputs, signatures, events, epochs past 0, system transactions
 * (a real checkpoint starts with a consensus commit prologue), BCS fields, address balances.
 *
 * Served: `sui.rpc.v2.LedgerService/GetServiceInfo`, `LedgerService/GetCheckpoint` (by sequence
 * number, by digest, or the latest; its read mask honoured at every depth, with the node's default
 * `sequence_number,digest` and INVALID_ARGUMENT for a path the message does not have),
 * `sui.rpc.v2.StateService/GetBalance`, `StateService/ListBalances` (pages of 50 unless told, at
 * most 1000) and `StateService/GetCoinInfo`. Every other method answers UNIMPLEMENTED.
 */

/** gRPC status codes, as `grpc-status` carries them. */
export const GrpcCode = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

/** The native coin's type, in the full form the API writes. */
export const SUI_TYPE = `0x${'2'.padStart(64, '0')}::sui::SUI`;
/** The sender and gas owner of `fund`'s transactions (Sui's system transactions name the zero address). */
export const SYSTEM_ADDRESS = `0x${'0'.repeat(64)}`;
/** The timestamp of checkpoint 0, in ms since the Unix epoch (2026-01-01T00:00:00Z); each later checkpoint is 1 s on. */
export const GENESIS_TIME_MS = 1_767_225_600_000;
/** The gas each operation charges unless told otherwise, in MIST: net computation + storage - rebate = 2500. */
export const DEFAULT_GAS: Readonly<GasFigures> = {
  computationCost: 1000n,
  storageCost: 2000n,
  storageRebate: 500n,
  nonRefundableStorageFee: 5n,
};
/** The gas price and budget every user transaction's gas payment names. */
export const GAS_PRICE = 1000n;
export const GAS_BUDGET = 10_000_000n;
/** SUI's total supply in MIST (10 billion SUI), as `GetCoinInfo` reports it. */
export const SUI_TOTAL_SUPPLY = 10_000_000_000n * 1_000_000_000n;
/** What `server` in `GetServiceInfo` says. */
export const SERVER_NAME = 'sui-node-stand-in';

const U64_MAX = 2n ** 64n - 1n;
const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 1000;
/** The node's read mask for `GetCheckpoint` when the request has none. */
const CHECKPOINT_READ_MASK_DEFAULT = ['sequence_number', 'digest'];
/** `ExecutionError.kind` MOVE_ABORT and `CoinTreasury.supplyState` / `coinRegulatedState` values. */
const MOVE_ABORT = 13;
const SUPPLY_UNKNOWN = 0;
const SUPPLY_FIXED = 1;
const UNREGULATED = 2;
const GRPC_CODE_NAMES = Object.fromEntries(Object.entries(GrpcCode).map(([name, code]) => [code, name])) as Record<
  number,
  string
>;

type LedgerService = SuiGrpcClient['ledgerService'];
type StateService = SuiGrpcClient['stateService'];
type Method = LedgerService['methods'][number];
type MessageType = Method['O'];
type Call = (input: never) => { response: Promise<unknown> };
type RequestOf<F extends Call> = Parameters<F>[0];
type ResponseOf<F extends Call> = Awaited<ReturnType<F>['response']>;

export type GetServiceInfoResponse = ResponseOf<LedgerService['getServiceInfo']>;
export type GetCheckpointRequest = RequestOf<LedgerService['getCheckpoint']>;
export type GetCheckpointResponse = ResponseOf<LedgerService['getCheckpoint']>;
export type Checkpoint = NonNullable<GetCheckpointResponse['checkpoint']>;
export type CheckpointSummary = NonNullable<Checkpoint['summary']>;
export type ExecutedTransaction = Checkpoint['transactions'][number];
export type TransactionEffects = NonNullable<ExecutedTransaction['effects']>;
export type ExecutionStatus = NonNullable<TransactionEffects['status']>;
export type GasCostSummary = NonNullable<TransactionEffects['gasUsed']>;
export type BalanceChange = ExecutedTransaction['balanceChanges'][number];
export type Timestamp = NonNullable<CheckpointSummary['timestamp']>;
export type GetBalanceRequest = RequestOf<StateService['getBalance']>;
export type GetBalanceResponse = ResponseOf<StateService['getBalance']>;
export type ListBalancesRequest = RequestOf<StateService['listBalances']>;
export type ListBalancesResponse = ResponseOf<StateService['listBalances']>;
export type Balance = ListBalancesResponse['balances'][number];
export type GetCoinInfoRequest = RequestOf<StateService['getCoinInfo']>;
export type GetCoinInfoResponse = ResponseOf<StateService['getCoinInfo']>;
export type CoinMetadata = NonNullable<GetCoinInfoResponse['metadata']>;

/** How a stand-in is set up. */
export interface SuiStandInOptions {
  /** `chain` of `GetServiceInfo` and `x-sui-chain` ('localnet' unless told; a node names mainnet 'mainnet'). */
  chain?: string;
  /** The chain id: the digest of checkpoint 0 (base58 of 32 bytes); random unless told. */
  chainId?: string;
}

/** One request as the stand-in saw it. */
export interface SuiCall {
  /** `sui.rpc.v2.LedgerService`, as in the path. */
  service: string;
  /** `GetCheckpoint`, as in the path. */
  method: string;
  /** The request message as decoded (undefined for a method the stand-in does not serve). */
  request: object | undefined;
  /** The grpc-status answered; undefined when `failNext` answered a bare HTTP status. */
  code: number | undefined;
  /** The answer's HTTP status (200 for every gRPC answer, errors included). */
  httpStatus: number;
}

/** A transaction's gas, in MIST (`effects.gasUsed`). */
export interface GasFigures {
  computationCost: bigint | number;
  storageCost: bigint | number;
  storageRebate: bigint | number;
  nonRefundableStorageFee: bigint | number;
}

/** What every operation but `fund` takes. */
export interface OperationOptions {
  sender: string;
  /** Who pays the gas (a sponsor); the sender unless told. */
  gasOwner?: string;
  /** The transaction's gas; each figure not given is `DEFAULT_GAS`'s. */
  gas?: Partial<GasFigures>;
}

/** One movement of a transfer: `amount` of `coinType` from `from` to `to`. */
export interface TransferLeg {
  from: string;
  to: string;
  /** Full or short (`0x2::sui::SUI`). */
  coinType: string;
  amount: bigint | number;
}

/** A coin type and its metadata. */
export interface SuiCoin {
  coinType: string;
  decimals: number;
  name: string;
  symbol: string;
  description: string;
  iconUrl: string;
  /** The `CoinMetadata` object's id. */
  metadataId: string;
  /** The `TreasuryCap` object's id (none for SUI). */
  treasuryId: string | undefined;
}

/** `GasFigures` as recorded. */
interface Gas {
  computationCost: bigint;
  storageCost: bigint;
  storageRebate: bigint;
  nonRefundableStorageFee: bigint;
}

interface Movement {
  owner: string;
  coinType: string;
  delta: bigint;
}

interface Recorded {
  digest: string;
  effectsDigest: string;
  sender: string;
  gasOwner: string;
  price: bigint;
  budget: bigint;
  gas: Gas;
  status: ExecutionStatus;
  /** The net movements in order of first appearance, zero nets left out. */
  movements: Movement[];
  /** Minted (positive) or burnt (negative) units per coin type. */
  supply: Map<string, bigint>;
}

interface Route {
  service: string;
  method: Method;
  handle: (request: never) => object;
}

/** A read mask as a tree: `true` takes the whole field, a map only the sub-fields it names. */
type Mask = Map<string, Mask | true>;

class GrpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

interface Failure {
  /** A gRPC code (below 100) or an HTTP status. */
  status: number;
  where: 'headers' | 'trailer';
}

/** `address` in full (`0x` and 64 lowercase hex digits); undefined when it is not one. */
export function parseAddress(address: string): string | undefined {
  const match = /^(?:0x)?([0-9a-fA-F]{1,64})$/.exec(address.trim());
  return match === null ? undefined : `0x${match[1]!.toLowerCase().padStart(64, '0')}`;
}

/** `address` in full; throws when it is not a Sui address. */
export function fullAddress(address: string): string {
  const full = parseAddress(address);
  if (full === undefined) throw new Error(`not a Sui address: ${address}`);
  return full;
}

/**
 * A Move struct tag in the API's canonical form (`0x2::sui::SUI` becomes `0x0…02::sui::SUI`; type
 * parameters likewise, separated by `, `); undefined when `text` is not a struct tag.
 */
export function normalCoinType(text: string): string | undefined {
  const source = text.replace(/\s+/g, '');
  let at = 0;
  const structTag = (): string | undefined => {
    const head = /^(?:0x)?([0-9a-fA-F]{1,64})::([A-Za-z_]\w*)::([A-Za-z_]\w*)/.exec(source.slice(at));
    if (head === null) return undefined;
    at += head[0].length;
    let tag = `0x${head[1]!.toLowerCase().padStart(64, '0')}::${head[2]!}::${head[3]!}`;
    if (source[at] !== '<') return tag;
    at++;
    const parameters: string[] = [];
    for (;;) {
      const parameter = typeTag();
      if (parameter === undefined) return undefined;
      parameters.push(parameter);
      if (source[at] === ',') at++;
      else if (source[at] === '>') break;
      else return undefined;
    }
    at++;
    tag += `<${parameters.join(', ')}>`;
    return tag;
  };
  const typeTag = (): string | undefined => {
    const primitive = /^(bool|u8|u16|u32|u64|u128|u256|address|signer)(?![\w:])/.exec(source.slice(at));
    if (primitive !== null) {
      at += primitive[0].length;
      return primitive[0];
    }
    if (source.startsWith('vector<', at)) {
      at += 'vector<'.length;
      const inner = typeTag();
      if (inner === undefined || source[at] !== '>') return undefined;
      at++;
      return `vector<${inner}>`;
    }
    return structTag();
  };
  const tag = structTag();
  return tag !== undefined && at === source.length ? tag : undefined;
}

/** A random 32-byte digest in base58, as Sui writes transaction and checkpoint digests. */
export function randomDigest(): string {
  return base58.encode(randomBytes(32));
}

function isDigest(text: string): boolean {
  try {
    return base58.decode(text).length === 32;
  } catch {
    return false;
  }
}

function randomAddress(): string {
  return `0x${randomBytes(32).toString('hex')}`;
}

function amountOf(value: bigint | number, what: string): bigint {
  if (typeof value === 'number' && !Number.isSafeInteger(value)) throw new Error(`${what} is not exact: ${value}`);
  const amount = BigInt(value);
  if (amount < 0n || amount > U64_MAX) throw new Error(`${what} out of range: ${amount}`);
  return amount;
}

function timestampOf(sequence: number): Timestamp {
  const ms = GENESIS_TIME_MS + sequence * 1000;
  return { seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 };
}

function key(owner: string, coinType: string): string {
  return `${owner}|${coinType}`;
}

/** The value after `sequence`: the last entry at or before it (0 when there is none). */
function valueAt(history: { sequence: number; value: bigint }[] | undefined, sequence: number): bigint {
  if (history === undefined) return 0n;
  for (let index = history.length - 1; index >= 0; index--) {
    if (history[index]!.sequence <= sequence) return history[index]!.value;
  }
  return 0n;
}

/** A grpc-message value: UTF-8 with every byte outside printable ASCII, and `%`, percent-encoded (the gRPC spec). */
function percentEncode(text: string): string {
  let encoded = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    encoded +=
      byte >= 0x20 && byte <= 0x7e && byte !== 0x25
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return encoded;
}

function frame(flag: number, payload: Uint8Array): Buffer {
  const head = Buffer.alloc(5);
  head[0] = flag;
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

function trailerFrame(code: number, message?: string): Buffer {
  const text = message === undefined ? `grpc-status:${code}\r\n` : `grpc-status:${code}\r\ngrpc-message:${message}\r\n`;
  return frame(0x80, Buffer.from(text, 'latin1'));
}

/** A grpc-web-text body: base64, possibly several padded chunks one after the other. */
function decodeBase64(body: Buffer): Buffer {
  const chunks =
    body
      .toString('latin1')
      .replace(/\s+/g, '')
      .match(/[^=]+=*/g) ?? [];
  return Buffer.concat(chunks.map((chunk) => Buffer.from(chunk, 'base64')));
}

/** The message of the first data frame of a request body (an empty message when there is none). */
function firstMessage(bytes: Buffer): Uint8Array {
  let at = 0;
  while (at + 5 <= bytes.length) {
    const flag = bytes[at]!;
    const length = bytes.readUInt32BE(at + 1);
    if (at + 5 + length > bytes.length) throw new GrpcFailure(GrpcCode.INTERNAL, 'truncated gRPC-web frame');
    if (flag === 0) return bytes.subarray(at + 5, at + 5 + length);
    if ((flag & 0x80) === 0) throw new GrpcFailure(GrpcCode.UNIMPLEMENTED, 'compressed messages are not supported');
    at += 5 + length;
  }
  if (at !== bytes.length) throw new GrpcFailure(GrpcCode.INTERNAL, 'truncated gRPC-web frame');
  return new Uint8Array(0);
}

function readMaskTree(paths: readonly string[]): Mask {
  const root: Mask = new Map();
  for (const path of paths) {
    const segments = path.split('.');
    let node = root;
    for (const [index, segment] of segments.entries()) {
      const entry = node.get(segment);
      if (entry === true) break;
      if (index === segments.length - 1) {
        node.set(segment, true);
        break;
      }
      if (entry === undefined) {
        const child: Mask = new Map();
        node.set(segment, child);
        node = child;
      } else {
        node = entry;
      }
    }
  }
  return root;
}

/** Whether `path` names fields of `type` (by their proto names), each but the last a message. */
function validPath(type: MessageType, path: string): boolean {
  let current: MessageType | undefined = type;
  for (const segment of path.split('.')) {
    if (current === undefined) return false;
    const field: MessageType['fields'][number] | undefined = current.fields.find((each) => each.name === segment);
    if (field === undefined) return false;
    current = field.kind === 'message' ? field.T() : undefined;
  }
  return true;
}

/**
 * Leaves in `message` (of `type`) only the fields `mask` takes, at every depth: a field left out
 * gets the value a new message has (absent, an empty list, no oneof case), as the node's
 * FieldMaskTree merge leaves it.
 */
function applyMask(type: MessageType, message: Record<string, unknown>, mask: Mask): void {
  const blank = type.create() as Record<string, unknown>;
  for (const field of type.fields) {
    const entry = mask.get(field.name);
    if (entry === true) continue;
    const holder = field.oneof === undefined ? message : (message[field.oneof] as Record<string, unknown>);
    if (field.oneof !== undefined && holder.oneofKind !== field.localName) continue;
    if (entry === undefined || field.kind !== 'message') {
      const name = field.oneof ?? field.localName;
      if (blank[name] === undefined) delete message[name];
      else message[name] = blank[name];
      continue;
    }
    const value = holder[field.localName];
    const inner = field.T();
    if (Array.isArray(value)) for (const item of value) applyMask(inner, item as Record<string, unknown>, entry);
    else if (value !== undefined) applyMask(inner, value as Record<string, unknown>, entry);
  }
}

/** A SuiGrpcClient for its message types and service descriptors only (it never connects). */
let descriptors: SuiGrpcClient | undefined;

/**
 * The stand-in (see the comment at the top of this file): `start` it, record operations, `seal`
 * checkpoints, point a `SuiGrpcClient` at `url` (its `baseUrl`), and `stop` it.
 */
export class SuiStandIn {
  /** Every request, in order. */
  readonly calls: SuiCall[] = [];
  /** The API's base URL as a client is given it: `http://127.0.0.1:<port>`. */
  url = '';
  /** Milliseconds every answer waits before it is sent (a slow node). */
  delayMs = 0;
  readonly chain: string;
  /** The chain id: checkpoint 0's digest. */
  readonly chainId: string;
  private readonly coins = new Map<string, SuiCoin>();
  /** Every balance after every recorded operation, sealed or not. */
  private readonly live = new Map<string, bigint>();
  /** Every balance after each sealed checkpoint that changed it. */
  private readonly sealed = new Map<string, { sequence: number; value: bigint }[]>();
  /** The sealed supply of each coin `createCoin` made. */
  private readonly supply = new Map<string, bigint>();
  private readonly checkpoints: Checkpoint[] = [];
  private readonly byDigest = new Map<string, number>();
  private readonly routes = new Map<string, Route>();
  private pending: Recorded[] = [];
  private failures: Failure[] = [];
  private oldest = 0;
  private totalTransactions = 0n;
  private readonly rollingGas: Gas = {
    computationCost: 0n,
    storageCost: 0n,
    storageRebate: 0n,
    nonRefundableStorageFee: 0n,
  };
  private server: Server | undefined;

  private constructor(options: SuiStandInOptions) {
    this.chain = options.chain ?? 'localnet';
    if (options.chainId !== undefined && !isDigest(options.chainId)) {
      throw new Error(`not a base58 32-byte digest: ${options.chainId}`);
    }
    this.chainId = options.chainId ?? randomDigest();
    this.coins.set(SUI_TYPE, {
      coinType: SUI_TYPE,
      decimals: 9,
      name: 'Sui',
      symbol: 'SUI',
      description: '',
      iconUrl: '',
      metadataId: randomAddress(),
      treasuryId: undefined,
    });
    descriptors ??= new SuiGrpcClient({ network: 'localnet', baseUrl: 'http://127.0.0.1:1' });
    this.route(descriptors.ledgerService, 'GetServiceInfo', () => this.serviceInfo());
    this.route(descriptors.ledgerService, 'GetCheckpoint', (request: GetCheckpointRequest) =>
      this.getCheckpoint(request),
    );
    this.route(descriptors.stateService, 'GetBalance', (request: GetBalanceRequest) => this.getBalance(request));
    this.route(descriptors.stateService, 'ListBalances', (request: ListBalancesRequest) => this.listBalances(request));
    this.route(descriptors.stateService, 'GetCoinInfo', (request: GetCoinInfoRequest) => this.getCoinInfo(request));
  }

  /** A stand-in with its genesis checkpoint (0), listening on 127.0.0.1 at a free port. */
  static async start(options: SuiStandInOptions = {}): Promise<SuiStandIn> {
    const standIn = new SuiStandIn(options);
    standIn.seal();
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

  /**
   * A new coin at a fresh random package address: `0x<package>::<symbol in lower case>::<SYMBOL>`
   * (returned). Its metadata is there at every checkpoint; its supply starts at 0.
   */
  createCoin(metadata: {
    name: string;
    symbol: string;
    decimals: number;
    description?: string;
    iconUrl?: string;
  }): string {
    if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(metadata.symbol)) throw new Error(`not a Move identifier: ${metadata.symbol}`);
    if (!Number.isInteger(metadata.decimals) || metadata.decimals < 0 || metadata.decimals > 255) {
      throw new Error(`decimals out of range: ${metadata.decimals}`);
    }
    const coinType = `${randomAddress()}::${metadata.symbol.toLowerCase()}::${metadata.symbol.toUpperCase()}`;
    this.coins.set(coinType, {
      coinType,
      decimals: metadata.decimals,
      name: metadata.name,
      symbol: metadata.symbol,
      description: metadata.description ?? '',
      iconUrl: metadata.iconUrl ?? '',
      metadataId: randomAddress(),
      treasuryId: randomAddress(),
    });
    this.supply.set(coinType, 0n);
    return coinType;
  }

  /** A coin's type and metadata (SUI's or one `createCoin` made); throws for any other. */
  coin(coinType: string): SuiCoin {
    return { ...this.coins.get(this.knownCoinType(coinType))! };
  }

  /** `owner`'s balance of `coinType` after every recorded operation, sealed or not. */
  balance(owner: string, coinType: string): bigint {
    return this.live.get(key(fullAddress(owner), this.coinTypeOf(coinType))) ?? 0n;
  }

  /** `owner`'s balance of `coinType` as of the sealed checkpoint `sequence` (the latest by default): what the API answers. */
  sealedBalance(owner: string, coinType: string, sequence = this.checkpoint()): bigint {
    return valueAt(this.sealed.get(key(fullAddress(owner), this.coinTypeOf(coinType))), sequence);
  }

  /** The sequence number of the latest sealed checkpoint. */
  checkpoint(): number {
    return this.checkpoints.length - 1;
  }

  /** The sealed checkpoint `sequence` with every field the stand-in models (a copy). */
  checkpointAt(sequence: number): Checkpoint {
    const checkpoint = this.checkpoints[sequence];
    if (checkpoint === undefined) throw new Error(`no checkpoint ${sequence}`);
    return structuredClone(checkpoint);
  }

  /** The executed transactions of the sealed checkpoint `sequence`, with every field the stand-in models (a copy). */
  transactionsOf(sequence: number): ExecutedTransaction[] {
    return this.checkpointAt(sequence).transactions;
  }

  /** How many operations are recorded and not sealed yet. */
  pendingCount(): number {
    return this.pending.length;
  }

  /**
   * Answers the next `count` requests, whatever they ask, with `status`: a gRPC code (below 100;
   * UNAVAILABLE by default) in a trailers-only answer, or in a trailer frame with `where:
   * 'trailer'`; or an HTTP status (100 and up) with a plain-text body and no grpc-status, as a proxy
   * in front of a node answers (the client maps 503 to UNAVAILABLE, 429 to RESOURCE_EXHAUSTED, ...).
   */
  failNext(count: number, status: number = GrpcCode.UNAVAILABLE, where: 'headers' | 'trailer' = 'headers'): void {
    for (let index = 0; index < count; index++) this.failures.push({ status, where });
  }

  /**
   * Prunes the checkpoints below `sequence`, as a node whose pruner has run: they answer NOT_FOUND
   * and `GetServiceInfo` says `lowestAvailableCheckpoint` (and `…Objects`) is `sequence`.
   */
  prune(sequence: number): void {
    if (sequence > this.checkpoint()) throw new Error(`cannot prune above the latest checkpoint ${this.checkpoint()}`);
    this.oldest = Math.max(this.oldest, sequence);
  }

  /** Mints `amount` MIST of SUI to `owner`: a transaction of `SYSTEM_ADDRESS`, no gas, one balance change (+amount). */
  fund(owner: string, amount: bigint | number): string {
    const to = fullAddress(owner);
    return this.execute({
      sender: SYSTEM_ADDRESS,
      gasOwner: SYSTEM_ADDRESS,
      price: 1n,
      budget: 0n,
      gas: { computationCost: 0n, storageCost: 0n, storageRebate: 0n, nonRefundableStorageFee: 0n },
      moves: [{ owner: to, coinType: SUI_TYPE, delta: amountOf(amount, 'amount') }],
      supply: new Map(),
    });
  }

  /** A transaction of `sender` moving each leg (from any owner: the model does not check who may spend what), plus gas. */
  transfer(operation: OperationOptions & { legs: TransferLeg[] }): string {
    const moves = operation.legs.flatMap((leg) => {
      const coinType = this.knownCoinType(leg.coinType);
      const amount = amountOf(leg.amount, 'amount');
      return [
        { owner: fullAddress(leg.from), coinType, delta: -amount },
        { owner: fullAddress(leg.to), coinType, delta: amount },
      ];
    });
    return this.userTransaction(operation, moves, new Map());
  }

  /** New units of a coin `createCoin` made, to `to` (a positive change only), plus gas. SUI cannot be minted (use `fund`). */
  mint(operation: OperationOptions & { to: string; coinType: string; amount: bigint | number }): string {
    const coinType = this.mintableCoinType(operation.coinType);
    const amount = amountOf(operation.amount, 'amount');
    return this.userTransaction(
      operation,
      [{ owner: fullAddress(operation.to), coinType, delta: amount }],
      new Map([[coinType, amount]]),
    );
  }

  /** Units of a coin `createCoin` made, taken from `from` and destroyed (a negative change only), plus gas. */
  burn(operation: OperationOptions & { from: string; coinType: string; amount: bigint | number }): string {
    const coinType = this.mintableCoinType(operation.coinType);
    const amount = amountOf(operation.amount, 'amount');
    return this.userTransaction(
      operation,
      [{ owner: fullAddress(operation.from), coinType, delta: -amount }],
      new Map([[coinType, -amount]]),
    );
  }

  /**
   * A transaction that aborted: `effects.status` says `success: false` with a Move abort in
   * `0x2::balance::split` (or `description`), and only the gas is charged.
   */
  fail(operation: OperationOptions & { description?: string }): string {
    const description =
      operation.description ??
      'MoveAbort(MoveLocation { module: ModuleId { address: 0x2, name: Identifier("balance") }, function: 5, ' +
        'instruction: 10, function_name: Some("split") }, 2) in command 0';
    const status: ExecutionStatus = {
      success: false,
      error: {
        description,
        command: 0n,
        kind: MOVE_ABORT,
        errorDetails: {
          oneofKind: 'abort',
          abort: {
            abortCode: 2n,
            location: {
              package: `0x${'2'.padStart(64, '0')}`,
              module: 'balance',
              function: 5,
              instruction: 10,
              functionName: 'split',
            },
          },
        },
      },
    };
    return this.userTransaction(operation, [], new Map(), status);
  }

  /** Seals the recorded transactions into the next checkpoint and returns its sequence number. */
  seal(): number {
    const sequence = this.checkpoints.length;
    const previous = this.checkpoints[sequence - 1];
    const timestamp = timestampOf(sequence);
    const digest = sequence === 0 ? this.chainId : randomDigest();
    const contentDigest = randomDigest();
    const transactions = this.pending.map((recorded) => this.executed(recorded, sequence, timestamp));
    for (const recorded of this.pending) {
      for (const { owner, coinType, delta } of recorded.movements) {
        const history = this.sealed.get(key(owner, coinType)) ?? [];
        const before = history.length === 0 ? 0n : history[history.length - 1]!.value;
        if (history.length > 0 && history[history.length - 1]!.sequence === sequence) history.pop();
        history.push({ sequence, value: before + delta });
        this.sealed.set(key(owner, coinType), history);
      }
      for (const [coinType, delta] of recorded.supply) this.supply.set(coinType, this.supply.get(coinType)! + delta);
      this.rollingGas.computationCost += recorded.gas.computationCost;
      this.rollingGas.storageCost += recorded.gas.storageCost;
      this.rollingGas.storageRebate += recorded.gas.storageRebate;
      this.rollingGas.nonRefundableStorageFee += recorded.gas.nonRefundableStorageFee;
    }
    this.totalTransactions += BigInt(transactions.length);
    const summary: CheckpointSummary = {
      digest,
      epoch: 0n,
      sequenceNumber: BigInt(sequence),
      totalNetworkTransactions: this.totalTransactions,
      contentDigest,
      epochRollingGasCostSummary: { ...this.rollingGas },
      timestamp,
      commitments: [],
    };
    if (previous !== undefined) summary.previousDigest = previous.digest;
    this.checkpoints.push({
      sequenceNumber: BigInt(sequence),
      digest,
      summary,
      contents: {
        digest: contentDigest,
        version: 1,
        transactions: this.pending.map((recorded) => ({
          transaction: recorded.digest,
          effects: recorded.effectsDigest,
          signatures: [],
        })),
      },
      transactions,
    });
    this.byDigest.set(digest, sequence);
    this.pending = [];
    return sequence;
  }

  /** Seals `count` checkpoints with no transactions (the recorded ones go into the first); returns the last one's sequence number. */
  sealEmpty(count: number): number {
    for (let index = 0; index < count; index++) this.seal();
    return this.checkpoint();
  }

  private coinTypeOf(coinType: string): string {
    const normal = normalCoinType(coinType);
    if (normal === undefined) throw new Error(`not a coin type: ${coinType}`);
    return normal;
  }

  private knownCoinType(coinType: string): string {
    const normal = this.coinTypeOf(coinType);
    if (!this.coins.has(normal)) throw new Error(`no coin ${coinType}: SUI or one createCoin made`);
    return normal;
  }

  private mintableCoinType(coinType: string): string {
    const normal = this.knownCoinType(coinType);
    if (normal === SUI_TYPE)
      throw new Error("SUI's supply is fixed: it cannot be minted or burnt (use fund or transfer)");
    return normal;
  }

  private userTransaction(
    operation: OperationOptions,
    moves: Movement[],
    supply: Map<string, bigint>,
    status?: ExecutionStatus,
  ): string {
    const sender = fullAddress(operation.sender);
    const gas = {
      computationCost: amountOf(operation.gas?.computationCost ?? DEFAULT_GAS.computationCost, 'computationCost'),
      storageCost: amountOf(operation.gas?.storageCost ?? DEFAULT_GAS.storageCost, 'storageCost'),
      storageRebate: amountOf(operation.gas?.storageRebate ?? DEFAULT_GAS.storageRebate, 'storageRebate'),
      nonRefundableStorageFee: amountOf(
        operation.gas?.nonRefundableStorageFee ?? DEFAULT_GAS.nonRefundableStorageFee,
        'nonRefundableStorageFee',
      ),
    };
    return this.execute({
      sender,
      gasOwner: fullAddress(operation.gasOwner ?? sender),
      price: GAS_PRICE,
      budget: GAS_BUDGET,
      gas,
      moves,
      supply,
      status,
    });
  }

  /**
   * Records one transaction: nets its moves and the gas (charged to the gas owner's SUI) per
   * (owner, coin type) in order of first appearance, refuses a balance below 0 or above u64, and
   * applies the nets to the live balances. Nothing is recorded when anything throws.
   */
  private execute(transaction: {
    sender: string;
    gasOwner: string;
    price: bigint;
    budget: bigint;
    gas: Recorded['gas'];
    moves: Movement[];
    supply: Map<string, bigint>;
    status?: ExecutionStatus;
  }): string {
    const { gas } = transaction;
    const net = gas.computationCost + gas.storageCost - gas.storageRebate;
    const moves = [...transaction.moves, { owner: transaction.gasOwner, coinType: SUI_TYPE, delta: -net }];
    const nets = new Map<string, Movement>();
    for (const move of moves) {
      const entry = nets.get(key(move.owner, move.coinType));
      if (entry === undefined) nets.set(key(move.owner, move.coinType), { ...move });
      else entry.delta += move.delta;
    }
    const movements = [...nets.values()].filter((move) => move.delta !== 0n);
    for (const { owner, coinType, delta } of movements) {
      const before = this.live.get(key(owner, coinType)) ?? 0n;
      const after = before + delta;
      if (after < 0n) throw new Error(`${owner} has ${before} of ${coinType}, not ${-delta}`);
      if (after > U64_MAX) throw new Error(`${owner}'s balance of ${coinType} would exceed u64`);
    }
    for (const { owner, coinType, delta } of movements) {
      this.live.set(key(owner, coinType), (this.live.get(key(owner, coinType)) ?? 0n) + delta);
    }
    const digest = randomDigest();
    this.pending.push({
      digest,
      effectsDigest: randomDigest(),
      sender: transaction.sender,
      gasOwner: transaction.gasOwner,
      price: transaction.price,
      budget: transaction.budget,
      gas,
      status: transaction.status ?? { success: true },
      movements,
      supply: transaction.status === undefined ? transaction.supply : new Map(),
    });
    return digest;
  }

  private executed(recorded: Recorded, sequence: number, timestamp: Timestamp): ExecutedTransaction {
    return {
      digest: recorded.digest,
      transaction: {
        digest: recorded.digest,
        version: 1,
        sender: recorded.sender,
        gasPayment: { objects: [], owner: recorded.gasOwner, price: recorded.price, budget: recorded.budget },
      },
      signatures: [],
      effects: {
        digest: recorded.effectsDigest,
        version: 2,
        status: recorded.status,
        epoch: 0n,
        gasUsed: { ...recorded.gas },
        transactionDigest: recorded.digest,
        dependencies: [],
        changedObjects: [],
        unchangedConsensusObjects: [],
        unchangedLoadedRuntimeObjects: [],
      },
      checkpoint: BigInt(sequence),
      timestamp: { ...timestamp },
      balanceChanges: recorded.movements.map(({ owner, coinType, delta }) => ({
        address: owner,
        coinType,
        amount: delta.toString(),
      })),
    };
  }

  private route<Request>(
    service: { typeName: string; methods: Method[] },
    name: string,
    handle: (request: Request) => object,
  ): void {
    const method = service.methods.find((each) => each.name === name);
    if (method === undefined) throw new Error(`${service.typeName} has no method ${name}`);
    this.routes.set(`/${service.typeName}/${name}`, { service: service.typeName, method, handle });
  }

  private serviceInfo(): GetServiceInfoResponse {
    const latest = this.checkpoints[this.checkpoints.length - 1]!;
    return {
      chainId: this.chainId,
      chain: this.chain,
      epoch: 0n,
      checkpointHeight: latest.sequenceNumber,
      timestamp: { ...latest.summary!.timestamp! },
      lowestAvailableCheckpoint: BigInt(this.oldest),
      lowestAvailableCheckpointObjects: BigInt(this.oldest),
      server: SERVER_NAME,
    };
  }

  private getCheckpoint(request: GetCheckpointRequest): GetCheckpointResponse {
    const type = descriptors!.ledgerService.methods.find((each) => each.name === 'GetCheckpoint')!.O.fields[0]!;
    if (type.kind !== 'message') throw new Error('GetCheckpointResponse.checkpoint is not a message');
    const checkpointType = type.T();
    const paths = request.readMask?.paths ?? CHECKPOINT_READ_MASK_DEFAULT;
    for (const path of paths) {
      if (!validPath(checkpointType, path)) {
        throw new GrpcFailure(GrpcCode.INVALID_ARGUMENT, `invalid read_mask path: ${path}`);
      }
    }
    let sequence: number;
    const id = request.checkpointId;
    if (id.oneofKind === 'sequenceNumber') {
      if (id.sequenceNumber > BigInt(this.checkpoint()) || id.sequenceNumber < BigInt(this.oldest)) {
        throw new GrpcFailure(GrpcCode.NOT_FOUND, `Checkpoint ${id.sequenceNumber} not found`);
      }
      sequence = Number(id.sequenceNumber);
    } else if (id.oneofKind === 'digest') {
      if (!isDigest(id.digest)) throw new GrpcFailure(GrpcCode.INVALID_ARGUMENT, `invalid digest: ${id.digest}`);
      const found = this.byDigest.get(id.digest);
      if (found === undefined || found < this.oldest) {
        throw new GrpcFailure(GrpcCode.NOT_FOUND, `Checkpoint ${id.digest} not found`);
      }
      sequence = found;
    } else {
      sequence = this.checkpoint();
    }
    const checkpoint = structuredClone(this.checkpoints[sequence]!) as unknown as Record<string, unknown>;
    applyMask(checkpointType, checkpoint, readMaskTree(paths));
    return { checkpoint: checkpoint as unknown as Checkpoint };
  }

  private owner(text: string | undefined): string {
    if (text === undefined) throw new GrpcFailure(GrpcCode.INVALID_ARGUMENT, 'missing owner');
    const owner = parseAddress(text);
    if (owner === undefined) throw new GrpcFailure(GrpcCode.INVALID_ARGUMENT, `invalid owner: ${text}`);
    return owner;
  }

  private requestedCoinType(text: string | undefined): string {
    if (text === undefined) throw new GrpcFailure(GrpcCode.INVALID_ARGUMENT, 'missing coin_type');
    const coinType = normalCoinType(text);
    if (coinType === undefined) throw new GrpcFailure(GrpcCode.INVALID_ARGUMENT, `invalid coin_type: ${text}`);
    return coinType;
  }

  private getBalance(request: GetBalanceRequest): GetBalanceResponse {
    const owner = this.owner(request.owner);
    const coinType = this.requestedCoinType(request.coinType);
    return { balance: { coinType, balance: valueAt(this.sealed.get(key(owner, coinType)), this.checkpoint()) } };
  }

  /** The owner's non-zero balances sorted by coin type; the page token is the next page's first coin type. */
  private listBalances(request: ListBalancesRequest): ListBalancesResponse {
    const owner = this.owner(request.owner);
    const pageSize =
      request.pageSize === undefined ? DEFAULT_PAGE_SIZE : Math.min(Math.max(request.pageSize, 1), MAX_PAGE_SIZE);
    let start: string | undefined;
    if (request.pageToken !== undefined) {
      const token = Buffer.from(request.pageToken).toString('utf8');
      const [tokenOwner, coinType] = token.split('|');
      if (tokenOwner === undefined || coinType === undefined || normalCoinType(coinType) !== coinType) {
        throw new GrpcFailure(GrpcCode.INVALID_ARGUMENT, 'invalid page token encoding');
      }
      if (tokenOwner !== owner) {
        throw new GrpcFailure(GrpcCode.INVALID_ARGUMENT, 'page token owner does not match request owner');
      }
      start = coinType;
    }
    const sequence = this.checkpoint();
    const balances: Balance[] = [];
    for (const [entry, history] of this.sealed) {
      const [entryOwner, coinType] = entry.split('|') as [string, string];
      if (entryOwner !== owner || (start !== undefined && coinType < start)) continue;
      const balance = valueAt(history, sequence);
      if (balance !== 0n) balances.push({ coinType, balance });
    }
    balances.sort((a, b) => (a.coinType! < b.coinType! ? -1 : a.coinType! > b.coinType! ? 1 : 0));
    const page = balances.slice(0, pageSize);
    const next = balances[pageSize];
    const response: ListBalancesResponse = { balances: page };
    if (next !== undefined) response.nextPageToken = Buffer.from(`${owner}|${next.coinType!}`, 'utf8');
    return response;
  }

  private getCoinInfo(request: GetCoinInfoRequest): GetCoinInfoResponse {
    const coinType = normalCoinType(request.coinType ?? '');
    if (coinType === undefined) {
      throw new GrpcFailure(GrpcCode.INVALID_ARGUMENT, `invalid coin_type: ${request.coinType ?? ''}`);
    }
    const coin = this.coins.get(coinType);
    if (coin === undefined) throw new GrpcFailure(GrpcCode.NOT_FOUND, `Coin type ${coinType} not found`);
    const metadata: CoinMetadata = {
      id: coin.metadataId,
      decimals: coin.decimals,
      name: coin.name,
      symbol: coin.symbol,
      description: coin.description,
      iconUrl: coin.iconUrl,
    };
    return {
      coinType,
      metadata,
      treasury:
        coinType === SUI_TYPE
          ? { totalSupply: SUI_TOTAL_SUPPLY, supplyState: SUPPLY_FIXED }
          : { id: coin.treasuryId, totalSupply: this.supply.get(coinType) ?? 0n, supplyState: SUPPLY_UNKNOWN },
      regulatedMetadata: { coinRegulatedState: UNREGULATED },
    };
  }

  /** The `x-sui-*` headers a node puts on every answer. */
  private infoHeaders(): Record<string, string> {
    const latest = this.checkpoints[this.checkpoints.length - 1]!;
    return {
      'x-sui-chain-id': this.chainId,
      'x-sui-chain': this.chain,
      'x-sui-epoch': '0',
      'x-sui-checkpoint-height': String(latest.sequenceNumber),
      'x-sui-timestamp-ms': String(GENESIS_TIME_MS + this.checkpoint() * 1000),
      'x-sui-lowest-available-checkpoint': String(this.oldest),
      'x-sui-lowest-available-checkpoint-objects': String(this.oldest),
    };
  }

  private async listen(): Promise<void> {
    const server = createServer((request, response) => this.serve(request, response));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
  }

  private serve(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => this.answer(request, Buffer.concat(chunks), response));
  }

  private answer(request: IncomingMessage, body: Buffer, response: ServerResponse): void {
    const path = new URL(request.url ?? '/', 'http://stand-in').pathname;
    const [, service = '', method = ''] = /^\/([^/]+)\/([^/]+)$/.exec(path) ?? [];
    const call: SuiCall = { service, method, request: undefined, code: undefined, httpStatus: 200 };
    this.calls.push(call);
    const contentType = request.headers['content-type'] ?? '';
    const text = contentType.startsWith('application/grpc-web-text');
    const send = (status: number, headers: Record<string, string>, payload: Buffer) => {
      call.httpStatus = status;
      const bytes = text && status === 200 ? Buffer.from(payload.toString('base64'), 'latin1') : payload;
      const write = () => {
        response.writeHead(status, { ...headers, 'content-length': String(bytes.length) });
        response.end(bytes);
      };
      if (this.delayMs > 0) setTimeout(write, this.delayMs);
      else write();
    };
    const plain = (status: number, message: string) =>
      send(status, { 'content-type': 'text/plain; charset=utf-8' }, Buffer.from(message, 'utf8'));
    if (request.method !== 'POST') return plain(405, 'gRPC-web requests are POSTs');
    if (!contentType.startsWith('application/grpc-web')) return plain(415, `not a gRPC-web request: ${contentType}`);
    const headers = {
      'content-type': text ? 'application/grpc-web-text+proto' : 'application/grpc-web+proto',
      ...this.infoHeaders(),
    };
    const fail = (code: number, message: string, where: Failure['where'] = 'headers') => {
      call.code = code;
      if (where === 'trailer') send(200, headers, trailerFrame(code, percentEncode(message)));
      else
        send(200, { ...headers, 'grpc-status': String(code), 'grpc-message': percentEncode(message) }, Buffer.alloc(0));
    };
    const route = this.routes.get(path);
    let input: object | undefined;
    try {
      const message = firstMessage(text ? decodeBase64(body) : body);
      if (route !== undefined) input = route.method.I.fromBinary(message) as object;
      call.request = input;
    } catch (thrown) {
      if (thrown instanceof GrpcFailure) return fail(thrown.code, thrown.message);
      return fail(GrpcCode.INTERNAL, `failed to decode Protobuf message: ${String(thrown)}`);
    }
    const failure = this.failures.shift();
    if (failure !== undefined) {
      if (failure.status >= 100) return plain(failure.status, `the stand-in was told to answer ${failure.status}`);
      const name = GRPC_CODE_NAMES[failure.status] ?? String(failure.status);
      return fail(failure.status, `the stand-in was told to fail this request with ${name}`, failure.where);
    }
    if (route === undefined) return fail(GrpcCode.UNIMPLEMENTED, `unknown method ${service}/${method}`);
    let output: Buffer;
    try {
      const message = route.handle(input as never);
      output = Buffer.from(route.method.O.toBinary(route.method.O.create(message)));
    } catch (thrown) {
      if (thrown instanceof GrpcFailure) return fail(thrown.code, thrown.message);
      return fail(GrpcCode.INTERNAL, thrown instanceof Error ? thrown.message : String(thrown));
    }
    call.code = GrpcCode.OK;
    send(200, headers, Buffer.concat([frame(0x00, output), trailerFrame(GrpcCode.OK)]));
  }
}
