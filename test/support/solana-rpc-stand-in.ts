import { randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import {
  address as toAddress,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getBase58Decoder,
  getCompiledTransactionMessageDecoder,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Instruction,
  type TransactionSigner,
  type ReadonlyUint8Array,
  type V0CompiledTransactionMessage,
} from '@solana/kit';
import { FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from 'litesvm';

/**
 * A Solana node's JSON-RPC face over litesvm, for the follower's tests: litesvm executes real
 * transactions (the System, SPL Token, Token-2022 and Associated Token programs are built in);
 * this server puts them in blocks and answers the methods the follower calls, in the shapes
 * Solana's RPC documentation gives (checked against its examples in test/fixtures/solana/).
 *
 * What it adds to litesvm, as a node would: slots (`produce` seals the transactions sent since the
 * last block into a block at the next slot, after `skip` empty slots), a finalized slot that moves
 * when the test says, and each transaction's meta: error, fee, balances and token balances (owner,
 * mint, amount) before and after, inner instructions and logs. Failed transactions are in their
 * block with `meta.err` and their fee charged.
 *
 * Account reads (`getMultipleAccounts`, `getTokenAccountsByOwner`) answer litesvm's state, which
 * includes transactions not yet in a finalized block: tests read balances once everything sent is
 * finalized. Only the methods and options the Solana source uses are served.
 */

export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' as Address;
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb' as Address;
const TOKEN_PROGRAMS: readonly string[] = [TOKEN_PROGRAM, TOKEN_2022_PROGRAM];

/** litesvm's fee: 5,000 lamports a signature. */
const LAMPORTS_PER_SIGNATURE = 5000;
const TOKEN_ACCOUNT_SIZE = 165;
/** Token-2022's account-type byte after the 165 bytes of a base account: 1 a mint, 2 a token account. */
const ACCOUNT_TYPE_ACCOUNT = 2;

interface JsonInstruction {
  programIdIndex: number;
  accounts: number[];
  data: string;
  stackHeight: number | null;
}

interface JsonTokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: { amount: string; decimals: number; uiAmount: number | null; uiAmountString: string };
}

/** A transaction as `getBlock`/`getTransaction` give it with `encoding: 'json'`. */
export interface RecordedTransaction {
  signature: string;
  accountKeys: string[];
  transaction: {
    message: {
      accountKeys: string[];
      header: { numReadonlySignedAccounts: number; numReadonlyUnsignedAccounts: number; numRequiredSignatures: number };
      instructions: JsonInstruction[];
      recentBlockhash: string;
      addressTableLookups: [];
    };
    signatures: string[];
  };
  meta: {
    err: unknown;
    fee: number;
    innerInstructions: { index: number; instructions: JsonInstruction[] }[];
    logMessages: string[];
    postBalances: number[];
    postTokenBalances: JsonTokenBalance[];
    preBalances: number[];
    preTokenBalances: JsonTokenBalance[];
    rewards: [];
    status: { Ok: null } | { Err: unknown };
    loadedAddresses: { writable: string[]; readonly: string[] };
    computeUnitsConsumed: number;
  };
  version: 0;
}

interface Block {
  slot: bigint;
  blockhash: string;
  previousBlockhash: string;
  parentSlot: bigint;
  blockTime: number;
  blockHeight: number;
  transactions: RecordedTransaction[];
}

export interface SolanaStandIn {
  url: string;
  svm: LiteSVM;
  genesisHash: string;
  /** Runs `instructions` paid and signed by `payer` (and `signers`); recorded for the next block. */
  send(payer: TransactionSigner, instructions: readonly Instruction[]): Promise<{ signature: string; failed: boolean }>;
  /** Seals the transactions sent since the last block into a block, after `skip` empty slots; finalizes it unless told not to. */
  produce(options?: { skip?: number; finalize?: boolean }): bigint;
  /** Moves the finalized slot up to `slot` (the newest block when omitted). */
  finalize(slot?: bigint): void;
  finalized(): bigint;
  /** Slots that have a block, ascending. */
  slots(): bigint[];
  block(slot: bigint): Block | undefined;
  /** Every request's method, in order. */
  methods: string[];
  /** Every request's Authorization header, in order. */
  authorizations: (string | undefined)[];
  /** Answers every request `ms` late from now on (0: at once): a slow node. */
  slowDown(ms: number): void;
  /** The last answer to each method, as sent. */
  answers: Map<string, unknown>;
  close(): Promise<void>;
}

export async function startSolanaStandIn(
  options: { genesisHash?: string; firstSlot?: bigint } = {},
): Promise<SolanaStandIn> {
  const svm = new LiteSVM();
  const base58 = getBase58Decoder();
  const genesisHash = options.genesisHash ?? base58.decode(randomBytes(32));
  const blocks = new Map<bigint, Block>();
  const produced: bigint[] = [];
  const bySignature = new Map<string, { slot: bigint; tx: RecordedTransaction }>();
  let pending: RecordedTransaction[] = [];
  let slot = options.firstSlot ?? 1000n;
  let finalizedSlot = -1n;
  let lastHash = base58.decode(randomBytes(32));
  // The genesis block: the first slot has a block, so the head is a block from the start.
  const methods: string[] = [];
  const authorizations: (string | undefined)[] = [];
  const answers = new Map<string, unknown>();

  const accountState = (key: string) => {
    const account = svm.getAccount(toAddress(key));
    if (!account.exists) return { lamports: 0, token: undefined };
    return { lamports: Number(account.lamports), token: tokenAccount(account.programAddress, account.data) };
  };
  const decimalsOf = (mint: string): number => {
    const account = svm.getAccount(toAddress(mint));
    return account.exists ? (account.data[44] ?? 0) : 0;
  };
  const tokenBalances = (keys: readonly string[], states: ReturnType<typeof accountState>[]): JsonTokenBalance[] =>
    states.flatMap((state, index) => {
      if (state.token === undefined) return [];
      const decimals = decimalsOf(state.token.mint);
      return [
        {
          accountIndex: index,
          mint: state.token.mint,
          owner: state.token.owner,
          programId: state.token.program,
          uiTokenAmount: uiAmount(state.token.amount, decimals),
        },
      ];
    });

  const send: SolanaStandIn['send'] = async (payer, instructions) => {
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash({ blockhash: svm.latestBlockhash(), lastValidBlockHeight: 0n }, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    );
    const signed = await signTransactionMessageWithSigners(message);
    // Version 0, as built above.
    const compiled = getCompiledTransactionMessageDecoder().decode(
      signed.messageBytes,
    ) as V0CompiledTransactionMessage & Readonly<{ lifetimeToken: string }>;
    const keys = compiled.staticAccounts.map(String);
    const before = keys.map(accountState);
    const result = svm.sendTransaction(signed);
    // A new blockhash for the next transaction, as slots pass on a node: identical transfers stay distinct.
    svm.expireBlockhash();
    const after = keys.map(accountState);
    const failed = result instanceof FailedTransactionMetadata;
    const meta: TransactionMetadata = failed ? result.meta() : result;
    const signature = getSignatureFromTransaction(signed);
    const err = failed ? errorJson(result) : null;
    const recorded: RecordedTransaction = {
      signature,
      accountKeys: keys,
      transaction: {
        message: {
          accountKeys: keys,
          header: {
            numReadonlySignedAccounts: compiled.header.numReadonlySignerAccounts,
            numReadonlyUnsignedAccounts: compiled.header.numReadonlyNonSignerAccounts,
            numRequiredSignatures: compiled.header.numSignerAccounts,
          },
          instructions: compiled.instructions.map((instruction) => ({
            programIdIndex: instruction.programAddressIndex,
            accounts: [...(instruction.accountIndices ?? [])],
            data: base58.decode(instruction.data ?? new Uint8Array()),
            stackHeight: 1,
          })),
          recentBlockhash: String(compiled.lifetimeToken),
          addressTableLookups: [],
        },
        signatures: Object.values(signed.signatures).map((bytes) => base58.decode(bytes!)),
      },
      meta: {
        err,
        fee: LAMPORTS_PER_SIGNATURE * compiled.header.numSignerAccounts,
        innerInstructions: meta
          .innerInstructions()
          .map((list, index) => ({
            index,
            instructions: list.map((inner) => {
              const instruction = inner.instruction();
              return {
                programIdIndex: instruction.programIdIndex(),
                accounts: [...instruction.accounts()],
                data: base58.decode(instruction.data()),
                stackHeight: inner.stackHeight(),
              };
            }),
          }))
          .filter((entry) => entry.instructions.length > 0),
        logMessages: meta.logs(),
        postBalances: after.map((state) => state.lamports),
        postTokenBalances: tokenBalances(keys, after),
        preBalances: before.map((state) => state.lamports),
        preTokenBalances: tokenBalances(keys, before),
        rewards: [],
        status: err === null ? { Ok: null } : { Err: err },
        loadedAddresses: { writable: [], readonly: [] },
        computeUnitsConsumed: Number(meta.computeUnitsConsumed()),
      },
      version: 0,
    };
    pending.push(recorded);
    return { signature, failed };
  };

  const produce: SolanaStandIn['produce'] = ({ skip = 0, finalize: final = true } = {}) => {
    const parent = produced[produced.length - 1];
    slot = parent === undefined ? slot : parent + 1n + BigInt(skip);
    const block: Block = {
      slot,
      blockhash: base58.decode(randomBytes(32)),
      previousBlockhash: lastHash,
      parentSlot: parent ?? slot - 1n,
      blockTime: Math.floor(Date.now() / 1000),
      blockHeight: produced.length,
      transactions: pending,
    };
    for (const tx of pending) bySignature.set(tx.signature, { slot, tx });
    pending = [];
    blocks.set(slot, block);
    produced.push(slot);
    lastHash = block.blockhash;
    if (final) finalizedSlot = slot;
    return slot;
  };
  produce();

  const handle = (method: string, params: unknown[]): unknown => {
    // The configuration object is always the last parameter (getTokenAccountsByOwner's filter is an object too).
    const last = params[params.length - 1];
    const config = (typeof last === 'object' && last !== null && !Array.isArray(last) ? last : {}) as Record<
      string,
      unknown
    >;
    const minContext = config.minContextSlot;
    if (typeof minContext === 'number' && BigInt(minContext) > finalizedSlot) {
      throw new RpcFailure(-32016, 'Minimum context slot has not been reached');
    }
    const context = { apiVersion: '2.2.0', slot: Number(finalizedSlot) };
    switch (method) {
      case 'getGenesisHash':
        return genesisHash;
      case 'getSlot':
        // A node's default commitment is finalized (clients such as kit leave it out when they mean it).
        return Number(
          config.commitment === undefined || config.commitment === 'finalized'
            ? finalizedSlot
            : (produced[produced.length - 1] ?? 0n),
        );
      case 'getBlocks': {
        const start = BigInt(params[0] as number);
        const end = typeof params[1] === 'number' ? BigInt(params[1]) : finalizedSlot;
        return produced.filter((at) => at >= start && at <= end && at <= finalizedSlot).map(Number);
      }
      case 'getBlocksWithLimit': {
        const start = BigInt(params[0] as number);
        const limit = params[1] as number;
        return produced
          .filter((at) => at >= start && at <= finalizedSlot)
          .slice(0, limit)
          .map(Number);
      }
      case 'getBlock': {
        const at = BigInt(params[0] as number);
        if (config.encoding !== 'json') throw new RpcFailure(-32602, 'the stand-in serves encoding json only');
        if (at > finalizedSlot) throw new RpcFailure(-32004, `Block not available for slot ${at}`);
        const block = blocks.get(at);
        if (block === undefined) {
          throw new RpcFailure(-32007, `Slot ${at} was skipped, or missing due to ledger jump to recent snapshot`);
        }
        if (block.transactions.length > 0 && config.maxSupportedTransactionVersion !== 0) {
          throw new RpcFailure(-32015, 'Transaction version (0) is not supported by the requesting client');
        }
        const details = config.transactionDetails ?? 'full';
        return {
          blockHeight: block.blockHeight,
          blockTime: block.blockTime,
          blockhash: block.blockhash,
          parentSlot: Number(block.parentSlot),
          previousBlockhash: block.previousBlockhash,
          ...(details === 'full'
            ? {
                transactions: block.transactions.map(({ transaction, meta, version }) => ({
                  transaction,
                  meta,
                  version,
                })),
              }
            : {}),
          ...(config.rewards === false ? {} : { rewards: [] }),
        };
      }
      case 'getTransaction': {
        const found = bySignature.get(params[0] as string);
        if (found === undefined || found.slot > finalizedSlot) return null;
        const { transaction, meta, version } = found.tx;
        return { blockTime: blocks.get(found.slot)!.blockTime, meta, slot: Number(found.slot), transaction, version };
      }
      case 'getSignaturesForAddress': {
        const account = params[0] as string;
        const limit = typeof config.limit === 'number' ? config.limit : 1000;
        const entries: unknown[] = [];
        let started = config.before === undefined;
        for (const at of [...produced].reverse()) {
          if (at > finalizedSlot) continue;
          const block = blocks.get(at)!;
          for (const tx of [...block.transactions].reverse()) {
            if (!started) {
              started = tx.signature === config.before;
              continue;
            }
            if (tx.signature === config.until) return entries;
            if (!tx.accountKeys.includes(account)) continue;
            entries.push({
              blockTime: block.blockTime,
              confirmationStatus: 'finalized',
              err: tx.meta.err,
              memo: null,
              signature: tx.signature,
              slot: Number(at),
            });
            if (entries.length === limit) return entries;
          }
        }
        return entries;
      }
      case 'getMultipleAccounts': {
        const keys = params[0] as string[];
        return { context, value: keys.map((key) => accountJson(svm, key, config)) };
      }
      case 'getTokenAccountsByOwner': {
        const owner = params[0] as string;
        const filter = params[1] as { programId?: string; mint?: string };
        if (config.encoding !== 'jsonParsed') throw new RpcFailure(-32602, 'the stand-in serves jsonParsed only');
        const programs = filter.programId === undefined ? TOKEN_PROGRAMS : [filter.programId];
        const value = programs.flatMap((program) =>
          svm
            .getProgramAccounts(toAddress(program))
            .filter((account) => {
              const token = tokenAccount(account.programAddress, account.data);
              return token?.owner === owner && (filter.mint === undefined || token.mint === filter.mint);
            })
            .map((account) => ({
              pubkey: String(account.address),
              account: accountJson(svm, account.address, config)!,
            })),
        );
        return { context, value };
      }
      default:
        throw new RpcFailure(-32601, 'Method not found');
    }
  };

  let delayMs = 0;
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on(
      'end',
      () =>
        void later(delayMs).then(() => {
          const body = JSON.parse(text) as { id: unknown; method: string; params?: unknown[] };
          methods.push(body.method);
          authorizations.push(request.headers.authorization);
          let reply: unknown;
          try {
            const result = handle(body.method, body.params ?? []);
            answers.set(body.method, result);
            reply = { jsonrpc: '2.0', result, id: body.id };
          } catch (error) {
            if (!(error instanceof RpcFailure)) throw error;
            reply = { jsonrpc: '2.0', error: { code: error.code, message: error.message }, id: body.id };
          }
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify(reply));
        }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/`,
    svm,
    genesisHash,
    send,
    produce,
    finalize: (to) => {
      finalizedSlot = to ?? produced[produced.length - 1]!;
    },
    finalized: () => finalizedSlot,
    slots: () => [...produced],
    block: (at) => blocks.get(at),
    methods,
    authorizations,
    answers,
    slowDown: (ms) => {
      delayMs = ms;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function later(ms: number): Promise<void> {
  return ms === 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));
}

class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** A token account's mint, owner and amount, undefined for any other account. */
function tokenAccount(
  program: string,
  data: ReadonlyUint8Array,
): { program: string; mint: string; owner: string; amount: bigint } | undefined {
  if (!TOKEN_PROGRAMS.includes(program)) return undefined;
  const isAccount =
    data.length === TOKEN_ACCOUNT_SIZE ||
    (data.length > TOKEN_ACCOUNT_SIZE && data[TOKEN_ACCOUNT_SIZE] === ACCOUNT_TYPE_ACCOUNT);
  if (!isAccount) return undefined;
  const base58 = getBase58Decoder();
  return {
    program,
    mint: base58.decode(data.subarray(0, 32)),
    owner: base58.decode(data.subarray(32, 64)),
    amount: Buffer.from(data).readBigUInt64LE(64),
  };
}

function uiAmount(amount: bigint, decimals: number): JsonTokenBalance['uiTokenAmount'] {
  const text = amount.toString().padStart(decimals + 1, '0');
  const whole = text.slice(0, text.length - decimals);
  const fraction = text.slice(text.length - decimals).replace(/0+$/, '');
  const uiAmountString = fraction === '' ? whole : `${whole}.${fraction}`;
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}

/** An account in the documented shape: base64 data, or parsed token accounts and mints with `jsonParsed`. */
function accountJson(svm: LiteSVM, key: string, config: Record<string, unknown>): Record<string, unknown> | null {
  const account = svm.getAccount(toAddress(key));
  if (!account.exists) return null;
  const common = {
    executable: account.executable,
    lamports: Number(account.lamports),
    owner: String(account.programAddress),
    rentEpoch: 0,
    space: Number(account.space),
  };
  const program = String(account.programAddress);
  if (config.encoding === 'jsonParsed' && TOKEN_PROGRAMS.includes(program)) {
    const name = program === TOKEN_PROGRAM ? 'spl-token' : 'spl-token-2022';
    const token = tokenAccount(program, account.data);
    if (token !== undefined) {
      const decimals = svm.getAccount(toAddress(token.mint));
      const tokenAmount = uiAmount(token.amount, decimals.exists ? (decimals.data[44] ?? 0) : 0);
      return {
        ...common,
        data: {
          program: name,
          parsed: {
            info: { isNative: false, mint: token.mint, owner: token.owner, state: 'initialized', tokenAmount },
            type: 'account',
          },
          space: Number(account.space),
        },
      };
    }
    if (account.data.length >= 82 && (account.data.length === 82 || account.data[TOKEN_ACCOUNT_SIZE] === 1)) {
      const data = Buffer.from(account.data);
      const base58 = getBase58Decoder();
      return {
        ...common,
        data: {
          program: name,
          parsed: {
            info: {
              decimals: data[44],
              freezeAuthority: data.readUInt32LE(46) === 1 ? base58.decode(data.subarray(50, 82)) : null,
              isInitialized: data[45] === 1,
              mintAuthority: data.readUInt32LE(0) === 1 ? base58.decode(data.subarray(4, 36)) : null,
              supply: data.readBigUInt64LE(36).toString(),
              ...(data.length > TOKEN_ACCOUNT_SIZE + 1 ? { extensions: mintExtensions(data) } : {}),
            },
            type: 'mint',
          },
          space: Number(account.space),
        },
      };
    }
  }
  const slice = config.dataSlice as { offset: number; length: number } | undefined;
  const data = slice === undefined ? account.data : account.data.subarray(slice.offset, slice.offset + slice.length);
  return { ...common, data: [Buffer.from(data).toString('base64'), 'base64'] };
}

/** Token-2022's extension type of the token metadata a mint holds itself (`ExtensionType::TokenMetadata`). */
const TOKEN_METADATA_EXTENSION = 19;

/**
 * A Token-2022 mint's extensions as `jsonParsed` shows them: after the 165-byte base and the
 * account-type byte, entries of a u16 type, a u16 length and the value. The token metadata
 * (update authority, mint, then name, symbol and uri as u32-prefixed UTF-8) is parsed; any other
 * extension is listed by its type only.
 */
function mintExtensions(data: Buffer): { extension: string; state?: Record<string, unknown> }[] {
  const base58 = getBase58Decoder();
  const extensions: { extension: string; state?: Record<string, unknown> }[] = [];
  let offset = TOKEN_ACCOUNT_SIZE + 1;
  while (offset + 4 <= data.length) {
    const type = data.readUInt16LE(offset);
    const length = data.readUInt16LE(offset + 2);
    const value = data.subarray(offset + 4, offset + 4 + length);
    offset += 4 + length;
    if (type === 0) break;
    if (type !== TOKEN_METADATA_EXTENSION) {
      extensions.push({ extension: `type${type}` });
      continue;
    }
    let at = 64;
    const text = () => {
      const size = value.readUInt32LE(at);
      const read = value.subarray(at + 4, at + 4 + size).toString('utf8');
      at += 4 + size;
      return read;
    };
    const [name, symbol, uri] = [text(), text(), text()];
    extensions.push({
      extension: 'tokenMetadata',
      state: {
        additionalMetadata: [],
        mint: base58.decode(value.subarray(32, 64)),
        name,
        symbol,
        updateAuthority: base58.decode(value.subarray(0, 32)),
        uri,
      },
    });
  }
  return extensions;
}

/** A failed transaction's `err` as a node writes it: `{ "InstructionError": [index, error] }` for an instruction's failure. */
function errorJson(result: FailedTransactionMetadata): unknown {
  const error = result.err() as { index?: number; err?: () => unknown; toString(): string };
  if (typeof error.index === 'number' && typeof error.err === 'function') {
    const inner = error.err() as { code?: number } | number;
    return {
      InstructionError: [
        error.index,
        typeof inner === 'object' && typeof inner.code === 'number' ? { Custom: inner.code } : JSON.stringify(inner),
      ],
    };
  }
  return String(error);
}
