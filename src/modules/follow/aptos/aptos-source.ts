import { sharedWhileInFlight } from '../in-flight';
import type { Chain } from '../../../core/chains/chain-registry';
import type { ChainId } from '../../../core/chains/chain-ids';
import type { TokenInput } from '../../../core/records/record-input';
import type { FollowedChainConfig } from '../../../config/config';
import type { AddressShape, BackfillPlan, BackfillState, ChainSource, SourceReading } from '../chain-source';
import {
  ChainMoved,
  holdingKey,
  NATIVE,
  TouchedSet,
  type BlockHeader,
  type HoldingKey,
  type ObservedTransfer,
} from '../reading';
import { inBatches } from '../in-batches';
import { tokenFromContract } from '../token-discovery';
import { aptosAddressShape } from './address-shape';
import { AptosApi, AptosApiError } from './aptos-api';
import {
  APT_COIN_TYPE,
  FA_METADATA,
  FUNGIBLE_STORE,
  OBJECT_CORE,
  type BlockJson,
  type TransactionJson,
} from './aptos-shapes';
import { fullAddress, readTransaction, storesMoved, writtenStores, type StoreFacts } from './aptos-transaction';
import { chainIdMismatch } from './network';

export interface AptosSourceTuning {
  /** Block requests in flight at once while reading a range, and balance requests. */
  parallelRequests: number;
  /** Transactions per `GET /v1/transactions` page when a block's own answer was cut short (the API's maximum is 100). */
  transactionsPerPage: number;
}

export const APTOS_SOURCE_TUNING: AptosSourceTuning = { parallelRequests: 8, transactionsPerPage: 100 };

/** How many blocks' last versions (for the balance reads after a range) and headers are remembered. */
const REMEMBERED_BLOCKS = 4096;

/** A fungible asset's metadata resource (the fields read). */
interface MetadataJson {
  name?: unknown;
  symbol?: unknown;
  decimals?: unknown;
}

/**
 * Aptos as a chain source, over the node API (REST, `/v1`) of a fullnode or a hosted API.
 *
 * Blocks are final when the node shows them (Aptos's consensus commits them), so confirmations
 * default to 0. The head is the ledger's `block_height`; a range is read block by block
 * (`/v1/blocks/by_height/{h}?with_transactions=true`, the rest of a long block from
 * `/v1/transactions`), and each block must begin at the version after the one before it ended
 * and name it as parent. Aptos blocks carry no parent hash: the header's `parentHash` is the hash
 * the node gives the block below, so the follower's check against its kept hashes still holds.
 * Transfers are read from the events of each transaction (`readTransaction`), the owner and asset
 * of each store from the write set, or, where the write set does not show them, from the node's
 * state before the transaction (`ObjectCore` and `FungibleStore` resources).
 *
 * Balances are the node's, at the version that ends the block reached
 * (`/v1/accounts/{a}/balance/{asset}`, primary store; APT by its coin type, which answers for a
 * coin store and the primary store alike). A newly tracked address is taken in with its APT
 * balance; the node cannot list an account's other assets (that is an indexer's question), so
 * they join its holdings when it moves them. Nothing of the source's own is kept.
 *
 * No backfill: a fullnode lists only the transactions an account sent, never what it received
 * (the indexer's `fungible_asset_activities` does), so an address tracked after the follower
 * started has its transfers from then on, and earlier history by import.
 */
export class AptosSource implements ChainSource {
  readonly chain: ChainId;
  readonly addresses: AddressShape;
  readonly readsAhead = true;
  private readonly api: AptosApi;
  /** The ledger's newest state, asked once for a turn's `mismatch` and `head` together. */
  private readonly ledger = sharedWhileInFlight(() => this.api.ledger());
  /** Block height → the version that ends it, for balances read at a block. */
  private readonly lastVersions = new Map<bigint, bigint>();
  /** The headers of blocks read, by height. */
  private readonly headersRead = new Map<bigint, BlockHeader>();

  constructor(
    private readonly facts: Chain,
    private readonly settings: FollowedChainConfig,
    private readonly tuning: AptosSourceTuning = APTOS_SOURCE_TUNING,
  ) {
    this.chain = settings.chain;
    this.api = new AptosApi(settings.rpcUrls);
    this.addresses = aptosAddressShape(settings.chain);
  }

  async mismatch(): Promise<string | undefined> {
    return chainIdMismatch(this.settings.network, (await this.ledger()).chain_id);
  }

  async head(): Promise<bigint> {
    return BigInt((await this.ledger()).block_height);
  }

  /**
   * The block at `height` as the node has it now. Its parent's hash comes from the block below,
   * read again only when this block is not one this source read (a block's hash names its
   * transactions, and blocks are final, so the one read before had the same parent): a follower
   * asks for its own block every turn.
   */
  async header(height: bigint): Promise<BlockHeader | undefined> {
    const block = await this.api.block(height, false);
    if (block === undefined) return undefined;
    const read = this.headersRead.get(height);
    if (read?.hash === block.block_hash.toLowerCase()) return read;
    // The block below names this one's parent; pruned, the parent is not known (and not needed).
    const parent =
      height > 0n ? await this.api.block(height - 1n, false).catch((error: unknown) => unlessPruned(error)) : undefined;
    const header = headerOf(block, parent?.block_hash ?? '');
    this.remember(height, BigInt(block.last_version), header);
    return header;
  }

  async prepare(): Promise<void> {
    // Everything the Aptos source needs is on the node.
  }

  async readRange(
    from: bigint,
    to: bigint,
    followed: ReadonlySet<string>,
  ): Promise<SourceReading & { headers: BlockHeader[] }> {
    const heights: bigint[] = [];
    for (let height = from; height <= to; height++) heights.push(height);
    const [parent, blocks] = await Promise.all([
      // The block below names the first one's parent; pruned, the range is the first the follower reads.
      from > 0n ? this.api.block(from - 1n, false).catch((error: unknown) => unlessPruned(error)) : undefined,
      inBatches(heights, this.tuning.parallelRequests, (height) => this.fullBlock(height)),
    ]).catch((error: unknown) => {
      unlessPruned(error);
      throw new Error(
        `block ${from} is pruned on the node (HTTP 410): ` +
          'START_BLOCK_APTOS must be at or above its oldest block (oldest_block_height in GET /v1)',
      );
    });
    const headers: BlockHeader[] = [];
    const transfers: ObservedTransfer[] = [];
    const touched = new TouchedSet();
    // Stores' owners and assets as the range's transactions leave them, in version order.
    const stores = new Map<string, StoreFacts>();
    let previous = parent;
    for (const block of blocks) {
      const height = BigInt(block.block_height);
      if (previous !== undefined && BigInt(block.first_version) !== BigInt(previous.last_version) + 1n)
        throw new ChainMoved(`block ${height} does not begin where block ${previous.block_height} ended`, height);
      const header = headerOf(block, previous?.block_hash ?? '');
      headers.push(header);
      this.remember(height, BigInt(block.last_version), header);
      for (const tx of block.transactions ?? []) {
        await this.learnStores(tx, stores);
        const read = readTransaction(tx, { height, hash: header.hash, time: header.time }, followed, stores);
        transfers.push(...read.transfers);
        touched.addAll(read.touched);
      }
      previous = block;
    }
    return { transfers, touched: touched.list(), headers };
  }

  async takeIn(fresh: readonly string[], at: BlockHeader): Promise<SourceReading> {
    const keys = fresh.map((address) => ({ address, token_address: NATIVE }));
    return { transfers: [], touched: keys, known: await this.balances(keys, at) };
  }

  backfillFor(): BackfillPlan | undefined {
    // The node cannot list what an account received: no backfill (see the class's comment).
    return undefined;
  }

  backfillStep(backfill: BackfillState): Promise<{ reading: SourceReading; next: BackfillState }> {
    // Never planned (backfillFor); a plan left by another build ends at once.
    const next = { ...backfill, tokenNext: backfill.throughBlock + 1n, nativeNext: backfill.throughBlock + 1n };
    return Promise.resolve({ reading: { transfers: [], touched: [] }, next });
  }

  async balances(keys: readonly HoldingKey[], at: BlockHeader): Promise<Map<string, string>> {
    const version = await this.versionAt(at.number);
    const amounts = await inBatches(keys, this.tuning.parallelRequests, (key) =>
      this.api.balance(key.address, key.token_address === NATIVE ? APT_COIN_TYPE : key.token_address, version),
    );
    return new Map(keys.map((key, index) => [holdingKey(key), amounts[index]!.toString()]));
  }

  async discoverTokens(assets: readonly string[], at: BlockHeader): Promise<Map<string, TokenInput | undefined>> {
    const version = await this.versionAt(at.number);
    const metadata = await inBatches(assets, this.tuning.parallelRequests, (asset) =>
      this.api.resource<MetadataJson>(asset, FA_METADATA, version),
    );
    return new Map(
      assets.map((asset, index) => {
        const found = metadata[index];
        if (found === undefined || typeof found.decimals !== 'number') return [asset, undefined];
        const token = tokenFromContract(this.facts, asset, {
          name: typeof found.name === 'string' ? found.name : '',
          symbol: typeof found.symbol === 'string' ? found.symbol : '',
          decimals: found.decimals,
        });
        return [asset, token];
      }),
    );
  }

  rewind(): Promise<Record<string, never>> {
    // Balances at the ancestor are the node's; nothing of the source's own is kept.
    return Promise.resolve({});
  }

  /** The block at `height` with every one of its transactions. */
  private async fullBlock(height: bigint): Promise<BlockJson> {
    const block = await this.api.block(height, true);
    if (block === undefined) throw new ChainMoved(`the node has no block at height ${height}`, height);
    const transactions = [...(block.transactions ?? [])];
    const last = BigInt(block.last_version);
    let next = BigInt(block.first_version) + BigInt(transactions.length);
    while (next <= last) {
      const limit = Number(
        last - next + 1n < BigInt(this.tuning.transactionsPerPage)
          ? last - next + 1n
          : BigInt(this.tuning.transactionsPerPage),
      );
      const page = await this.api.transactions(next, limit);
      if (page.length === 0) throw new ChainMoved(`the node has no transaction ${next} of block ${height}`, height);
      for (const tx of page) {
        if (BigInt(tx.version) !== next)
          throw new ChainMoved(`transaction ${next} of block ${height} is not where it was`, height);
        transactions.push(tx);
        next++;
      }
    }
    return { ...block, transactions };
  }

  /**
   * Brings `stores` up to date with `tx`: what its write set says of the stores it wrote, then,
   * for a store its events move that neither it nor an earlier transaction of the range showed, the
   * node's state before it (or at it, for a store the transaction made).
   */
  private async learnStores(tx: TransactionJson, stores: Map<string, StoreFacts>): Promise<void> {
    const written = writtenStores(tx);
    for (const store of storesMoved(tx)) {
      const known = stores.get(store);
      let owner = written.get(store)?.owner ?? known?.owner;
      let asset = written.get(store)?.asset ?? known?.asset;
      const version = BigInt(tx.version);
      for (const at of version > 0n ? [version - 1n, version] : [version]) {
        if (owner !== undefined && asset !== undefined) break;
        const [core, fungible] = await Promise.all([
          owner === undefined ? this.api.resource<{ owner?: unknown }>(store, OBJECT_CORE, at) : undefined,
          asset === undefined
            ? this.api.resource<{ metadata?: { inner?: unknown } }>(store, FUNGIBLE_STORE, at)
            : undefined,
        ]);
        if (core?.owner !== undefined) owner = fullAddress(core.owner);
        if (fungible?.metadata?.inner !== undefined) asset = fullAddress(fungible.metadata.inner);
      }
      if (owner === undefined || asset === undefined)
        throw new Error(`the node does not say who owns store ${store} of transaction ${tx.version}, or of what`);
      stores.set(store, { owner, asset });
    }
    for (const [store, facts] of written) {
      const known = stores.get(store);
      const owner = facts.owner ?? known?.owner;
      const asset = facts.asset ?? known?.asset;
      if (owner !== undefined && asset !== undefined) stores.set(store, { owner, asset });
    }
  }

  /** The version that ends the block at `height`. */
  private async versionAt(height: bigint): Promise<bigint> {
    const known = this.lastVersions.get(height);
    if (known !== undefined) return known;
    const block = await this.api.block(height, false);
    if (block === undefined) throw new ChainMoved(`the node has no block at height ${height}`, height);
    const version = BigInt(block.last_version);
    this.remember(height, version);
    return version;
  }

  private remember(height: bigint, version: bigint, header?: BlockHeader): void {
    this.lastVersions.set(height, version);
    if (this.lastVersions.size > REMEMBERED_BLOCKS) this.lastVersions.delete(this.lastVersions.keys().next().value!);
    if (header === undefined) return;
    this.headersRead.set(height, header);
    if (this.headersRead.size > REMEMBERED_BLOCKS) this.headersRead.delete(this.headersRead.keys().next().value!);
  }
}

function headerOf(block: BlockJson, parentHash: string): BlockHeader {
  return {
    number: BigInt(block.block_height),
    hash: block.block_hash.toLowerCase(),
    parentHash: parentHash.toLowerCase(),
    // Microseconds since the epoch, to the millisecond.
    time: new Date(Number(BigInt(block.block_timestamp) / 1000n)).toISOString(),
  };
}

/** Rethrows `error` unless it is the node's 410: what it asked for is pruned. */
function unlessPruned(error: unknown): undefined {
  if (error instanceof AptosApiError && error.status === 410) return undefined;
  throw error;
}
