import { address as toAddress, type Address } from '@solana/kit';
import type { Chain } from '../../../core/chains/chain-registry';
import type { ChainId } from '../../../core/chains/chain-ids';
import type { TokenInput } from '../../../core/records/record-input';
import type { FollowedChainConfig } from '../../../config/config';
import {
  onePassBackfill,
  type AddressShape,
  type BackfillPlan,
  type BackfillState,
  type ChainSource,
  type SourceReading,
} from '../chain-source';
import {
  ChainMoved,
  holdingKey,
  NATIVE,
  TouchedSet,
  type BlockHeader,
  type HoldingKey,
  type ObservedTransfer,
} from '../reading';
import { networkMismatch } from './network';
import { SolanaNodeError, SolanaRpc } from './solana-rpc';
import { readTransaction, TOKEN_PROGRAMS, type SlotOf, type SolanaTransaction } from './solana-transaction';
import { mintTokens } from './token-metadata';
import { solanaAddressShape } from './address-shape';

export interface SolanaSourceTuning {
  /** `getBlock` requests in flight at once while reading a range. */
  parallelBlocks: number;
  /** Signatures per `getSignaturesForAddress` page (the node's maximum is 1,000). */
  signaturesPerPage: number;
}

export const SOLANA_SOURCE_TUNING: SolanaSourceTuning = { parallelBlocks: 8, signaturesPerPage: 1000 };

/** A slot that produced no block: the node's answer to `getBlock` there (-32009 from long-term storage). */
const SKIPPED = new Set([-32007, -32009]);

/** `getMultipleAccounts` takes at most 100 keys. */
const ACCOUNTS_PER_CALL = 100;

const FINALIZED = 'finalized' as const;

/** A block as `getBlock` answers with `encoding: 'json'` and full transaction details (the fields read). */
interface JsonBlock {
  blockhash: string;
  previousBlockhash: string;
  parentSlot: bigint | number;
  blockTime: bigint | number | null;
  transactions?: readonly JsonTransaction[];
}

interface JsonInstruction {
  programIdIndex: number;
  accounts: readonly number[];
  data: string;
}

interface JsonTokenBalance {
  accountIndex: number;
  mint: string;
  owner?: string;
  uiTokenAmount: { amount: string };
}

interface JsonTransaction {
  slot?: bigint | number;
  blockTime?: bigint | number | null;
  transaction: {
    signatures: readonly string[];
    message: { accountKeys: readonly string[]; instructions: readonly JsonInstruction[] };
  };
  meta: {
    err: unknown;
    preBalances: readonly (bigint | number)[];
    postBalances: readonly (bigint | number)[];
    innerInstructions?: readonly { index: number; instructions: readonly JsonInstruction[] }[] | null;
    preTokenBalances?: readonly JsonTokenBalance[] | null;
    postTokenBalances?: readonly JsonTokenBalance[] | null;
    loadedAddresses?: { writable: readonly string[]; readonly: readonly string[] } | null;
  } | null;
}

/** A token account as `getTokenAccountsByOwner` answers with `jsonParsed`. */
interface ParsedTokenAccount {
  pubkey: string;
  account: { data: { parsed?: { info?: { mint?: string; tokenAmount?: { amount?: string } } } } };
}

/**
 * Solana as a chain source (contract §16), over its JSON-RPC at `finalized` commitment.
 *
 * The head is the newest finalized slot; a range is the slots `getBlocks` lists in it (skipped
 * slots have no block and are passed over), each read with `getBlock` (`json`, full transaction
 * details). Transfers and the balances they touch are read from each transaction
 * (`readTransaction`): token transfers are matched by the owners of the token accounts, which
 * the transaction's token balances name. Finalized slots never roll back, but every block's
 * `previousBlockhash` is still checked against the block read before it, and the follower's kept
 * hashes against the node's.
 *
 * Balances are the node's: `getMultipleAccounts` for lamports and `getTokenAccountsByOwner` for
 * both token programs, summed per mint, asked with `minContextSlot` at the slot reached (a node
 * answers at its newest finalized slot, at or above it). Nothing of the source's own is kept.
 *
 * An address tracked later is backfilled from `getSignaturesForAddress` for the wallet and each of
 * its token accounts (accounts it holds now), over NATIVE_BACKFILL_BLOCKS_SOLANA slots before it
 * was taken in, and `getTransaction` for each signature, in one step.
 */
export class SolanaSource implements ChainSource {
  readonly chain: ChainId;
  readonly addresses: AddressShape;
  private readonly rpc: SolanaRpc;

  constructor(
    private readonly facts: Chain,
    private readonly settings: FollowedChainConfig,
    private readonly tuning: SolanaSourceTuning = SOLANA_SOURCE_TUNING,
  ) {
    this.chain = settings.chain;
    this.rpc = new SolanaRpc(settings.rpcUrls);
    this.addresses = solanaAddressShape(settings.chain);
  }

  mismatch(): Promise<string | undefined> {
    return networkMismatch(this.rpc, this.settings.network);
  }

  async head(): Promise<bigint> {
    return BigInt(await this.rpc.call((client) => client.getSlot({ commitment: FINALIZED })));
  }

  async header(slot: bigint): Promise<BlockHeader | undefined> {
    const block = await this.block(slot, false);
    return block === undefined ? undefined : headerOf(slot, block);
  }

  async prepare(): Promise<void> {
    // Everything the Solana source needs is on the node.
  }

  async readRange(
    from: bigint,
    to: bigint,
    followed: ReadonlySet<string>,
  ): Promise<SourceReading & { headers: BlockHeader[] }> {
    let slots = (await this.rpc.call((client) => client.getBlocks(from, to, { commitment: FINALIZED }))).map(BigInt);
    if (slots.length === 0) {
      // Every slot of the range was skipped: the range stretches to the next block, which is finalized
      // (the head is a block), so the follower's position is always a block's.
      slots = (await this.rpc.call((client) => client.getBlocksWithLimit(from, 1, { commitment: FINALIZED }))).map(
        BigInt,
      );
      if (slots.length === 0) throw new Error(`the node has no finalized block from slot ${from} on`);
    }
    const blocks = await this.blocks(slots);
    const headers: BlockHeader[] = [];
    const transfers: ObservedTransfer[] = [];
    const touched = new TouchedSet();
    blocks.forEach((block, index) => {
      const slot = slots[index]!;
      const header = headerOf(slot, block);
      const previous = headers[headers.length - 1];
      if (
        previous !== undefined &&
        (header.parentHash !== previous.hash || BigInt(block.parentSlot) !== previous.number)
      )
        throw new ChainMoved(`block ${slot} does not follow block ${previous.number}`, slot);
      headers.push(header);
      const at: SlotOf = { slot, hash: header.hash, time: header.time };
      for (const raw of block.transactions ?? []) {
        const tx = toTransaction(raw);
        if (tx === undefined) continue;
        const read = readTransaction(tx, at, followed);
        transfers.push(...read.transfers);
        touched.addAll(read.touched);
      }
    });
    return { transfers, touched: touched.list(), headers };
  }

  async takeIn(fresh: readonly string[]): Promise<SourceReading> {
    const touched = new TouchedSet();
    const known = new Map<string, string>();
    const lamports = await this.lamports(fresh, undefined);
    for (const owner of fresh) {
      touched.add(owner, NATIVE);
      known.set(holdingKey({ address: owner, token_address: NATIVE }), (lamports.get(owner) ?? 0n).toString());
      for (const [mint, amount] of await this.tokenHoldings(owner, undefined)) {
        touched.add(owner, mint);
        known.set(holdingKey({ address: owner, token_address: mint }), amount.toString());
      }
    }
    return { transfers: [], touched: touched.list(), known };
  }

  backfillFor(trackedAt: bigint): BackfillPlan {
    // One side only: token and SOL transfers are found by the same signatures.
    return onePassBackfill(this.settings, trackedAt);
  }

  async backfillStep(backfill: BackfillState): Promise<{ reading: SourceReading; next: BackfillState }> {
    const next: BackfillState = {
      ...backfill,
      tokenNext: backfill.throughBlock + 1n,
      nativeNext: backfill.throughBlock + 1n,
    };
    if (backfill.nativeNext > backfill.throughBlock) return { reading: { transfers: [], touched: [] }, next };
    const followed = new Set(backfill.addresses);
    const accounts = [...backfill.addresses];
    for (const owner of backfill.addresses)
      accounts.push(...(await this.tokenAccountsOf(owner, undefined)).map((account) => account.pubkey));
    const signatures = new Map<string, bigint>();
    for (const account of accounts) {
      for (const [signature, slot] of await this.signaturesOf(account, backfill.nativeNext, backfill.throughBlock))
        signatures.set(signature, slot);
    }
    const ordered = [...signatures].sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
    const transfers: ObservedTransfer[] = [];
    const touched = new TouchedSet();
    const headers = new Map<bigint, BlockHeader | undefined>();
    for (const [signature, slot] of ordered) {
      const raw = (await this.rpc.call((client) =>
        client.getTransaction(signature as Parameters<typeof client.getTransaction>[0], {
          encoding: 'json',
          maxSupportedTransactionVersion: 0,
          commitment: FINALIZED,
        }),
      )) as unknown as JsonTransaction | null;
      const tx = raw === null ? undefined : toTransaction(raw);
      if (tx === undefined) continue;
      if (!headers.has(slot)) headers.set(slot, await this.header(slot));
      const header = headers.get(slot);
      if (header === undefined) continue;
      const read = readTransaction(tx, { slot, hash: header.hash, time: header.time }, followed);
      transfers.push(...read.transfers);
      touched.addAll(read.touched);
    }
    return { reading: { transfers, touched: touched.list() }, next };
  }

  async balances(keys: readonly HoldingKey[], at: BlockHeader): Promise<Map<string, string>> {
    const answer = new Map<string, string>();
    const natives = keys.filter((key) => key.token_address === NATIVE).map((key) => key.address);
    const lamports = await this.lamports(natives, at.number);
    for (const owner of natives) {
      answer.set(holdingKey({ address: owner, token_address: NATIVE }), (lamports.get(owner) ?? 0n).toString());
    }
    const owners = new Set(keys.filter((key) => key.token_address !== NATIVE).map((key) => key.address));
    for (const owner of owners) {
      const held = await this.tokenHoldings(owner, at.number);
      for (const key of keys) {
        if (key.address !== owner || key.token_address === NATIVE) continue;
        answer.set(holdingKey(key), (held.get(key.token_address) ?? 0n).toString());
      }
    }
    return answer;
  }

  discoverTokens(mints: readonly string[]): Promise<Map<string, TokenInput | undefined>> {
    return mintTokens(this.rpc, this.facts, mints);
  }

  rewind(): Promise<Record<string, never>> {
    // Balances at the ancestor are the node's; nothing of the source's own is kept.
    return Promise.resolve({});
  }

  /** The block at `slot` (with its transactions when `full`), undefined for a slot that produced none. */
  private async block(slot: bigint, full: boolean): Promise<JsonBlock | undefined> {
    try {
      const block = await this.rpc.call((client) =>
        client.getBlock(slot, {
          commitment: FINALIZED,
          encoding: 'json',
          maxSupportedTransactionVersion: 0,
          rewards: false,
          transactionDetails: full ? 'full' : 'none',
        } as Parameters<typeof client.getBlock>[1]),
      );
      return (block as JsonBlock | null) ?? undefined;
    } catch (error) {
      if (error instanceof SolanaNodeError && SKIPPED.has(error.code)) return undefined;
      throw error;
    }
  }

  /** The blocks at `slots`, which `getBlocks` listed; a few requests in flight at once. */
  private async blocks(slots: readonly bigint[]): Promise<JsonBlock[]> {
    const blocks: JsonBlock[] = [];
    for (let start = 0; start < slots.length; start += this.tuning.parallelBlocks) {
      const part = slots.slice(start, start + this.tuning.parallelBlocks);
      const read = await Promise.all(part.map((slot) => this.block(slot, true)));
      read.forEach((block, index) => {
        if (block === undefined)
          throw new ChainMoved(`the node listed slot ${part[index]} but has no block there`, part[index]!);
        blocks.push(block);
      });
    }
    return blocks;
  }

  /** Lamports of each of `owners` (0 for an account that does not exist). */
  private async lamports(owners: readonly string[], minContextSlot: bigint | undefined): Promise<Map<string, bigint>> {
    const found = new Map<string, bigint>();
    for (let start = 0; start < owners.length; start += ACCOUNTS_PER_CALL) {
      const part = owners.slice(start, start + ACCOUNTS_PER_CALL);
      const answer = await this.rpc.call((client) =>
        client.getMultipleAccounts(part as Address[], {
          commitment: FINALIZED,
          encoding: 'base64',
          dataSlice: { offset: 0, length: 0 },
          ...(minContextSlot === undefined ? {} : { minContextSlot }),
        }),
      );
      answer.value.forEach((account, index) =>
        found.set(part[index]!, account === null ? 0n : BigInt(account.lamports)),
      );
    }
    return found;
  }

  /** The token accounts `owner` holds in both token programs. */
  private async tokenAccountsOf(owner: string, minContextSlot: bigint | undefined): Promise<ParsedTokenAccount[]> {
    const accounts: ParsedTokenAccount[] = [];
    for (const programId of TOKEN_PROGRAMS) {
      const answer = await this.rpc.call((client) =>
        client.getTokenAccountsByOwner(
          toAddress(owner),
          { programId },
          {
            commitment: FINALIZED,
            encoding: 'jsonParsed',
            ...(minContextSlot === undefined ? {} : { minContextSlot }),
          },
        ),
      );
      accounts.push(...(answer.value as unknown as ParsedTokenAccount[]));
    }
    return accounts;
  }

  /** What `owner` holds of each mint: its token accounts' amounts summed per mint. */
  private async tokenHoldings(owner: string, minContextSlot: bigint | undefined): Promise<Map<string, bigint>> {
    const sums = new Map<string, bigint>();
    for (const account of await this.tokenAccountsOf(owner, minContextSlot)) {
      const info = account.account.data.parsed?.info;
      if (info?.mint === undefined || info.tokenAmount?.amount === undefined) continue;
      sums.set(info.mint, (sums.get(info.mint) ?? 0n) + BigInt(info.tokenAmount.amount));
    }
    return sums;
  }

  /** The successful transactions that name `account`, between slots `from` and `through`: signature → slot. */
  private async signaturesOf(account: string, from: bigint, through: bigint): Promise<Map<string, bigint>> {
    const found = new Map<string, bigint>();
    let before: string | undefined;
    for (;;) {
      const page = await this.rpc.call((client) =>
        client.getSignaturesForAddress(toAddress(account), {
          commitment: FINALIZED,
          limit: this.tuning.signaturesPerPage,
          ...(before === undefined ? {} : { before: before as Parameters<typeof client.getTransaction>[0] }),
        }),
      );
      for (const entry of page) {
        const slot = BigInt(entry.slot);
        if (entry.err === null && slot >= from && slot <= through) found.set(entry.signature, slot);
      }
      const last = page[page.length - 1];
      // Newest first: a page that ends below the window, or a short page, is the last one needed.
      if (last === undefined || page.length < this.tuning.signaturesPerPage || BigInt(last.slot) < from) return found;
      before = last.signature;
    }
  }
}

function headerOf(slot: bigint, block: JsonBlock): BlockHeader {
  if (block.blockTime === null) throw new Error(`the node gives no time for the block at slot ${slot}`);
  return {
    number: slot,
    hash: block.blockhash,
    parentHash: block.previousBlockhash,
    time: new Date(Number(block.blockTime) * 1000).toISOString(),
  };
}

/** A transaction of a `json` block or `getTransaction` answer, undefined without meta (the node kept none). */
function toTransaction(raw: JsonTransaction): SolanaTransaction | undefined {
  const meta = raw.meta;
  const signature = raw.transaction.signatures[0];
  if (meta === null || signature === undefined) return undefined;
  const loaded = meta.loadedAddresses ?? { writable: [], readonly: [] };
  return {
    signature,
    accountKeys: [...raw.transaction.message.accountKeys, ...loaded.writable, ...loaded.readonly],
    instructions: raw.transaction.message.instructions,
    inner: new Map((meta.innerInstructions ?? []).map((entry) => [entry.index, entry.instructions])),
    failed: meta.err !== null,
    preBalances: meta.preBalances.map(BigInt),
    postBalances: meta.postBalances.map(BigInt),
    preTokenBalances: meta.preTokenBalances ?? [],
    postTokenBalances: meta.postTokenBalances ?? [],
  };
}
