import { sharedWhileInFlight } from '../in-flight';
import { Address, beginCell, Cell } from '@ton/core';
import type { FollowedChainConfig } from '../../../config/config';
import type { Chain } from '../../../core/chains/chain-registry';
import type { ChainId } from '../../../core/chains/chain-ids';
import type { TokenInput } from '../../../core/records/record-input';
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
import { tokenFromContract } from '../token-discovery';
import { jettonMetadata } from './jetton-content';
import { tonMismatch } from './ton-network';
import { decodeTransaction, JETTON_OP, jettonBody, type TonMessage, type TonTransaction } from './ton-transaction';
import type { JettonWallet, TonRepository } from './ton.repository';
import { ToncenterApi, ToncenterError } from './toncenter-api';
import {
  BlockIdJson,
  BlockHeaderJson,
  MASTERCHAIN,
  MASTERCHAIN_SHARD,
  MasterchainInfoJson,
  RunResultJson,
  shardsOverlap,
  ShortTxJson,
  stackCell,
  stackNumber,
  TransactionJson,
} from './toncenter-shapes';
import { tonAddressShape } from './address-shape';

export interface TonSourceTuning {
  /** Requests in flight at once while a range is read. */
  concurrency: number;
  /** `count` of getBlockTransactions (toncenter allows up to 256 per page). */
  blockTransactionsPage: number;
  /** Accounts whose history one backfill step reads a page of (100 transactions each). */
  backfillAccountsPerStep: number;
  /** The most pages of one account's history a backfill reads. */
  backfillPages: number;
}

export const TON_SOURCE_TUNING: TonSourceTuning = {
  concurrency: 4,
  blockTransactionsPage: 256,
  backfillAccountsPerStep: 20,
  backfillPages: 50,
};

const HISTORY_PAGE = 100;

/** A transaction of a watched account, with the masterchain block that made it final. */
interface Placed {
  tx: TonTransaction;
  block: BlockHeader;
}

/**
 * Where an inbound message was sent from: the transaction on its source account, the message's
 * index among that transaction's out messages, and the masterchain block of that transaction.
 */
interface Anchor {
  hash: string;
  index: number;
  block: BlockHeader;
}

/** Where a backfill of one account is: the next transaction to read back from, or done. */
type Cursor = { lt: bigint; hash: string } | 'start' | 'done';

/**
 * TON as a chain source (contract §16), over toncenter's HTTP API v2 (`toncenter-api.ts`).
 *
 * Positions are masterchain seqnos: a masterchain block is final when it appears (confirmations 0),
 * and so are the shard blocks it names. For each masterchain block the source reads `shards`, the
 * basechain shard blocks between the previous masterchain block's and this one's (walking back
 * through `getBlockHeader`'s `prev_blocks` when shards split or merge), their transaction lists
 * (`getBlockTransactions`), and then, for the watched accounts only, their transactions with
 * `getTransactions`, decoded from the BOC with `@ton/core`. Watched accounts are the followed
 * owners (basechain addresses) and their Jetton wallets (`follower_jetton_wallets`).
 *
 * What becomes a transfer (docs/live-data.md, "TON"): each internal message that carries Toncoin
 * between a followed owner and another account, from successful transactions; and each Jetton
 * movement (TEP-74) of a followed owner's wallet, by owner, with `token_address` the master. Every
 * transfer is named by the transaction that sent its message (`anchorsOf` finds it for the
 * receiving side), so both sides give it one id; the rules are in `transfersOf`.
 */
export class TonSource implements ChainSource {
  readonly chain: ChainId;
  readonly addresses: AddressShape;
  private readonly api: ToncenterApi;
  /** Jetton wallets of followed owners, by wallet, as committed. */
  private wallets = new Map<string, JettonWallet>();
  /** Owner → master → wallet, as committed. */
  private byOwner = new Map<string, Map<string, string>>();
  private masters = new Set<string>();
  /** Accounts found not to be a followed owner's Jetton wallet (this process only). */
  private readonly notWallets = new Set<string>();
  private followed: ReadonlySet<string> = new Set();
  /** Whether `global_id` was checked once. */
  private globalChecked = false;
  /** The masterchain's newest block, asked once for a turn's `mismatch` and `head` together. */
  private readonly info = sharedWhileInFlight(() => this.api.get<MasterchainInfoJson>('getMasterchainInfo'));
  /** The basechain shard tops of the last masterchain block read. */
  private lastTops: { seqno: bigint; tops: BlockIdJson[] } | undefined;
  private readonly cursors = new Map<string, Cursor>();
  /** Pages of history each backfill has read per account (key as `cursors`, with ` pages`). */
  private readonly pageCounts = new Map<string, number>();
  private readonly headers = new Map<string, BlockHeader>();

  constructor(
    private readonly chainFacts: Chain,
    private readonly settings: FollowedChainConfig,
    private readonly repository: TonRepository,
    private readonly tuning: TonSourceTuning = TON_SOURCE_TUNING,
  ) {
    this.chain = settings.chain;
    this.api = new ToncenterApi(settings.rpcUrls);
    this.addresses = tonAddressShape(settings.chain);
  }

  async mismatch(): Promise<string | undefined> {
    const info = await this.info();
    let globalId: number | undefined;
    if (!this.globalChecked) {
      globalId = (await this.blockHeader(MASTERCHAIN, MASTERCHAIN_SHARD, BigInt(info.last.seqno))).global_id;
    }
    const why = tonMismatch(this.settings.network, info.init, globalId);
    if (why === undefined) this.globalChecked = true;
    return why;
  }

  async head(): Promise<bigint> {
    return BigInt((await this.info()).last.seqno);
  }

  async header(height: bigint): Promise<BlockHeader | undefined> {
    try {
      // Masterchain blocks are final: a header read once stays right.
      return await this.masterHeader(height);
    } catch (error) {
      if (error instanceof ToncenterError && height > (await this.head())) return undefined;
      throw error;
    }
  }

  async prepare(followed: ReadonlySet<string>): Promise<void> {
    this.followed = followed;
    this.wallets = new Map();
    this.byOwner = new Map();
    this.masters = new Set();
    for (const wallet of await this.repository.wallets(this.chain)) this.keepWallet(wallet);
    this.lastTops = undefined;
  }

  async readRange(
    from: bigint,
    to: bigint,
    followed: ReadonlySet<string>,
  ): Promise<SourceReading & { headers: BlockHeader[] }> {
    this.followed = followed;
    const heights: bigint[] = [];
    for (let height = from; height <= to; height++) heights.push(height);
    const headers = await this.map(heights, (height) => this.masterHeader(height));
    for (let index = 1; index < headers.length; index++) {
      if (headers[index]!.parentHash !== headers[index - 1]!.hash) {
        throw new ChainMoved('a masterchain block does not follow the block read before it', headers[index]!.number);
      }
    }
    // Shard blocks: those each masterchain block names, and the ones between them and the previous block's.
    const tops = await this.map(heights, (height) => this.shardTops(height));
    let previous =
      from === 0n ? [] : this.lastTops?.seqno === from - 1n ? this.lastTops.tops : await this.shardTops(from - 1n);
    const blocks: { id: BlockIdJson; master: BlockHeader }[] = [];
    for (let index = 0; index < heights.length; index++) {
      for (const id of await this.newShardBlocks(tops[index]!, previous)) blocks.push({ id, master: headers[index]! });
      previous = tops[index]!;
    }
    this.lastTops = { seqno: to, tops: previous };
    const lists = await this.map(blocks, (block) => this.blockTransactions(block.id));
    const short: { tx: ShortTxJson; master: BlockHeader }[] = [];
    blocks.forEach((block, index) => {
      for (const tx of lists[index]!) short.push({ tx, master: block.master });
    });

    const staged = new Map<string, JettonWallet>();
    const watched = (account: string) => followed.has(account) || this.wallets.has(account) || staged.has(account);
    const placed = await this.fetchTransactions(short.filter((entry) => watched(accountOf(entry.tx))));
    // Jetton wallets of followed owners met for the first time, then their transactions in the same blocks.
    const found = await this.findWallets(
      placed.map((entry) => entry.tx),
      followed,
    );
    for (const wallet of found) staged.set(wallet.wallet, wallet);
    if (found.length > 0) {
      const more = short.filter((entry) => staged.has(accountOf(entry.tx)));
      placed.push(...(await this.fetchTransactions(more)));
    }
    placed.sort((a, b) => compare(a.block.number, b.block.number) || compare(a.tx.lt, b.tx.lt));

    const lookup = (wallet: string) => this.wallets.get(wallet) ?? staged.get(wallet);
    const anchors = await this.anchorsOf(placed, followed, lookup);
    const { transfers, touched } = this.transfersOf(placed, followed, lookup, anchors);
    for (const wallet of staged.values()) {
      if (followed.has(wallet.owner)) touched.add(wallet.owner, wallet.master);
    }
    const last = headers[headers.length - 1]!;
    const keys = touched.list();
    const known = await this.readBalances(keys, last, [...staged.values()]);
    const fresh = [...staged.values()];
    return {
      transfers,
      touched: keys,
      known,
      headers,
      write: fresh.length === 0 ? undefined : (tx) => this.repository.add(tx, this.chain, fresh),
      committed: () => fresh.forEach((wallet) => this.keepWallet(wallet)),
    };
  }

  /**
   * Owners followed from block `at` on: their Jetton wallets of every master the source knows
   * (`get_wallet_address`), and their balances as of `at` (Toncoin, and each Jetton they hold).
   */
  async takeIn(fresh: readonly string[], at: BlockHeader): Promise<SourceReading> {
    const owners = fresh.filter((address) => address.startsWith('0:'));
    const pairs = owners.flatMap((owner) => [...this.masters].map((master) => ({ owner, master })));
    const found = await this.map(pairs, async ({ owner, master }) => {
      const wallet = await this.walletAddress(master, owner);
      return wallet === undefined ? undefined : { wallet, owner, master };
    });
    const wallets = found.filter(
      (wallet): wallet is JettonWallet => wallet !== undefined && !this.wallets.has(wallet.wallet),
    );
    const keys: HoldingKey[] = [
      ...fresh.map((address) => ({ address, token_address: NATIVE })),
      ...wallets.map((wallet) => ({ address: wallet.owner, token_address: wallet.master })),
    ];
    const known = await this.readBalances(keys, at, wallets);
    // Jettons the owner holds none of are not listed.
    const touched = keys.filter((key) => key.token_address === NATIVE || known.get(holdingKey(key)) !== '0');
    return {
      transfers: [],
      touched,
      known,
      write: wallets.length === 0 ? undefined : (tx) => this.repository.add(tx, this.chain, wallets),
      committed: () => {
        this.followed = new Set([...this.followed, ...fresh]);
        wallets.forEach((wallet) => this.keepWallet(wallet));
      },
    };
  }

  backfillFor(trackedAt: bigint): BackfillPlan {
    // One pass over each account's own history covers Toncoin and Jettons: no token side.
    return onePassBackfill(this.settings, trackedAt);
  }

  /**
   * A page of history (newest first, `getTransactions` from the last one read) for up to
   * `backfillAccountsPerStep` accounts of the backfill: its owners and their Jetton wallets. An
   * account is done when its history reaches the window's first masterchain block
   * (NATIVE_BACKFILL_BLOCKS before the take-in) or its first transaction, or after `backfillPages`
   * pages. Transactions above the take-in block are left to the live reading. Where each account
   * stands is kept in memory: after a restart a backfill reads its pages again (records are keyed
   * by id, so nothing doubles). Each transfer is placed in the masterchain block that `lookupBlock`
   * gives for its logical time.
   */
  async backfillStep(backfill: BackfillState): Promise<{ reading: SourceReading; next: BackfillState }> {
    const next: BackfillState = { ...backfill, tokenNext: backfill.throughBlock + 1n };
    if (backfill.nativeNext > backfill.throughBlock) return { reading: { transfers: [], touched: [] }, next };
    const owners = backfill.addresses.filter((address) => address.startsWith('0:'));
    const accounts = [...owners, ...owners.flatMap((owner) => [...(this.byOwner.get(owner)?.values() ?? [])])];
    const [low, high] = await Promise.all([
      this.masterHeaderJson(backfill.nativeNext),
      this.masterHeaderJson(backfill.throughBlock),
    ]);
    const lowLt = BigInt(low.start_lt);
    const highLt = BigInt(high.end_lt);
    const pending = accounts.filter((account) => this.cursor(backfill.id, account) !== 'done');
    const batch = pending.slice(0, this.tuning.backfillAccountsPerStep);
    const pages = await this.map(batch, (account) => this.historyPage(backfill.id, account, lowLt, highLt));
    const placed: Placed[] = [];
    for (const page of pages) {
      for (const tx of page) placed.push({ tx, block: await this.blockOfLt(tx.lt) });
    }
    placed.sort((a, b) => compare(a.block.number, b.block.number) || compare(a.tx.lt, b.tx.lt));
    const walletOf = (wallet: string) => this.wallets.get(wallet);
    const anchors = await this.anchorsOf(placed, this.followed, walletOf);
    const { transfers } = this.transfersOf(placed, this.followed, walletOf, anchors);
    if (pending.length <= batch.length && batch.every((account) => this.cursor(backfill.id, account) === 'done')) {
      next.nativeNext = backfill.throughBlock + 1n;
      for (const account of accounts) this.cursors.delete(`${backfill.id} ${account}`);
    }
    return { reading: { transfers, touched: [] }, next };
  }

  async balances(keys: readonly HoldingKey[], at: BlockHeader): Promise<Map<string, string>> {
    return this.readBalances(keys, at);
  }

  async discoverTokens(tokenAddresses: readonly string[]): Promise<Map<string, TokenInput | undefined>> {
    const found = await this.map(tokenAddresses, (master) => this.jettonToken(master));
    return new Map(tokenAddresses.map((master, index) => [master, found[index]]));
  }

  rewind(): Promise<Pick<SourceReading, 'write' | 'committed'>> {
    // Masterchain blocks are final: nothing of the source's is tied to a block.
    this.lastTops = undefined;
    return Promise.resolve({});
  }

  // --- reading blocks -----------------------------------------------------------------------------

  private blockHeader(workchain: number, shard: string, seqno: bigint): Promise<BlockHeaderJson> {
    return this.api.get<BlockHeaderJson>('getBlockHeader', { workchain, shard, seqno });
  }

  private async masterHeaderJson(seqno: bigint): Promise<BlockHeaderJson> {
    return this.blockHeader(MASTERCHAIN, MASTERCHAIN_SHARD, seqno);
  }

  private async masterHeader(seqno: bigint): Promise<BlockHeader> {
    const cached = this.headers.get(seqno.toString());
    if (cached !== undefined) return cached;
    const header = headerOf(await this.masterHeaderJson(seqno));
    if (this.headers.size > 1000) this.headers.clear();
    this.headers.set(seqno.toString(), header);
    return header;
  }

  private async shardTops(seqno: bigint): Promise<BlockIdJson[]> {
    const answer = await this.api.get<{ shards: BlockIdJson[] }>('shards', { seqno });
    // Only the basechain is followed (contract §16: basechain addresses).
    return answer.shards.filter((shard) => shard.workchain === 0);
  }

  /**
   * The shard blocks a masterchain block adds to the chain: for each shard it names, the blocks
   * after the previous masterchain block's top of the same shard, by seqno; after a split or merge
   * (a shard the previous block did not name), walking back through `prev_blocks` until a block at
   * or below a previous top of an overlapping shard.
   */
  private async newShardBlocks(tops: readonly BlockIdJson[], previous: readonly BlockIdJson[]): Promise<BlockIdJson[]> {
    const found: BlockIdJson[] = [];
    for (const top of tops) {
      const same = previous.find((block) => block.shard === top.shard);
      if (same !== undefined) {
        for (let seqno = same.seqno + 1; seqno <= top.seqno; seqno++) {
          found.push(seqno === top.seqno ? top : { ...top, seqno, root_hash: '', file_hash: '' });
        }
        continue;
      }
      if (previous.length === 0) {
        found.push(top);
        continue;
      }
      const seen = new Set<string>();
      const queue: BlockIdJson[] = [top];
      while (queue.length > 0) {
        const block = queue.shift()!;
        const key = `${block.shard}:${block.seqno}`;
        const covered = previous.some((old) => shardsOverlap(old.shard, block.shard) && old.seqno >= block.seqno);
        if (covered || seen.has(key)) continue;
        seen.add(key);
        found.push(block);
        const header = await this.blockHeader(block.workchain, block.shard, BigInt(block.seqno));
        queue.push(...header.prev_blocks);
      }
    }
    return found;
  }

  private async blockTransactions(id: BlockIdJson): Promise<ShortTxJson[]> {
    const all: ShortTxJson[] = [];
    let after: { lt: string; hash: string } | undefined;
    for (;;) {
      const page = await this.api.get<{ incomplete: boolean; transactions: ShortTxJson[] }>('getBlockTransactions', {
        workchain: id.workchain,
        shard: id.shard,
        seqno: id.seqno,
        count: this.tuning.blockTransactionsPage,
        after_lt: after?.lt,
        after_hash: after?.hash,
      });
      all.push(...page.transactions);
      const last = page.transactions[page.transactions.length - 1];
      if (!page.incomplete || last === undefined) return all;
      after = { lt: last.lt, hash: last.hash };
    }
  }

  /** The full transactions of `entries` (short ids of watched accounts), one `getTransactions` per account. */
  private async fetchTransactions(entries: readonly { tx: ShortTxJson; master: BlockHeader }[]): Promise<Placed[]> {
    const byAccount = new Map<string, { tx: ShortTxJson; master: BlockHeader }[]>();
    for (const entry of entries) {
      const account = accountOf(entry.tx);
      byAccount.set(account, [...(byAccount.get(account) ?? []), entry]);
    }
    const groups = [...byAccount.entries()];
    const results = await this.map(groups, async ([account, list]) => {
      const wanted = new Map(list.map((entry) => [hashHex(entry.tx.hash), entry.master]));
      const sorted = [...list].sort((a, b) => compare(BigInt(b.tx.lt), BigInt(a.tx.lt)));
      const newest = sorted[0]!.tx;
      const oldest = BigInt(sorted[sorted.length - 1]!.tx.lt);
      const placed: Placed[] = [];
      let cursor: { lt: string; hash: string } | undefined = { lt: newest.lt, hash: newest.hash };
      while (cursor !== undefined) {
        const page: TransactionJson[] = await this.api.get<TransactionJson[]>('getTransactions', {
          address: account,
          limit: HISTORY_PAGE,
          lt: cursor.lt,
          hash: cursor.hash,
          to_lt: (oldest - 1n).toString(),
        });
        for (const json of page) {
          const tx = decodeTransaction(json.data);
          const master = wanted.get(tx.hash);
          if (master !== undefined) placed.push({ tx, block: master });
        }
        const last = page[page.length - 1];
        cursor =
          page.length < HISTORY_PAGE || last === undefined
            ? undefined
            : { lt: decodeTransaction(last.data).prevLt.toString(), hash: prevHash(last) };
        if (cursor !== undefined && BigInt(cursor.lt) < oldest) cursor = undefined;
      }
      return placed;
    });
    return results.flat();
  }

  // --- Jetton wallets ----------------------------------------------------------------------------

  /**
   * Accounts that a followed owner exchanged Jetton messages with (a `transfer` or `burn` it sent,
   * a `transfer_notification` or `excesses` it received) and that are not known wallets: each is
   * asked `get_wallet_data`, and is the owner's wallet when it names the owner and its master names
   * it back (`get_wallet_address`). A master seen for the first time gives every followed owner's
   * wallet of it.
   */
  private async findWallets(
    transactions: readonly TonTransaction[],
    followed: ReadonlySet<string>,
  ): Promise<JettonWallet[]> {
    const candidates = new Map<string, string>();
    for (const tx of transactions) {
      if (!followed.has(tx.account)) continue;
      const incoming = tx.inMessage;
      if (
        incoming?.source !== undefined &&
        !incoming.bounced &&
        (incoming.op === JETTON_OP.transferNotification || incoming.op === JETTON_OP.excesses)
      ) {
        candidates.set(incoming.source, tx.account);
      }
      for (const out of tx.outMessages) {
        if (out.destination !== undefined && (out.op === JETTON_OP.transfer || out.op === JETTON_OP.burn)) {
          candidates.set(out.destination, tx.account);
        }
      }
    }
    const unknown = [...candidates].filter(([account]) => !this.wallets.has(account) && !this.notWallets.has(account));
    const checked = await this.map(unknown, async ([account, owner]) => {
      const data = await this.walletData(account);
      if (data === undefined || data.owner !== owner) return undefined;
      const named = await this.walletAddress(data.master, owner);
      return named === account ? { wallet: account, owner, master: data.master } : undefined;
    });
    const found = new Map<string, JettonWallet>();
    unknown.forEach(([account], index) => {
      const wallet = checked[index];
      if (wallet === undefined) this.notWallets.add(account);
      else found.set(wallet.wallet, wallet);
    });
    const newMasters = [...new Set([...found.values()].map((wallet) => wallet.master))].filter(
      (master) => !this.masters.has(master),
    );
    // Most readings meet no new master: the followed owners are listed only when one does.
    const owners = newMasters.length === 0 ? [] : [...followed].filter((owner) => owner.startsWith('0:'));
    const pairs = newMasters.flatMap((master) => owners.map((owner) => ({ master, owner })));
    const more = await this.map(pairs, async ({ master, owner }) => {
      const wallet = await this.walletAddress(master, owner);
      return wallet === undefined ? undefined : { wallet, owner, master };
    });
    for (const wallet of more) if (wallet !== undefined && !found.has(wallet.wallet)) found.set(wallet.wallet, wallet);
    return [...found.values()].filter((wallet) => !this.wallets.has(wallet.wallet));
  }

  private async walletData(
    account: string,
    seqno?: bigint,
  ): Promise<{ balance: bigint; owner: string; master: string } | undefined> {
    const result = await this.runGetMethod(account, 'get_wallet_data', [], seqno);
    if (result === undefined || result.stack.length < 3) return undefined;
    try {
      const balance = stackNumber(result.stack[0]!);
      const owner = stackCell(result.stack[1]!).beginParse().loadAddress().toRawString();
      const master = stackCell(result.stack[2]!).beginParse().loadAddress().toRawString();
      return { balance, owner, master };
    } catch {
      return undefined;
    }
  }

  private async walletAddress(master: string, owner: string): Promise<string | undefined> {
    const argument = beginCell().storeAddress(Address.parse(owner)).endCell().toBoc().toString('base64');
    const result = await this.runGetMethod(master, 'get_wallet_address', [['tvm.Slice', argument]]);
    if (result === undefined || result.stack.length < 1) return undefined;
    try {
      return stackCell(result.stack[0]!).beginParse().loadAddress().toRawString();
    } catch {
      return undefined;
    }
  }

  /** A get-method's result, undefined when it failed (a non-zero exit code, an account without code). */
  private async runGetMethod(
    address: string,
    method: string,
    stack: [string, string][],
    seqno?: bigint,
  ): Promise<RunResultJson | undefined> {
    try {
      const body: Record<string, unknown> = { address, method, stack };
      if (seqno !== undefined) body.seqno = Number(seqno);
      const result = await this.api.post<RunResultJson>('runGetMethod', body);
      return result.exit_code === 0 || result.exit_code === 1 ? result : undefined;
    } catch (error) {
      // toncenter answers a failed get-method (an uninitialised account) with an error.
      if (
        error instanceof ToncenterError &&
        error.code < 500 + 100 &&
        /exit code|not init|uninit|-13/i.test(error.apiMessage)
      ) {
        return undefined;
      }
      throw error;
    }
  }

  private keepWallet(wallet: JettonWallet): void {
    this.wallets.set(wallet.wallet, wallet);
    let masters = this.byOwner.get(wallet.owner);
    if (masters === undefined) {
      masters = new Map();
      this.byOwner.set(wallet.owner, masters);
    }
    masters.set(wallet.master, wallet.wallet);
    this.masters.add(wallet.master);
  }

  // --- transfers ---------------------------------------------------------------------------------

  /**
   * The transfers of watched accounts' transactions, in order, and the balances they touch.
   *
   * Every id names the message's sending side: `ton:<hash of the transaction on the message's
   * source account>:<index of the message among its out messages>`, whichever side records it, so
   * that a message recorded from one side and later from the other (an address tracked later, its
   * backfill) keeps one id. The side that receives a message finds the sending transaction with
   * `anchorsOf`; `tx_hash` and the block are then the sending transaction's too, so both sides'
   * records are identical. Only a bounced message keeps `ton:<tx>:in` (the transaction that
   * receives it back): the transaction that bounced it aborted and records nothing, so no other
   * side ever records it. So does a burn, which only the burning wallet sees, and an inbound
   * message whose sending transaction the API could not find.
   *
   * Toncoin (a followed owner's successful transaction): the inbound internal message's value,
   * unless its sender is followed too (then the sender's transaction records the message); each
   * outbound internal message's value. Of an aborted transaction only the inbound value it kept
   * (not bounced back) is recorded. A bounced message is recorded by the transaction that receives
   * it back (the bounced value, from the account that bounced it), never by the aborted transaction
   * that bounced it, which records nothing.
   *
   * Jettons (a followed owner's wallet's successful transaction): a `transfer` the owner ordered is
   * recorded by the sending wallet at its `internal_transfer`; an `internal_transfer` received is
   * recorded by the receiving wallet, from the sending owner (`0` for a mint by the master) to the
   * wallet's owner, unless it came from a followed owner's wallet (which records it); a `burn` goes
   * to the master. A bounced `internal_transfer` or `burn_notification` gives the tokens back:
   * recorded as a transfer from the wallet or master that bounced it to the owner.
   */
  private transfersOf(
    placed: readonly Placed[],
    followed: ReadonlySet<string>,
    walletOf: (account: string) => JettonWallet | undefined,
    anchors: ReadonlyMap<string, Anchor>,
  ): { transfers: ObservedTransfer[]; touched: TouchedSet } {
    const transfers: ObservedTransfer[] = [];
    const touched = new TouchedSet();
    for (const { tx, block } of placed) {
      if (!tx.successful && !tx.keptInbound) continue;
      // `message` is an out message's index on this transaction, or `in`: the inbound message, named
      // by its sending transaction when that one was found.
      const record = (message: number | 'in', token: string, from: string, to: string, value: bigint): void => {
        const anchor = message === 'in' ? anchors.get(tx.hash) : { hash: tx.hash, index: message, block };
        const at = anchor ?? { hash: tx.hash, index: 'in', block };
        transfers.push({
          id: `${this.chain}:${at.hash}:${at.index}`,
          chain: this.chain,
          token_address: token,
          from_address: from,
          to_address: to,
          value: value.toString(),
          tx_hash: at.hash,
          block_number: at.block.number.toString(),
          block_hash: at.block.hash,
          block_time: at.block.time,
        });
      };
      if (followed.has(tx.account)) {
        touched.add(tx.account, NATIVE);
        const incoming = tx.inMessage;
        if (incoming?.internal && incoming.source !== undefined && incoming.value > 0n && tx.keptInbound) {
          if (incoming.bounced || !followed.has(incoming.source)) {
            record('in', NATIVE, incoming.source, tx.account, incoming.value);
          }
        }
        // An aborted transaction sends nothing (its bounce, if any, is recorded where it arrives).
        if (tx.successful)
          tx.outMessages.forEach((out, index) => {
            if (out.internal && out.destination !== undefined && out.value > 0n) {
              record(index, NATIVE, tx.account, out.destination, out.value);
              if (followed.has(out.destination)) touched.add(out.destination, NATIVE);
            }
          });
      }
      const wallet = walletOf(tx.account);
      if (!tx.successful || wallet === undefined || tx.inMessage === undefined) continue;
      const incoming = tx.inMessage;
      const body = jettonBody(incoming);
      if (body === undefined) continue;
      const { owner, master } = wallet;
      touched.add(owner, master);
      if (incoming.bounced) {
        // Tokens coming back from a transfer or burn that failed on the other side (which aborted
        // and recorded nothing).
        if (
          incoming.source !== undefined &&
          (body.op === JETTON_OP.internalTransfer || body.op === JETTON_OP.burnNotification)
        ) {
          record('in', master, incoming.source, owner, body.amount);
        }
        continue;
      }
      if (body.op === JETTON_OP.internalTransfer) {
        const fromMaster = incoming.source === master || body.party === master;
        const from = fromMaster ? NATIVE : (body.party ?? incoming.source ?? NATIVE);
        if (from !== NATIVE && followed.has(from)) touched.add(from, master);
        if (!sentByFollowedWallet(incoming, walletOf)) record('in', master, from, owner, body.amount);
      } else if (body.op === JETTON_OP.transfer && body.party !== undefined) {
        if (followed.has(body.party)) touched.add(body.party, master);
        const index = tx.outMessages.findIndex((out) => out.op === JETTON_OP.internalTransfer);
        if (index >= 0) record(index, master, owner, body.party, body.amount);
      } else if (body.op === JETTON_OP.burn) {
        record('in', master, owner, master, body.amount);
      }
    }
    return { transfers, touched };
  }

  /**
   * The sending transaction of each inbound message that `transfersOf` records from the receiving
   * side (by the receiving transaction's hash): a Toncoin message from an account that is not
   * followed, an `internal_transfer` that did not come from a followed owner's wallet. Found among
   * the transactions read when the source account is watched, else with `tryLocateSourceTx` (one
   * call) and, for its masterchain block, `lookupBlock`. A message the API cannot place is left out
   * (recorded as `ton:<tx>:in`); nothing is cached.
   */
  private async anchorsOf(
    placed: readonly Placed[],
    followed: ReadonlySet<string>,
    walletOf: (account: string) => JettonWallet | undefined,
  ): Promise<Map<string, Anchor>> {
    const wanted = placed
      .map(({ tx }) => tx)
      .filter((tx) => {
        const incoming = tx.inMessage;
        if (incoming === undefined || !incoming.internal || incoming.bounced || incoming.source === undefined) {
          return false;
        }
        if (followed.has(tx.account) && tx.keptInbound && incoming.value > 0n && !followed.has(incoming.source)) {
          return true;
        }
        return (
          tx.successful &&
          walletOf(tx.account) !== undefined &&
          jettonBody(incoming)?.op === JETTON_OP.internalTransfer &&
          !sentByFollowedWallet(incoming, walletOf)
        );
      });
    const read = new Map<string, Placed[]>();
    for (const entry of placed) read.set(entry.tx.account, [...(read.get(entry.tx.account) ?? []), entry]);
    const found = await this.map(wanted, (tx) =>
      this.anchorOf(tx.inMessage!, tx.account, read.get(tx.inMessage!.source!) ?? []),
    );
    const anchors = new Map<string, Anchor>();
    wanted.forEach((tx, index) => {
      const anchor = found[index];
      if (anchor !== undefined) anchors.set(tx.hash, anchor);
    });
    return anchors;
  }

  /** The sending transaction of `message` (to `destination`): among `read` (the source account's transactions read), else asked. */
  private async anchorOf(
    message: TonMessage,
    destination: string,
    read: readonly Placed[],
  ): Promise<Anchor | undefined> {
    const source = message.source!;
    const indexIn = (tx: TonTransaction): number =>
      tx.account !== source
        ? -1
        : tx.outMessages.findIndex(
            (out) => out.internal && out.createdLt === message.createdLt && out.destination === destination,
          );
    for (const entry of read) {
      const index = indexIn(entry.tx);
      if (index >= 0) return { hash: entry.tx.hash, index, block: entry.block };
    }
    let json: TransactionJson;
    try {
      json = await this.api.tryLocateSourceTx(source, destination, message.createdLt);
    } catch (error) {
      if (error instanceof ToncenterError) return undefined;
      throw error;
    }
    const tx = decodeTransaction(json.data);
    const index = indexIn(tx);
    if (index < 0) return undefined;
    return { hash: tx.hash, index, block: await this.blockOfLt(tx.lt) };
  }

  // --- balances, tokens, history -----------------------------------------------------------------

  /** Balances at masterchain block `at`: `getAddressBalance`, and each Jetton wallet's `get_wallet_data`. */
  private async readBalances(
    keys: readonly HoldingKey[],
    at: BlockHeader,
    staged: readonly JettonWallet[] = [],
  ): Promise<Map<string, string>> {
    const walletFor = (owner: string, master: string): string | undefined =>
      this.byOwner.get(owner)?.get(master) ??
      staged.find((wallet) => wallet.owner === owner && wallet.master === master)?.wallet;
    const values = await this.map(keys, async (key) => {
      if (key.token_address === NATIVE) {
        return String(
          await this.api.get<string | number>('getAddressBalance', { address: key.address, seqno: at.number }),
        );
      }
      const wallet = walletFor(key.address, key.token_address);
      if (wallet === undefined) return '0';
      const data = await this.walletData(wallet, at.number);
      return (data?.balance ?? 0n).toString();
    });
    return new Map(keys.map((key, index) => [holdingKey(key), values[index]!]));
  }

  private async jettonToken(master: string): Promise<TokenInput | undefined> {
    if (!master.startsWith('0:')) return undefined;
    const result = await this.runGetMethod(master, 'get_jetton_data', []);
    if (result === undefined || result.stack.length < 4) return undefined;
    let content: Cell;
    try {
      content = stackCell(result.stack[3]!);
    } catch {
      return undefined;
    }
    const metadata = jettonMetadata(content);
    return tokenFromContract(this.chainFacts, master, {
      name: metadata.name ?? '',
      symbol: metadata.symbol ?? '',
      decimals: metadata.decimals,
    });
  }

  private cursor(backfill: number, account: string): Cursor {
    return this.cursors.get(`${backfill} ${account}`) ?? 'start';
  }

  /** One page of `account`'s history for a backfill, within logical times `low`..`high`. */
  private async historyPage(backfill: number, account: string, low: bigint, high: bigint): Promise<TonTransaction[]> {
    const key = `${backfill} ${account}`;
    const cursor = this.cursor(backfill, account);
    if (cursor === 'done') return [];
    const page = await this.api.get<TransactionJson[]>('getTransactions', {
      address: account,
      limit: HISTORY_PAGE,
      lt: cursor === 'start' ? undefined : cursor.lt,
      hash: cursor === 'start' ? undefined : Buffer.from(cursor.hash, 'hex').toString('base64'),
      to_lt: low > 0n ? (low - 1n).toString() : undefined,
      archival: 'true',
    });
    const transactions = page.map((json) => decodeTransaction(json.data));
    const oldest = transactions[transactions.length - 1];
    const pagesKey = `${key} pages`;
    const pages = (this.pageCounts.get(pagesKey) ?? 0) + 1;
    this.pageCounts.set(pagesKey, pages);
    const done =
      oldest === undefined ||
      transactions.length < HISTORY_PAGE ||
      oldest.prevLt === 0n ||
      oldest.lt < low ||
      pages >= this.tuning.backfillPages;
    this.cursors.set(key, done ? 'done' : { lt: oldest.prevLt, hash: oldest.prevHash });
    if (done) this.pageCounts.delete(pagesKey);
    return transactions.filter((tx) => tx.lt >= low && tx.lt <= high);
  }

  /** The masterchain block that made the transaction with logical time `lt` final. */
  private async blockOfLt(lt: bigint): Promise<BlockHeader> {
    const id = await this.api.get<BlockIdJson>('lookupBlock', {
      workchain: MASTERCHAIN,
      shard: MASTERCHAIN_SHARD,
      lt: lt.toString(),
    });
    return this.masterHeader(BigInt(id.seqno));
  }

  /** `work` over `items` with at most `tuning.concurrency` in flight, answers in order. */
  private async map<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
    const results: R[] = new Array<R>(items.length);
    let next = 0;
    const worker = async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.tuning.concurrency, items.length) }, worker));
    return results;
  }
}

function headerOf(json: BlockHeaderJson): BlockHeader {
  return {
    number: BigInt(json.id.seqno),
    hash: hashHex(json.id.root_hash),
    parentHash: json.prev_blocks[0] === undefined ? '' : hashHex(json.prev_blocks[0].root_hash),
    time: new Date(json.gen_utime * 1000).toISOString(),
  };
}

function hashHex(text: string): string {
  return /^[0-9a-fA-F]{64}$/.test(text) ? text.toLowerCase() : Buffer.from(text, 'base64').toString('hex');
}

function prevHash(json: TransactionJson): string {
  return Buffer.from(decodeTransaction(json.data).prevHash, 'hex').toString('base64');
}

/** Whether a Jetton message came from a followed owner's wallet (whose own transaction records it). */
function sentByFollowedWallet(message: TonMessage, walletOf: (account: string) => JettonWallet | undefined): boolean {
  return message.source !== undefined && walletOf(message.source) !== undefined;
}

function accountOf(tx: ShortTxJson): string {
  return Address.parse(tx.account).toRawString();
}

function compare(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
