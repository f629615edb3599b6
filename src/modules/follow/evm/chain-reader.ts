import { createPublicClient, fallback, http, type PublicClient } from 'viem';
import type { ChainId } from '../../../core/chains/chain-ids';
import { balanceOfData, DECIMALS, NAME, readText, readWord, SYMBOL } from './erc20-calls';
import { logsInPieces, piecesByWeight } from './log-pieces';
import { refusesMethod, rpcFailure } from './log-range-advice';
import { RpcBatches, type BatchAnswer } from './rpc-batches';
import {
  ChainMoved,
  holdingKey,
  NATIVE,
  TouchedSet,
  type BlockHeader,
  type HoldingKey,
  type ObservedTransfer,
  type Reading,
} from '../reading';
import {
  quantity,
  type RpcBlockFull,
  type RpcBlockReceipt,
  type RpcHeader,
  type RpcLogEntry,
  type RpcReceipt,
} from './rpc-shapes';
import {
  addressTopic,
  readTransferLog,
  scanNative,
  settledTransfer,
  tokenTransfer,
  toHeader,
  TRANSFER_TOPIC,
  type NativeScan,
} from './transfers';

export interface ReaderOptions {
  /** JSON-RPC requests sent in one HTTP request (viem's batch). Default 100. */
  batchSize?: number;
  /** Retries of a request on one URL before the next URL is asked (viem's http retry: 408, 413,
   *  429, 5xx, timeouts, -32005, -32603; exponential from `retryDelay`, or the Retry-After header). Default 3. */
  retryCount?: number;
  /** Milliseconds before the first retry, doubled at each. Default 150. */
  retryDelay?: number;
  /** Milliseconds an HTTP request may take, its answer read. Default 30 000. */
  timeout?: number;
  /** Addresses per topic list of an `eth_getLogs` filter (geth accepts 1000). Default 500. */
  addressesPerTopicList?: number;
  /** When the tracked set needs more than one pair of address filters, readRange asks for every
   *  Transfer log instead, in pieces of consecutive blocks holding at most this many transactions
   *  (an estimate of their Transfer logs). Default 5000; 0 always filters by address lists. */
  unfilteredLogsUpTo?: number;
  /** Full blocks read at once by nativeTransfers. Default 100. */
  blocksPerRead?: number;
  /** readRange reads every block's receipts (`eth_getBlockReceipts`, the Transfer logs taken from
   *  them) instead of one receipt per candidate transaction and `eth_getLogs`, when at least this
   *  share of the range's transactions are native candidates. Default 0.5; 0 always; above 1, never. */
  blockReceiptsFrom?: number;
}

/** A token's own description, as its contract answers; '' and 0 where a call fails. */
export interface TokenMetadata {
  name: string;
  symbol: string;
  decimals: number;
}

/** A range's transfers and touched balances, with the headers of all its blocks. */
export type RangeReading = Reading & { headers: BlockHeader[] };

/** Calls of tokenTransfers without a refusal after which a twice longer span is tried. Each refusal
 *  costs a round trip, and about a second more when it comes as -32005 or HTTP 413, which viem
 *  retries before the reader sees it. */
const PROBE_AFTER_CALLS = 4;

const DEFAULTS = {
  batchSize: 100,
  retryCount: 3,
  retryDelay: 150,
  timeout: 30_000,
  addressesPerTopicList: 500,
  unfilteredLogsUpTo: 5000,
  blocksPerRead: 100,
  blockReceiptsFrom: 0.5,
} satisfies Required<ReaderOptions>;

/** Words of an EVM execution failure (a revert, an invalid opcode, running out of gas): the call's
 *  answer, unlike a failure of the node or of the connection. */
const EXECUTION_FAILURE =
  /revert|invalid opcode|opcode \S+ not defined|out of gas|stack (?:underflow|overflow|limit)|invalid jump|bad jump|vm execution error|execution error/i;

/**
 * Reads one EVM chain over standard JSON-RPC for the follower (FOLLOW-DESIGN "The reader"). Every
 * request goes through viem's HTTP transport, batched, retried on one URL and then passed to the
 * next URL of `urls` (a fallback, in the order given; no ranking). Failures left after that
 * propagate, except where a method says otherwise.
 *
 * Native value moved by contracts (internal transfers) is not seen: a plain node shows it only
 * through traces. The balances of the addresses involved are still read when another reason
 * touches them.
 */
export class ChainReader {
  private readonly client: PublicClient;
  /** Bulk reads (balances, candidates' receipts) as raw batches, without viem's cost per call. */
  private readonly batches: RpcBatches;
  private readonly options: Required<ReaderOptions>;
  /** The most blocks one backfill `eth_getLogs` spans: what the provider last accepted after
   *  refusing more; undefined until it refuses. */
  private logSpan: bigint | undefined;
  private callsSinceRefusal = 0;
  /** Whether the node serves `eth_getBlockReceipts`: unknown until asked, false once it refused it. */
  private blockReceipts: boolean | undefined;

  constructor(
    readonly chain: ChainId,
    urls: readonly string[],
    options: ReaderOptions = {},
  ) {
    if (urls.length === 0) throw new Error(`no RPC URL for ${chain}`);
    this.options = { ...DEFAULTS, ...options };
    const { batchSize, retryCount, retryDelay, timeout } = this.options;
    const transports = urls.map((url) => http(url, { batch: { batchSize }, retryCount, retryDelay, timeout }));
    // Each URL retries by itself; the fallback only moves to the next one.
    this.client = createPublicClient({ transport: fallback(transports, { retryCount: 0 }) });
    this.batches = new RpcBatches(urls, { batchSize, retryCount, retryDelay, timeout, isAnswer: failedInEvm });
  }

  async chainId(): Promise<number> {
    return Number(BigInt(await this.rpc<string>('eth_chainId', [])));
  }

  async head(): Promise<bigint> {
    return BigInt(await this.rpc<string>('eth_blockNumber', []));
  }

  /** The header of block `number`; undefined when the node has no such block. */
  async header(number: bigint): Promise<BlockHeader | undefined> {
    const block = await this.rpc<RpcHeader | null>('eth_getBlockByNumber', [quantity(number), false]);
    return block ? toHeader(block) : undefined;
  }

  /** The headers of [from, to] in order, batched; blocks the node does not have are left out. */
  async headers(from: bigint, to: bigint): Promise<BlockHeader[]> {
    const headers: BlockHeader[] = [];
    for (const [start, end] of windows(from, to, BigInt(this.options.blocksPerRead * 10))) {
      const found = await Promise.all(numbers(start, end).map((number) => this.header(number)));
      for (const header of found) if (header) headers.push(header);
    }
    return headers;
  }

  /**
   * Forward following over [from, to]: the headers (each block's parent the block before it),
   * native transfers (successful transactions with value whose sender or recipient is tracked),
   * ERC-20 transfers (Transfer logs with value whose sender or recipient is tracked), and the
   * balances the range touched: the tracked ends of those transfers, and the tracked senders of
   * any transaction (gas), fee recipients and withdrawal recipients (native).
   * Throws ChainMoved when the node's chain changed during the reading: a parent link broken, a
   * block gone, a log or receipt of another block than the one read at its height.
   * The whole range is held in memory: keep it to about a hundred blocks.
   */
  async readRange(from: bigint, to: bigint, tracked: ReadonlySet<string>): Promise<RangeReading> {
    if (to < from) return { transfers: [], touched: [], headers: [] };
    const blocks = await this.fullBlocks(from, to, (number) => {
      throw new ChainMoved(`block ${number} is no longer on the node's chain`, number);
    });
    const headers = blocks.map(toHeader);
    for (let i = 1; i < headers.length; i++) {
      if (headers[i]!.parentHash !== headers[i - 1]!.hash) {
        throw new ChainMoved(
          `block ${headers[i]!.number} is not the child of the block read before it`,
          headers[i]!.number,
        );
      }
    }
    const scans = blocks.map((block, i) => scanNative(block, headers[i]!, tracked));
    let reading: { tokens: Reading; natives: Reading } | undefined;
    if (this.receiptsByBlock(blocks, scans)) {
      try {
        reading = await this.readByBlockReceipts(blocks, headers, scans, tracked);
        this.blockReceipts = true;
      } catch (error) {
        // Receipts of large blocks can pass the transport's cap on one answer (10 MiB): this range is read the other way.
        if (!refusesMethod(error) && !answerTooLarge(error)) throw error;
        // The node does not serve it (a provider's plan, an older client): per transaction from now on.
        if (refusesMethod(error)) this.blockReceipts = false;
      }
    }
    reading ??= await this.readByLogs(blocks, headers, scans, tracked);
    const touched = new TouchedSet();
    touched.addAll(reading.natives.touched);
    touched.addAll(reading.tokens.touched);
    const transfers = [...reading.natives.transfers, ...reading.tokens.transfers].sort((a, b) =>
      compareDecimal(a.block_number, b.block_number),
    );
    return { transfers, touched: touched.list(), headers };
  }

  /**
   * Backfill, token side: the ERC-20 transfers of [from, to] whose sender or recipient is one of
   * `addresses`, with the tracked ends touched. Two `eth_getLogs` filters per list of at most
   * `addressesPerTopicList` addresses (as sender, as recipient), each over the range in as many
   * pieces as the provider asks for (log-pieces), so any range may be given. The span a provider
   * last accepted is kept for the next calls; after PROBE_AFTER_CALLS calls without a refusal, a
   * call tries twice that span, so a span cut short by a dense stretch of logs grows back.
   */
  async tokenTransfers(from: bigint, to: bigint, addresses: readonly string[]): Promise<Reading> {
    if (to < from || addresses.length === 0) return { transfers: [], touched: [] };
    const tracked = new Set(addresses);
    const whole = to - from + 1n;
    const known = this.logSpan;
    const wanted = known === undefined ? whole : this.callsSinceRefusal >= PROBE_AFTER_CALLS ? known * 2n : known;
    const first = wanted < whole ? wanted : whole;
    const results = await Promise.all(
      this.addressFilters(tracked).map((topics) =>
        logsInPieces((start, end) => this.logs(start, end, topics), from, to, first),
      ),
    );
    const accepted = results.reduce((least, result) => (result.span < least ? result.span : least), first);
    if (accepted < first) {
      this.logSpan = accepted;
      this.callsSinceRefusal = 0;
    } else if (known !== undefined && first > known) {
      this.logSpan = first;
      this.callsSinceRefusal = 0;
    } else {
      this.callsSinceRefusal++;
    }

    const logs = results.flatMap((result) => result.logs);
    const heights = [...new Set(logs.map((log) => BigInt(log.blockNumber)))];
    const found = await Promise.all(heights.map((number) => this.header(number)));
    const headers = new Map<bigint, BlockHeader>();
    for (const header of found) if (header) headers.set(header.number, header);
    return this.tokenReading(logs, headers, tracked);
  }

  /**
   * Backfill, native side: the native transfers of [from, to] whose sender or recipient is
   * tracked, as readRange finds them, reading `blocksPerRead` full blocks at a time.
   */
  async nativeTransfers(from: bigint, to: bigint, tracked: ReadonlySet<string>): Promise<Reading> {
    const transfers: ObservedTransfer[] = [];
    const touched = new TouchedSet();
    if (tracked.size === 0) return { transfers, touched: [] };
    for (const [start, end] of windows(from, to, BigInt(this.options.blocksPerRead))) {
      const blocks = await this.fullBlocks(start, end, (number) => {
        throw new Error(`the node has no block ${number} (${this.chain})`);
      });
      const reading = await this.settleNative(blocks, blocks.map(toHeader), tracked);
      for (const transfer of reading.transfers) transfers.push(transfer);
      touched.addAll(reading.touched);
    }
    return { transfers, touched: touched.list() };
  }

  /**
   * Balances at `block`, keyed `${address} ${token_address}` (holdingKey): `eth_getBalance` for the
   * native coin, `balanceOf` by `eth_call` for tokens, batched. A balanceOf that fails in the EVM
   * (reverts, runs out of gas, answers nothing) reads as '0'; a failure of the node propagates.
   * Each call runs by itself, so one token's balanceOf cannot spoil another's (as it could by
   * exhausting a shared Multicall's gas).
   */
  async balances(keys: readonly HoldingKey[], block: bigint): Promise<Map<string, string>> {
    const at = quantity(block);
    const answers = await this.batches.send(
      keys.map((key) =>
        key.token_address === NATIVE
          ? { method: 'eth_getBalance', params: [key.address, at] }
          : { method: 'eth_call', params: [{ to: key.token_address, data: balanceOfData(key.address) }, at] },
      ),
    );
    return new Map(
      keys.map((key, i): [string, string] => {
        const answer = answers[i]!;
        if (key.token_address === NATIVE)
          return [holdingKey(key), BigInt(resultOf<string>(answer, 'eth_getBalance')).toString()];
        const data = callResult(answer);
        return [holdingKey(key), (data === undefined ? undefined : readWord(data))?.toString() ?? '0'];
      }),
    );
  }

  /**
   * name(), symbol() and decimals() of each contract at `block`, batched. Names and symbols may be
   * strings or bytes32 (erc20-calls); a call that fails in the EVM gives '' or 0. The text comes as
   * the contract gives it: trimming and cutting are the caller's.
   */
  async tokenMetadata(contracts: readonly string[], block: bigint): Promise<Map<string, TokenMetadata>> {
    const at = quantity(block);
    const answers = await Promise.all(
      contracts.map(async (contract): Promise<[string, TokenMetadata]> => {
        const [name, symbol, decimals] = await Promise.all([
          this.call(contract, NAME, at),
          this.call(contract, SYMBOL, at),
          this.call(contract, DECIMALS, at),
        ]);
        const places = decimals === undefined ? undefined : readWord(decimals);
        return [
          contract,
          {
            name: name === undefined ? '' : readText(name),
            symbol: symbol === undefined ? '' : readText(symbol),
            decimals: places === undefined ? 0 : Number(places),
          },
        ];
      }),
    );
    return new Map(answers);
  }

  /** An eth_call's answer, or undefined when the call failed in the EVM. */
  private async call(to: string, data: string, at: string): Promise<string | undefined> {
    try {
      return await this.rpc<string>('eth_call', [{ to, data }, at]);
    } catch (error) {
      if (failedInEvm(rpcFailure(error))) return undefined;
      throw error;
    }
  }

  /** Full blocks [from, to] in order; `missing` decides what a block the node lacks means. */
  private async fullBlocks(from: bigint, to: bigint, missing: (number: bigint) => never): Promise<RpcBlockFull[]> {
    const blocks = await Promise.all(
      numbers(from, to).map((number) =>
        this.rpc<RpcBlockFull | null>('eth_getBlockByNumber', [quantity(number), true]),
      ),
    );
    return blocks.map((block, i) => block ?? missing(from + BigInt(i)));
  }

  /** The native transfers of blocks already read, their candidates' receipts fetched in one batch. */
  private async settleNative(
    blocks: readonly RpcBlockFull[],
    headers: readonly BlockHeader[],
    tracked: ReadonlySet<string>,
    scans: readonly NativeScan[] = blocks.map((block, i) => scanNative(block, headers[i]!, tracked)),
  ): Promise<Reading> {
    const candidates = scans.flatMap((scan) => scan.candidates);
    const answers = await this.batches.send(
      candidates.map(({ tx }) => ({ method: 'eth_getTransactionReceipt', params: [tx.hash] })),
    );
    const receipts = answers.map((answer) => resultOf<RpcReceipt | null>(answer, 'eth_getTransactionReceipt'));
    return this.nativeReading(scans, receipts, tracked);
  }

  /**
   * The native transfers of scanned blocks given their candidates' receipts (in candidate order),
   * with the balances they and the scans touched. A receipt missing or of another block than the
   * one read throws ChainMoved.
   */
  private nativeReading(
    scans: readonly NativeScan[],
    receipts: readonly (RpcReceipt | null | undefined)[],
    tracked: ReadonlySet<string>,
  ): Reading {
    const touched = new TouchedSet();
    for (const scan of scans) for (const address of scan.balanceChanged) touched.add(address, NATIVE);
    const transfers: ObservedTransfer[] = [];
    scans
      .flatMap((scan) => scan.candidates)
      .forEach((candidate, i) => {
        const receipt = receipts[i];
        const { header, tx } = candidate;
        if (!receipt || receipt.blockHash.toLowerCase() !== header.hash) {
          throw new ChainMoved(`transaction ${tx.hash} is no longer in block ${header.number}`, header.number);
        }
        const transfer = settledTransfer(this.chain, candidate, receipt, tracked);
        if (!transfer) return;
        transfers.push(transfer);
        for (const end of [transfer.from_address, transfer.to_address]) if (tracked.has(end)) touched.add(end, NATIVE);
      });
    return { transfers, touched: touched.list() };
  }

  /**
   * Whether readRange reads these blocks' receipts whole: the node serves `eth_getBlockReceipts`
   * (or has not been asked yet), and enough of the transactions are native candidates that one
   * call per block, which also brings the Transfer logs, costs less than one call per candidate
   * and the `eth_getLogs` queries.
   */
  private receiptsByBlock(blocks: readonly RpcBlockFull[], scans: readonly NativeScan[]): boolean {
    if (this.blockReceipts === false || this.options.blockReceiptsFrom > 1) return false;
    const transactions = blocks.reduce((sum, block) => sum + block.transactions.length, 0);
    const candidates = scans.reduce((sum, scan) => sum + scan.candidates.length, 0);
    return transactions > 0 && candidates >= this.options.blockReceiptsFrom * transactions;
  }

  /** readRange's two sides from the receipts of every block (`eth_getBlockReceipts`), batched. */
  private async readByBlockReceipts(
    blocks: readonly RpcBlockFull[],
    headers: readonly BlockHeader[],
    scans: readonly NativeScan[],
    tracked: ReadonlySet<string>,
  ): Promise<{ tokens: Reading; natives: Reading }> {
    const answers = await Promise.all(
      blocks.map((block) => this.rpc<RpcBlockReceipt[] | null>('eth_getBlockReceipts', [block.number])),
    );
    const byHash = new Map<string, RpcBlockReceipt>();
    const logs: RpcLogEntry[] = [];
    answers.forEach((receipts, i) => {
      const header = headers[i]!;
      if (!receipts || receipts.length !== blocks[i]!.transactions.length) {
        throw new ChainMoved(`the receipts of block ${header.number} are not those of the block read`, header.number);
      }
      for (const receipt of receipts) {
        if (receipt.blockHash.toLowerCase() !== header.hash) {
          throw new ChainMoved(`a receipt of block ${header.number} belongs to another block`, header.number);
        }
        byHash.set(receipt.transactionHash.toLowerCase(), receipt);
        for (const log of receipt.logs) if (log.topics[0]?.toLowerCase() === TRANSFER_TOPIC) logs.push(log);
      }
    });
    const receipts = scans.flatMap((scan) => scan.candidates.map(({ tx }) => byHash.get(tx.hash.toLowerCase())));
    const byNumber = new Map(headers.map((header) => [header.number, header]));
    return {
      natives: this.nativeReading(scans, receipts, tracked),
      tokens: this.tokenReading(logs, byNumber, tracked),
    };
  }

  /** readRange's two sides as before `eth_getBlockReceipts`: candidates' receipts and `eth_getLogs`, at once. */
  private async readByLogs(
    blocks: readonly RpcBlockFull[],
    headers: readonly BlockHeader[],
    scans: readonly NativeScan[],
    tracked: ReadonlySet<string>,
  ): Promise<{ tokens: Reading; natives: Reading }> {
    const [tokens, natives] = await Promise.all([
      this.rangeTokenTransfers(blocks, headers, tracked),
      this.settleNative(blocks, headers, tracked, scans),
    ]);
    return { tokens, natives };
  }

  /**
   * readRange's token side. A tracked set that needs more than one pair of address filters is
   * served by asking for every Transfer log of the range and keeping the tracked ones here: one
   * query per piece of consecutive blocks holding at most `unfilteredLogsUpTo` transactions (an
   * estimate of their Transfer logs, kept well under the 10,000 results providers cap) instead of
   * two queries per 500 addresses. A smaller set is asked for by its address lists.
   */
  private async rangeTokenTransfers(
    blocks: readonly RpcBlockFull[],
    headers: readonly BlockHeader[],
    tracked: ReadonlySet<string>,
  ): Promise<Reading> {
    if (tracked.size === 0 || headers.length === 0) return { transfers: [], touched: [] };
    const queries: { topics: Topics; from: bigint; to: bigint }[] = [];
    const from = headers[0]!.number;
    const to = headers[headers.length - 1]!.number;
    // More than one list of addresses: unfiltered, without building the lists (a topic per tracked address, each range).
    if (tracked.size > this.options.addressesPerTopicList && this.options.unfilteredLogsUpTo > 0) {
      const sizes = blocks.map((block) => block.transactions.length);
      for (const [start, end] of piecesByWeight(from, sizes, this.options.unfilteredLogsUpTo)) {
        queries.push({ topics: [TRANSFER_TOPIC], from: start, to: end });
      }
    } else {
      for (const topics of this.addressFilters(tracked)) queries.push({ topics, from, to });
    }
    const results = await Promise.all(
      queries.map((query) =>
        logsInPieces(
          (start, end) => this.logs(start, end, query.topics),
          query.from,
          query.to,
          query.to - query.from + 1n,
        ),
      ),
    );
    const byNumber = new Map(headers.map((header) => [header.number, header]));
    return this.tokenReading(
      results.flatMap((result) => result.logs),
      byNumber,
      tracked,
    );
  }

  /** Two topic filters per address list: the list as senders, and as recipients. */
  private addressFilters(tracked: ReadonlySet<string>): Topics[] {
    const filters: Topics[] = [];
    const topics = [...tracked].map(addressTopic);
    for (let i = 0; i < topics.length; i += this.options.addressesPerTopicList) {
      const list = topics.slice(i, i + this.options.addressesPerTopicList);
      filters.push([TRANSFER_TOPIC, list], [TRANSFER_TOPIC, null, list]);
    }
    return filters;
  }

  /**
   * Token transfers of the logs with a tracked end, each log once (a log whose both ends are
   * tracked comes from two filters), each checked against the header read at its height.
   */
  private tokenReading(
    logs: readonly RpcLogEntry[],
    headers: ReadonlyMap<bigint, BlockHeader>,
    tracked: ReadonlySet<string>,
  ): Reading {
    const transfers = new Map<string, ObservedTransfer>();
    const touched = new TouchedSet();
    for (const log of logs) {
      const transfer = readTransferLog(log);
      if (!transfer || !(tracked.has(transfer.from) || tracked.has(transfer.to))) continue;
      const number = BigInt(log.blockNumber);
      const header = headers.get(number);
      if (!header || log.removed === true || log.blockHash.toLowerCase() !== header.hash) {
        throw new ChainMoved(`a log of block ${number} belongs to another block than the one read`, number);
      }
      const record = tokenTransfer(this.chain, log, transfer, header);
      if (transfers.has(record.id)) continue;
      transfers.set(record.id, record);
      if (tracked.has(transfer.from)) touched.add(transfer.from, transfer.token);
      if (tracked.has(transfer.to)) touched.add(transfer.to, transfer.token);
    }
    const ordered = [...transfers.values()].sort((a, b) => compareDecimal(a.block_number, b.block_number));
    return { transfers: ordered, touched: touched.list() };
  }

  private logs(from: bigint, to: bigint, topics: Topics): Promise<RpcLogEntry[]> {
    return this.rpc<RpcLogEntry[]>('eth_getLogs', [{ fromBlock: quantity(from), toBlock: quantity(to), topics }]);
  }

  /** A raw JSON-RPC request through the transport (batched, retried, falling back). */
  private rpc<T>(method: string, params: unknown[]): Promise<T> {
    const request = this.client.request as unknown as (args: { method: string; params: unknown[] }) => Promise<T>;
    return request({ method, params });
  }
}

/** An eth_getLogs topic filter: per position, one topic, any of a list, or any (null). */
type Topics = (string | string[] | null)[];

function numbers(from: bigint, to: bigint): bigint[] {
  const list: bigint[] = [];
  for (let number = from; number <= to; number++) list.push(number);
  return list;
}

/** [from, to] cut into consecutive windows of at most `size` blocks. */
function windows(from: bigint, to: bigint, size: bigint): [bigint, bigint][] {
  const list: [bigint, bigint][] = [];
  for (let start = from; start <= to; start += size)
    list.push([start, start + size - 1n < to ? start + size - 1n : to]);
  return list;
}

/** A batched call's result; the node's error for it throws. */
function resultOf<T>(answer: BatchAnswer, method: string): T {
  if ('error' in answer) throw new Error(`${method}: ${answer.error.message} (${answer.error.code})`);
  return answer.result as T;
}

/** A batched eth_call's answer, or undefined when the call failed in the EVM. */
function callResult(answer: BatchAnswer): string | undefined {
  if (!('error' in answer)) return answer.result as string;
  if (failedInEvm(answer.error)) return undefined;
  throw new Error(`eth_call: ${answer.error.message} (${answer.error.code})`);
}

/** Whether a call's error is the EVM's (a revert, an invalid opcode, out of gas): its answer, not the node's failure. */
function failedInEvm({ code, message }: { code?: number; message: string }): boolean {
  return code === 3 || EXECUTION_FAILURE.test(message);
}

/** Whether a failure is viem's refusal of an HTTP answer larger than the transport reads. */
function answerTooLarge(error: unknown): boolean {
  for (let current = error, depth = 0; depth < 8 && current instanceof Error; depth++) {
    if (current.name === 'ResponseBodyTooLargeError') return true;
    current = current.cause;
  }
  return false;
}

function compareDecimal(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
