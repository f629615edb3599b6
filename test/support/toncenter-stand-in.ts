import { createHash, randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { Address, beginCell, Cell, type Transaction, type TupleItem } from '@ton/core';
import { Blockchain, type BlockchainSnapshot, type SendMessageResult } from '@ton/sandbox';

/**
 * A toncenter-compatible HTTP API (v2, as ton-http-api serves it) over `@ton/sandbox`, TON's
 * transaction emulator: the transactions are real TVM executions, and this server groups them into
 * blocks the way a node would show them. Only the methods chaintags' TON source calls are served:
 * getMasterchainInfo, getBlockHeader, shards, getBlockTransactions, getTransactions,
 * getAddressBalance, runGetMethod, lookupBlock, tryLocateSourceTx; their answers have the documented shapes
 * (test/fixtures/ton/, checked by test/ton-stand-in.e2e-spec.ts).
 *
 * Blocks: every `seal` makes one masterchain block. The basechain has one shard
 * (`-9223372036854775808`); the transactions recorded since the last seal go into one shard block,
 * or into several when `seal({ shardBlocks })` asks for it, and the masterchain block then names only
 * the last of them, as a real masterchain block does when the shard made several blocks in between
 * (the follower must walk back to the others). Hashes are random, the zero state is this stand-in's
 * own (not mainnet's) and `global_id` is `globalId` (not −239), so a follower set to `localnet`
 * accepts it and one set to `mainnet` refuses it.
 *
 * State at a block (`seqno` of getAddressBalance and runGetMethod) is answered from the sandbox
 * snapshot taken when the block was sealed.
 */

export const BASECHAIN_SHARD = '-9223372036854775808';
/** After a split: accounts whose address starts with bit 0, and with bit 1. */
export const LEFT_SHARD = '4611686018427387904';
export const RIGHT_SHARD = '-4611686018427387904';
const MASTERCHAIN_SHARD = '-9223372036854775808';

interface BlockId {
  workchain: number;
  shard: string;
  seqno: number;
  rootHash: Buffer;
  fileHash: Buffer;
}

interface ShardBlock extends BlockId {
  transactions: Transaction[];
  prev: ShardBlock[];
  genUtime: number;
  startLt: bigint;
  endLt: bigint;
}

interface MasterBlock extends BlockId {
  genUtime: number;
  startLt: bigint;
  endLt: bigint;
  /** The basechain's top shard blocks as of this block. */
  shardTops: ShardBlock[];
  snapshot: BlockchainSnapshot;
}

export interface TonStandInOptions {
  /** `global_id` in block headers; −239 is mainnet's. */
  globalId?: number;
  /** When set, every request needs it (`api_key` parameter or `X-API-Key` header), as toncenter's keys work. */
  apiKey?: string;
}

export interface TonCall {
  method: string;
  params: Record<string, string>;
  apiKey: string | undefined;
  /** Whether the key came in the URL (`api_key=`) rather than the `X-API-Key` header. */
  keyInUrl: boolean;
}

export class TonStandIn {
  readonly calls: TonCall[] = [];
  private readonly masters: MasterBlock[] = [];
  /** Every shard block, by `<shard>:<seqno>`. */
  private readonly shards = new Map<string, ShardBlock>();
  private tops: ShardBlock[] = [];
  private pending: Transaction[] = [];
  private readonly scratch = new Map<number, Promise<Blockchain>>();
  private server: Server | undefined;
  url = '';
  /** A pause before every answer (a slow API). */
  delayMs = 0;

  private constructor(
    readonly blockchain: Blockchain,
    private readonly options: TonStandInOptions,
  ) {}

  static async start(options: TonStandInOptions = {}): Promise<TonStandIn> {
    const blockchain = await Blockchain.create();
    const standIn = new TonStandIn(blockchain, options);
    standIn.seal(); // the zero state: masterchain block 0 and shard block 0
    await standIn.listen();
    return standIn;
  }

  /** The API's base URL as a follower is given it, `…/api/v2`. */
  get apiUrl(): string {
    return `${this.url}api/v2`;
  }

  /** Keeps the transactions of a sandbox send for the next block. */
  record(result: SendMessageResult): Transaction[] {
    this.pending.push(...result.transactions);
    return result.transactions;
  }

  /** The latest masterchain seqno. */
  get head(): number {
    return this.masters[this.masters.length - 1]!.seqno;
  }

  /**
   * A masterchain block with the recorded transactions: each shard makes `shardBlocks` blocks (1)
   * and the masterchain block names the last. `split` splits the one basechain shard in two (each
   * child's first block has the parent as its previous block); `merge` joins the two again (one
   * block with both children as previous blocks). Split and merge make one block per shard.
   */
  seal(options: { shardBlocks?: number; split?: boolean; merge?: boolean } = {}): number {
    const transactions = [...this.pending].sort((a, b) => (a.lt < b.lt ? -1 : a.lt > b.lt ? 1 : 0));
    this.pending = [];
    const now = Math.floor(Date.now() / 1000);
    const make = (shard: string, seqno: number, prev: ShardBlock[], part: Transaction[]): ShardBlock => {
      const startLt = part[0]?.lt ?? Math.max(0, ...prev.map((block) => Number(block.endLt))) + 1;
      const block: ShardBlock = {
        workchain: 0,
        shard,
        seqno,
        rootHash: randomBytes(32),
        fileHash: randomBytes(32),
        transactions: part,
        prev,
        genUtime: Math.max(now, ...part.map((tx) => tx.now)),
        startLt: BigInt(startLt),
        endLt: part[part.length - 1]?.lt ?? BigInt(startLt),
      };
      this.shards.set(`${shard}:${seqno}`, block);
      return block;
    };
    if (this.tops.length === 0) {
      this.tops = [make(BASECHAIN_SHARD, 0, [], transactions)];
    } else if (options.split === true) {
      const [parent] = this.tops;
      if (this.tops.length !== 1 || parent === undefined) throw new Error('only the whole basechain shard splits');
      const left = transactions.filter((tx) => (accountOf(tx).hash[0]! & 0x80) === 0);
      const right = transactions.filter((tx) => (accountOf(tx).hash[0]! & 0x80) !== 0);
      this.tops = [
        make(LEFT_SHARD, parent.seqno + 1, [parent], left),
        make(RIGHT_SHARD, parent.seqno + 1, [parent], right),
      ];
    } else if (options.merge === true) {
      if (this.tops.length !== 2) throw new Error('only a split basechain merges');
      const seqno = Math.max(...this.tops.map((block) => block.seqno)) + 1;
      this.tops = [make(BASECHAIN_SHARD, seqno, this.tops, transactions)];
    } else {
      const count = Math.max(1, options.shardBlocks ?? 1);
      this.tops = this.tops.map((top) => {
        const mine = transactions.filter((tx) => covers(top.shard, accountOf(tx)));
        const per = Math.ceil(mine.length / count);
        let last = top;
        for (let index = 0; index < count; index++) {
          last = make(top.shard, last.seqno + 1, [last], mine.slice(index * per, (index + 1) * per));
        }
        return last;
      });
    }
    const previous = this.masters[this.masters.length - 1];
    const seqno = this.masters.length;
    const master: MasterBlock = {
      workchain: -1,
      shard: MASTERCHAIN_SHARD,
      seqno,
      rootHash: seqno === 0 ? zeroState('root') : randomBytes(32),
      fileHash: seqno === 0 ? zeroState('file') : randomBytes(32),
      genUtime: Math.max(now, ...this.tops.map((top) => top.genUtime)),
      startLt: previous === undefined ? 0n : previous.endLt + 1n,
      endLt: 0n,
      shardTops: this.tops,
      snapshot: this.blockchain.snapshot(),
    };
    const lastLt = transactions[transactions.length - 1]?.lt;
    master.endLt = lastLt !== undefined && lastLt >= master.startLt ? lastLt + 1n : master.startLt;
    this.masters.push(master);
    return seqno;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async listen(): Promise<void> {
    this.server = createServer((request, response) => void this.serve(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}/`;
  }

  private async serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let text = '';
    for await (const chunk of request) text += (chunk as Buffer).toString();
    const url = new URL(request.url ?? '/', 'http://stand-in');
    const method = url.pathname.replace(/^\/api\/v2\//, '');
    const params: Record<string, string> = Object.fromEntries(url.searchParams.entries());
    if (request.method === 'POST' && text !== '') Object.assign(params, JSON.parse(text) as Record<string, string>);
    const apiKey = url.searchParams.get('api_key') ?? (request.headers['x-api-key'] as string | undefined);
    this.calls.push({ method, params, apiKey, keyInUrl: url.searchParams.has('api_key') });
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    const reply = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (this.options.apiKey !== undefined && apiKey !== this.options.apiKey) {
      reply(401, { ok: false, code: 401, error: 'API key does not exist' });
      return;
    }
    try {
      const result = await this.answer(method, params);
      if (result === undefined) reply(404, { ok: false, code: 404, error: 'Not Found' });
      else reply(200, { ok: true, result, '@extra': `${Date.now() / 1000}:0:0.5` });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      reply(message.startsWith('LITE_SERVER') ? 504 : 422, { ok: false, code: 422, error: message });
    }
  }

  private async answer(method: string, params: Record<string, string>): Promise<unknown> {
    switch (method) {
      case 'getMasterchainInfo':
        return {
          '@type': 'blocks.masterchainInfo',
          last: blockIdJson(this.masters[this.masters.length - 1]!),
          state_root_hash: randomBytes(32).toString('base64'),
          init: { ...blockIdJson(this.masters[0]!), shard: '0' },
        };
      case 'getBlockHeader':
        return this.header(this.block(params));
      case 'shards': {
        const master = this.master(Number(params.seqno));
        return { '@type': 'blocks.shards', shards: master.shardTops.map(blockIdJson) };
      }
      case 'getBlockTransactions':
        return this.blockTransactions(params);
      case 'getTransactions':
        return this.transactions(params);
      case 'getAddressBalance': {
        const chain = await this.stateAt(params.seqno);
        return (await chain.getContract(Address.parse(params.address!))).balance.toString();
      }
      case 'runGetMethod':
        return this.runGetMethod(params);
      case 'lookupBlock':
        return blockIdJson(this.lookup(params));
      case 'tryLocateSourceTx':
        return transactionJson(this.sourceTransaction(params));
      default:
        return undefined;
    }
  }

  private master(seqno: number): MasterBlock {
    const master = this.masters[seqno];
    if (master === undefined || !Number.isInteger(seqno)) throw new Error('LITE_SERVER_NOTREADY: block not found');
    return master;
  }

  private block(params: Record<string, string>): MasterBlock | ShardBlock {
    const seqno = Number(params.seqno);
    if (Number(params.workchain) === -1) return this.master(seqno);
    const shard = this.shards.get(`${params.shard}:${seqno}`);
    if (shard === undefined) throw new Error('LITE_SERVER_NOTREADY: block not found');
    return shard;
  }

  private header(block: MasterBlock | ShardBlock): unknown {
    const previous: BlockId[] =
      'prev' in block ? block.prev : block.seqno === 0 ? [] : [this.masters[block.seqno - 1]!];
    return {
      '@type': 'blocks.header',
      id: blockIdJson(block),
      global_id: this.options.globalId ?? 42,
      version: 0,
      after_merge: false,
      after_split: false,
      before_split: false,
      want_merge: false,
      want_split: false,
      validator_list_hash_short: 1,
      catchain_seqno: 0,
      min_ref_mc_seqno: Math.max(0, this.masters.length - 1),
      is_key_block: block.seqno === 0,
      prev_key_block_seqno: 0,
      start_lt: block.startLt.toString(),
      end_lt: block.endLt.toString(),
      gen_utime: block.genUtime,
      prev_blocks: previous.map(blockIdJson),
    };
  }

  private blockTransactions(params: Record<string, string>): unknown {
    const block = this.block(params);
    const transactions = 'transactions' in block ? block.transactions : [];
    const count = Math.min(Number(params.count ?? 40), 256);
    let start = 0;
    if (params.after_lt !== undefined) {
      const afterLt = BigInt(params.after_lt);
      const afterHash = params.after_hash === undefined ? undefined : hashBuffer(params.after_hash);
      start =
        transactions.findIndex((tx) => tx.lt === afterLt && (afterHash === undefined || tx.hash().equals(afterHash))) +
        1;
    }
    const page = transactions.slice(start, start + count);
    return {
      '@type': 'blocks.transactions',
      id: blockIdJson(block),
      req_count: count,
      incomplete: start + count < transactions.length,
      transactions: page.map((tx) => ({
        '@type': 'blocks.shortTxId',
        mode: 135,
        account: accountOf(tx).toRawString(),
        lt: tx.lt.toString(),
        hash: tx.hash().toString('base64'),
      })),
    };
  }

  /** Newest first, from (`lt`, `hash`) when given, down to but not including `to_lt`. */
  private transactions(params: Record<string, string>): unknown {
    const address = Address.parse(params.address!);
    const limit = Math.min(Number(params.limit ?? 10), 100);
    const toLt = BigInt(params.to_lt ?? 0);
    const all = [...this.shards.values()]
      .flatMap((block) => block.transactions)
      .filter((tx) => accountOf(tx).equals(address))
      .sort((a, b) => (a.lt > b.lt ? -1 : a.lt < b.lt ? 1 : 0));
    let start = 0;
    if (params.lt !== undefined) {
      start = all.findIndex((tx) => tx.lt === BigInt(params.lt!));
      if (start < 0 || (params.hash !== undefined && !all[start]!.hash().equals(hashBuffer(params.hash))))
        throw new Error('LITE_SERVER_UNKNOWN: cannot find transaction');
    }
    return all
      .slice(start)
      .filter((tx) => toLt === 0n || tx.lt > toLt)
      .slice(0, limit)
      .map((tx) => transactionJson(tx));
  }

  private async runGetMethod(params: Record<string, string>): Promise<unknown> {
    const chain = await this.stateAt(params.seqno);
    const stack = ((params.stack as unknown as [string, string][] | undefined) ?? []).map(stackArgument);
    const address = Address.parse(params.address!);
    let exitCode: number;
    let items: TupleItem[] = [];
    let gasUsed = 0n;
    try {
      const result = await chain.runGetMethod(address, params.method!, stack);
      exitCode = result.exitCode;
      items = result.stack;
      gasUsed = result.gasUsed;
    } catch (error) {
      // The sandbox throws for a failed get-method; toncenter answers with its exit code.
      exitCode = (error as { exitCode?: number }).exitCode ?? -13;
    }
    return {
      '@type': 'smc.runResult',
      gas_used: Number(gasUsed),
      stack: items.map(stackEntry),
      exit_code: exitCode,
      block_id: blockIdJson(this.masters[this.masters.length - 1]!),
      last_transaction_id: { '@type': 'internal.transactionId', lt: '0', hash: Buffer.alloc(32).toString('base64') },
    };
  }

  /**
   * The transaction on `source` that sent the internal message to `destination` created at
   * `created_lt` (toncenter answers `ok: false` when there is none).
   */
  private sourceTransaction(params: Record<string, string>): Transaction {
    if (params.source === undefined || params.destination === undefined || params.created_lt === undefined) {
      throw new Error('source, destination and created_lt required');
    }
    const source = Address.parse(params.source);
    const destination = Address.parse(params.destination);
    const createdLt = BigInt(params.created_lt);
    for (const block of this.shards.values()) {
      for (const tx of block.transactions) {
        if (!accountOf(tx).equals(source)) continue;
        const sent = [...tx.outMessages.values()].some(
          (message) =>
            message.info.type === 'internal' &&
            message.info.createdLt === createdLt &&
            message.info.dest.equals(destination),
        );
        if (sent) return tx;
      }
    }
    throw new Error('LITE_SERVER_UNKNOWN: cannot locate the source transaction');
  }

  private lookup(params: Record<string, string>): BlockId {
    if (Number(params.workchain) !== -1) throw new Error('LITE_SERVER_NOTREADY: only masterchain lookups are served');
    if (params.seqno !== undefined) return this.master(Number(params.seqno));
    if (params.lt !== undefined) {
      const lt = BigInt(params.lt);
      const found = this.masters.find((master) => master.endLt >= lt);
      if (found === undefined) throw new Error('LITE_SERVER_NOTREADY: block not found');
      return found;
    }
    throw new Error('seqno or lt required');
  }

  /** The sandbox as of masterchain block `seqno` (the latest block when absent). */
  private stateAt(seqno: string | undefined): Promise<Blockchain> {
    const number = seqno === undefined ? this.head : Number(seqno);
    const master = this.master(number);
    let chain = this.scratch.get(number);
    if (chain === undefined) {
      chain = (async () => {
        const copy = await Blockchain.create();
        await copy.loadFrom(master.snapshot);
        return copy;
      })();
      this.scratch.set(number, chain);
      // Keep a few recent ones.
      for (const key of this.scratch.keys()) if (this.scratch.size > 4) this.scratch.delete(key);
    }
    return chain;
  }
}

/** Whether `shard` (a signed 64-bit shard id) holds `account`: the account's first bits are the shard's prefix. */
function covers(shard: string, account: Address): boolean {
  const id = BigInt.asUintN(64, BigInt(shard));
  const lowest = id & -id;
  const prefix = BigInt(`0x${account.hash.subarray(0, 8).toString('hex')}`);
  return prefix >= id - lowest && prefix <= id + lowest - 1n;
}

function zeroState(kind: string): Buffer {
  return createHash('sha256').update(`chaintags stand-in zero state ${kind}`).digest();
}

function hashBuffer(text: string): Buffer {
  return /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
}

function blockIdJson(block: BlockId): Record<string, unknown> {
  return {
    '@type': 'ton.blockIdExt',
    workchain: block.workchain,
    shard: block.shard,
    seqno: block.seqno,
    root_hash: block.rootHash.toString('base64'),
    file_hash: block.fileHash.toString('base64'),
  };
}

function accountOf(tx: Transaction): Address {
  const dest = tx.inMessage?.info.dest;
  if (dest instanceof Address) return dest;
  throw new Error('a transaction without an inbound message to an account');
}

function friendly(address: unknown): string {
  return address instanceof Address ? address.toString({ bounceable: true }) : '';
}

function messageJson(message: Transaction['inMessage']): Record<string, unknown> {
  if (message === undefined || message === null) return {};
  const info = message.info;
  const internal = info.type === 'internal';
  const body = message.body;
  const comment = body.beginParse();
  const text = comment.remainingBits >= 32 && comment.loadUint(32) === 0 ? comment.loadStringTail() : '';
  return {
    '@type': 'ext.message',
    hash: beginCell().storeRef(body).endCell().hash().toString('base64'),
    source: info.type === 'external-in' ? '' : friendly(info.src),
    destination: info.type === 'external-out' ? '' : friendly(info.dest),
    value: internal ? info.value.coins.toString() : '0',
    extra_currencies: [],
    fwd_fee: internal ? info.forwardFee.toString() : '0',
    ihr_fee: internal ? info.ihrFee.toString() : '0',
    created_lt: info.type === 'external-in' ? '0' : info.createdLt.toString(),
    body_hash: body.hash().toString('base64'),
    msg_data: { '@type': 'msg.dataRaw', body: body.toBoc().toString('base64'), init_state: '' },
    message: text,
    message_decode_error: '',
  };
}

/** A transaction as toncenter's getTransactions gives it (`ext.transaction`). */
function transactionJson(tx: Transaction): Record<string, unknown> {
  const fees = tx.totalFees.coins.toString();
  return {
    '@type': 'ext.transaction',
    address: { '@type': 'accountAddress', account_address: friendly(accountOf(tx)) },
    account: accountOf(tx).toRawString(),
    utime: tx.now,
    data: tx.raw.toBoc().toString('base64'),
    transaction_id: { '@type': 'internal.transactionId', lt: tx.lt.toString(), hash: tx.hash().toString('base64') },
    fee: fees,
    storage_fee: '0',
    other_fee: fees,
    out_msgs: [...tx.outMessages.values()].map((message) => messageJson(message)),
    in_msg: messageJson(tx.inMessage),
  };
}

/** A stack argument in ton-http-api's legacy form: `['num', '0x…']`, `['tvm.Slice', boc]`, `['tvm.Cell', boc]`. */
function stackArgument([kind, value]: [string, string]): TupleItem {
  if (kind === 'num') return { type: 'int', value: BigInt(value) };
  const cell = Cell.fromBase64(value);
  return kind === 'tvm.Slice' ? { type: 'slice', cell } : { type: 'cell', cell };
}

/** A stack entry in ton-http-api's legacy answer form: `['num', '0x…']`, `['cell', { bytes }]`. */
function stackEntry(item: TupleItem): unknown {
  switch (item.type) {
    case 'int':
      return ['num', item.value < 0n ? `-0x${(-item.value).toString(16)}` : `0x${item.value.toString(16)}`];
    case 'cell':
    case 'slice':
    case 'builder':
      return ['cell', { bytes: item.cell.toBoc().toString('base64'), object: {} }];
    case 'null':
      return ['list', { '@type': 'tvm.list', elements: [] }];
    case 'nan':
    case 'tuple':
      return ['unsupported', {}];
  }
}
