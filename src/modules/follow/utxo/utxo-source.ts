import { sharedWhileInFlight } from '../in-flight';
import { addressOfScript, outputScriptOf } from '../../../core/addresses/output-script';
import type { ChainId } from '../../../core/chains/chain-ids';
import type { TokenInput } from '../../../core/records/record-input';
import type { FollowedChainConfig } from '../../../config/config';
import {
  nativeBackfillStart,
  onePassBackfill,
  type AddressShape,
  type BackfillPlan,
  type BackfillState,
  type ChainSource,
  type SourceReading,
} from '../chain-source';
import { holdingKey, NATIVE, type BlockHeader, type HoldingKey, type ObservedTransfer } from '../reading';
import { BitcoinRpc, BitcoinRpcError } from './bitcoin-rpc';
import {
  choosePath,
  readBlocks,
  readHeader,
  TRANSACTIONS_PER_REQUEST,
  type BlockReadPath,
  type ReadBudget,
} from './block-reader';
import { chainInfo, networkMismatch, type UtxoChainId, type UtxoNetwork } from './network';
import { outpointKey, TrackedOutput, UtxoRepository } from './utxo.repository';
import { satoshis, type UtxoBlock, type UtxoTransaction } from './utxo-block';
import { utxoAddressShape } from './address-shape';

export interface UtxoSourceTuning {
  /** Whole blocks read per backfill step, at most. */
  backfillBlocks: number;
  /**
   * How much a range (or a backfill step) reads: its blocks end with the one that brings it to
   * `limit` transactions, asked for `perRequest` at a time (block-reader.ts, `ReadBudget`). On
   * Bitcoin mainnet a range is a block or two, 5-20 MB of the node's JSON; 25 regtest blocks of
   * 200 transactions. 5,000 rather than 20,000 (bench/README.md, "A range's read budget"): the
   * API waits half as long for a range's synchronous work, and the service holds 100 MiB less, for
   * a catch-up about 8% slower.
   */
  read: Required<ReadBudget>;
}

export const UTXO_SOURCE_TUNING: UtxoSourceTuning = {
  backfillBlocks: 100,
  read: { perRequest: TRANSACTIONS_PER_REQUEST, limit: 5_000 },
};

/** Blocks read from `from` on, ahead of the range that will start there. */
interface BlocksAhead {
  from: bigint;
  /** Settles once; its failure is handled when (if) it is used. */
  blocks: Promise<UtxoBlock[]>;
}

/** JSON-RPC's "method not found": a node without `scantxoutset` (Dogecoin Core 1.14). */
const METHOD_NOT_FOUND = -32601;

/** What a range (or a backfill step) did to the tracked outputs, applied to memory once committed. */
interface OutputChanges {
  /** New tracked outputs, with their spend when it is in the same reading. */
  created: Map<string, TrackedOutput>;
  /** Kept outputs the reading spent. */
  spent: Map<string, TrackedOutput>;
}

/**
 * The Bitcoin family (bitcoin, bitcoincash, dogecoin) as a chain source (contract §13), over
 * Bitcoin Core's JSON-RPC.
 *
 * Outputs are matched by script: each followed address's output script is computed once, and an
 * output whose script is one of them is a tracked output, kept in `follower_outputs`. An input
 * names the output it spends, not its address, so spends are found by looking the outpoint up
 * among the tracked outputs (in memory, loaded when the process takes the chain), never by asking
 * the node. Balances are the sums of the unspent tracked outputs: exact, and nothing to read.
 *
 * A transaction becomes transfers (docs/live-data.md, "The Bitcoin family"): one per output paid to an address
 * that is not among the transaction's tracked senders; change back to a sender is none; a coinbase
 * output's sender is `0`. The sender named is the tracked address that spent the most in the
 * transaction, or, when no sender is tracked, the address of the first input that has one (the
 * only per-transaction lookup, `getrawtransaction` of that input's transaction, for transactions
 * that pay a tracked address). A tracked sender that no transfer names (a second sender, or a
 * wallet moving coins to itself) gets one transfer of its own, so every transaction that spends
 * from or pays to a tracked address is listed for it.
 */
export class UtxoSource implements ChainSource {
  readonly chain: ChainId;
  readonly addresses: AddressShape;
  private readonly rpc: BitcoinRpc;
  private path: BlockReadPath | undefined;
  /** Output script → the followed address recorded for it. */
  private scripts = new Map<string, string>();
  private scriptsOf = 0;
  /** Unspent tracked outputs, by `outpointKey`, as committed. */
  private unspent = new Map<string, TrackedOutput>();
  /** Balance of each followed address (satoshis), as committed. */
  private balance = new Map<string, bigint>();
  /** The output scripts of the transactions of the last blocks read (by txid, indexed by output), to name senders without asking the node. */
  private recentScripts = new Map<string, string[]>();
  /** A rewind changed the tracked outputs: memory is reloaded before the next reading. */
  private stale = false;
  /** Whether the node has `scantxoutset` (Dogecoin Core 1.14 has not); asked when the source is prepared. */
  private scans = true;
  /** The blocks after a range that ended at its read budget, read while that range commits (`readRange`). */
  private ahead: BlocksAhead | undefined;
  /** Reads ahead still running, used or dropped: `settled` awaits them. */
  private readonly reading = new Set<Promise<unknown>>();
  /** The node's network and best height, asked once for a turn's `mismatch` and `head` together. */
  private readonly info = sharedWhileInFlight(() => chainInfo(this.rpc));

  constructor(
    private readonly settings: FollowedChainConfig,
    private readonly repository: UtxoRepository,
    private readonly tuning: UtxoSourceTuning = UTXO_SOURCE_TUNING,
  ) {
    this.chain = settings.chain;
    this.rpc = new BitcoinRpc(settings.rpcUrls);
    this.addresses = utxoAddressShape(settings.chain);
  }

  mismatch(): Promise<string | undefined> {
    // The configuration gives the Bitcoin family mainnet or regtest only.
    return networkMismatch(this.rpc, this.chain as UtxoChainId, this.settings.network as UtxoNetwork, this.info());
  }

  async head(): Promise<bigint> {
    return (await this.info()).blocks;
  }

  header(height: bigint): Promise<BlockHeader | undefined> {
    return readHeader(this.rpc, height);
  }

  async prepare(followed: ReadonlySet<string>): Promise<void> {
    try {
      await this.rpc.call('scantxoutset', ['status']);
      this.scans = true;
    } catch (error) {
      if (!(error instanceof BitcoinRpcError && error.code === METHOD_NOT_FOUND)) throw error;
      this.scans = false;
    }
    this.followScripts(followed);
    await this.reload();
  }

  async settled(): Promise<void> {
    await Promise.all(this.reading);
  }

  private async reload(): Promise<void> {
    this.unspent = new Map();
    this.balance = new Map();
    const recorded = new Set<string>();
    for (const output of await this.repository.unspent(this.chain)) {
      this.keep(output);
      recorded.add(output.address);
    }
    // A script keeps the form its outputs were recorded under, so that a balance is never split between twins.
    for (const address of recorded) {
      const script = outputScriptOf(this.chain, address);
      if (script !== undefined && this.scripts.has(script)) this.scripts.set(script, address);
    }
    this.stale = false;
  }

  async readRange(
    from: bigint,
    to: bigint,
    followed: ReadonlySet<string>,
  ): Promise<SourceReading & { headers: BlockHeader[] }> {
    if (followed.size !== this.scriptsOf) this.followScripts(followed);
    const path = await this.readPath();
    // The first blocks of the range, as many as the read budget lets through: the follower goes on
    // from the last one (its header is the reading's last).
    const blocks =
      (await this.blocksReadAhead(from, to)) ?? (await readBlocks(this.rpc, from, to, path, this.tuning.read));
    const last = blocks[blocks.length - 1]!;
    // Catching up: the blocks after this range are read from the node while this one is computed
    // and committed, which they do not depend on (spends are matched once they are this range's turn).
    if (last.height < to) {
      const next = readBlocks(this.rpc, last.height + 1n, to, path, this.tuning.read);
      // Handled where it is used (blocksReadAhead); a read-ahead dropped unused fails silently.
      const done: Promise<boolean> = next.then(
        () => this.reading.delete(done),
        () => this.reading.delete(done),
      );
      this.reading.add(done);
      this.ahead = { from: last.height + 1n, blocks: next };
    }
    const changes: OutputChanges = { created: new Map(), spent: new Map() };
    const transfers = await this.transfersOf(blocks, this.scripts, changes, (key) => this.unspent.get(key));
    return {
      ...this.outputReading(changes),
      transfers,
      headers: blocks.map((block) => ({
        number: block.height,
        hash: block.hash,
        parentHash: block.parentHash,
        time: block.time,
      })),
    };
  }

  /**
   * What `changes` do to the tracked outputs, as a reading: the addresses they touch with their
   * balances after them, the rows to write, and memory to update once committed.
   */
  private outputReading(changes: OutputChanges): SourceReading {
    const touched = touchedBy(changes);
    const delta = new Map<string, bigint>();
    for (const output of changes.created.values()) {
      if (output.spentBlock === undefined) delta.set(output.address, (delta.get(output.address) ?? 0n) + output.value);
    }
    for (const output of changes.spent.values()) {
      delta.set(output.address, (delta.get(output.address) ?? 0n) - output.value);
    }
    const known = new Map<string, string>();
    for (const address of touched) {
      const sum = (this.balance.get(address) ?? 0n) + (delta.get(address) ?? 0n);
      known.set(holdingKey({ address, token_address: NATIVE }), sum.toString());
    }
    return {
      transfers: [],
      touched: [...touched].map((address) => ({ address, token_address: NATIVE })),
      known,
      write: (tx) => this.repository.add(tx, this.chain, [...changes.created.values(), ...changes.spent.values()]),
      committed: () => this.apply(changes),
    };
  }

  /**
   * Addresses followed from block `at` on: their unspent outputs as of `at`, so their balances are
   * right at once and their spends are found from the next block. The node's UTXO set
   * (`scantxoutset`, by output script) is at its own tip, which may be above `at` (confirmations):
   * outputs created above `at` are left to the blocks the follower reads next, and outputs that were
   * unspent at `at` but spent above it are found by reading the blocks in between with the outputs
   * their inputs spend. A node without `scantxoutset` (Dogecoin Core 1.14) leaves the balance to
   * the backfill.
   */
  async takeIn(fresh: readonly string[], at: BlockHeader): Promise<SourceReading> {
    if (this.stale) await this.reload();
    const scripts = new Map<string, string>();
    for (const address of fresh) {
      const script = outputScriptOf(this.chain, address);
      if (script !== undefined && !this.scripts.has(script)) scripts.set(script, address);
    }
    const outputs = await this.unspentAt(scripts, at.number);
    const sums = new Map<string, bigint>();
    for (const output of outputs) sums.set(output.address, (sums.get(output.address) ?? 0n) + output.value);
    const known = new Map<string, string>();
    for (const address of fresh) {
      known.set(holdingKey({ address, token_address: NATIVE }), (sums.get(address) ?? 0n).toString());
    }
    return {
      transfers: [],
      touched: fresh.map((address) => ({ address, token_address: NATIVE })),
      known,
      write: (tx) => this.repository.add(tx, this.chain, outputs),
      committed: () => {
        for (const [script, address] of scripts) this.scripts.set(script, address);
        this.scriptsOf += fresh.length;
        for (const output of outputs) this.keep(output);
      },
    };
  }

  backfillFor(trackedAt: bigint): BackfillPlan {
    // No token side: the Bitcoin family has native coins only.
    return onePassBackfill(this.settings, trackedAt);
  }

  /**
   * The history of `backfill.addresses` in the next blocks of its window: receipts, and spends of
   * outputs found earlier in the window (kept as spent rows, so later steps find them). An output
   * received before the window and spent inside it is not found: without an address index, its
   * script is only in the block that created it.
   */
  async backfillStep(backfill: BackfillState): Promise<{ reading: SourceReading; next: BackfillState }> {
    const next: BackfillState = { ...backfill, tokenNext: backfill.throughBlock + 1n };
    if (backfill.nativeNext > backfill.throughBlock) return { reading: { transfers: [], touched: [] }, next };
    const to = min(backfill.throughBlock, backfill.nativeNext + BigInt(this.tuning.backfillBlocks) - 1n);
    const scripts = new Map<string, string>();
    for (const address of backfill.addresses) {
      const script = outputScriptOf(this.chain, address);
      if (script !== undefined) scripts.set(script, address);
    }
    const windowStart = nativeBackfillStart(this.settings, backfill.throughBlock);
    const found = new Map<string, TrackedOutput>();
    for (const output of await this.repository.createdBetween(
      this.chain,
      backfill.addresses,
      windowStart,
      backfill.throughBlock,
    )) {
      found.set(outpointKey(output.txid, output.vout), output);
    }
    const blocks = await readBlocks(this.rpc, backfill.nativeNext, to, await this.readPath(), this.tuning.read);
    // The next step starts after the last block the read budget let through.
    next.nativeNext = blocks[blocks.length - 1]!.height + 1n;
    const changes: OutputChanges = { created: new Map(), spent: new Map() };
    const transfers = await this.transfersOf(blocks, scripts, changes, (key) => found.get(key));
    if (!this.scans) {
      // No UTXO set to take the address in from: what the backfill finds is its balance.
      const reading = this.outputReading(changes);
      return { reading: { ...reading, transfers }, next };
    }
    // Outputs the backfill finds were either kept at take-in (unspent then) or spent by then.
    const rows = [...changes.created.values(), ...changes.spent.values()].map((output) =>
      found.has(outpointKey(output.txid, output.vout)) || output.spentBlock !== undefined
        ? output
        : { ...output, spentBlock: backfill.throughBlock, spentTxid: '' },
    );
    return {
      reading: { transfers, touched: [], write: (tx) => this.repository.add(tx, this.chain, rows) },
      next,
    };
  }

  async balances(keys: readonly HoldingKey[], at: BlockHeader): Promise<Map<string, string>> {
    const addresses = keys.filter((key) => key.token_address === NATIVE).map((key) => key.address);
    const sums = await this.repository.balancesAt(this.chain, addresses, at.number);
    return new Map(keys.map((key) => [holdingKey(key), (sums.get(key.address) ?? 0n).toString()]));
  }

  discoverTokens(): Promise<Map<string, TokenInput | undefined>> {
    return Promise.resolve(new Map<string, TokenInput | undefined>());
  }

  rewind(ancestor: BlockHeader): Promise<Pick<SourceReading, 'write' | 'committed'>> {
    return Promise.resolve({
      write: (tx) => this.repository.rewind(tx, this.chain, ancestor.number),
      // Memory follows the database: the next reading reloads the outputs.
      committed: () => {
        this.stale = true;
      },
    });
  }

  /**
   * The blocks read ahead when they start at `from` (through `to` at most), and only while their
   * last block is still the node's: a reorganisation since they were read drops them, and the range
   * is read again. Their first block's parent is the follower's check, as for any reading.
   */
  private async blocksReadAhead(from: bigint, to: bigint): Promise<UtxoBlock[] | undefined> {
    const ahead = this.ahead;
    this.ahead = undefined;
    if (ahead?.from !== from) return undefined;
    const blocks = (await ahead.blocks.catch(() => undefined))?.filter((block) => block.height <= to);
    const last = blocks?.[blocks.length - 1];
    if (last === undefined || (await readHeader(this.rpc, last.height))?.hash !== last.hash) return undefined;
    return blocks;
  }

  private async readPath(): Promise<BlockReadPath> {
    if (this.stale) await this.reload();
    this.path ??= await choosePath(this.rpc, await this.rpc.call<string>('getbestblockhash'));
    return this.path;
  }

  /**
   * Each followed address's output script. On bitcoincash a legacy address and its CashAddr twin
   * have one script: when both are followed, transfers are recorded for the legacy form (reads by
   * either form find them, contract §3).
   */
  private followScripts(followed: ReadonlySet<string>): void {
    const scripts = new Map<string, string>();
    for (const address of [...followed].sort()) {
      const script = outputScriptOf(this.chain, address);
      if (script === undefined) continue;
      const taken = scripts.get(script);
      if (taken === undefined || (taken.startsWith('bitcoincash:') && !address.startsWith('bitcoincash:'))) {
        scripts.set(script, address);
      }
    }
    this.scripts = scripts;
    this.scriptsOf = followed.size;
  }

  private keep(output: TrackedOutput): void {
    this.unspent.set(outpointKey(output.txid, output.vout), output);
    this.balance.set(output.address, (this.balance.get(output.address) ?? 0n) + output.value);
  }

  private apply(changes: OutputChanges): void {
    for (const output of changes.created.values()) if (output.spentBlock === undefined) this.keep(output);
    for (const [key, output] of changes.spent) {
      this.unspent.delete(key);
      this.balance.set(output.address, (this.balance.get(output.address) ?? 0n) - output.value);
    }
  }

  /**
   * The transfers of `blocks` for the addresses of `scripts`, in order; `changes` collects the
   * tracked outputs they create and spend. `lookup` finds a tracked output the reading did not create.
   */
  private async transfersOf(
    blocks: readonly UtxoBlock[],
    scripts: ReadonlyMap<string, string>,
    changes: OutputChanges,
    lookup: (key: string) => TrackedOutput | undefined,
  ): Promise<ObservedTransfer[]> {
    const pending: {
      block: UtxoBlock;
      tx: UtxoTransaction;
      senders: Map<string, Spent>;
      received: Map<string, bigint>;
    }[] = [];
    for (const block of blocks) {
      for (const tx of block.transactions) {
        const senders = new Map<string, Spent>();
        for (const [index, input] of tx.inputs.entries()) {
          const key = outpointKey(input.txid, input.vout);
          const created = changes.created.get(key);
          const kept = created === undefined && !changes.spent.has(key) ? lookup(key) : undefined;
          const output = created?.spentBlock === undefined ? (created ?? kept) : undefined;
          if (output === undefined) continue;
          const spent = { ...output, spentBlock: block.height, spentTxid: tx.txid };
          if (created !== undefined) changes.created.set(key, spent);
          else changes.spent.set(key, spent);
          const before = senders.get(output.address);
          senders.set(output.address, { value: (before?.value ?? 0n) + output.value, input: before?.input ?? index });
        }
        const received = new Map<string, bigint>();
        for (const output of tx.outputs) {
          const address = trackedBy(scripts, this.chain, output.script);
          if (address === undefined) continue;
          changes.created.set(outpointKey(tx.txid, output.n), {
            txid: tx.txid,
            vout: output.n,
            address,
            value: output.value,
            block: block.height,
          });
          received.set(address, (received.get(address) ?? 0n) + output.value);
        }
        if (senders.size > 0 || received.size > 0) pending.push({ block, tx, senders, received });
      }
    }
    const firstSenders = await this.firstInputAddresses(
      pending.filter((entry) => entry.senders.size === 0 && !entry.tx.coinbase).map((entry) => entry.tx),
      blocks,
    );
    return pending.flatMap(({ block, tx, senders, received }) =>
      this.transactionTransfers(block, tx, senders, received, scripts, firstSenders.get(tx.txid)),
    );
  }

  private transactionTransfers(
    block: UtxoBlock,
    tx: UtxoTransaction,
    senders: ReadonlyMap<string, Spent>,
    received: ReadonlyMap<string, bigint>,
    scripts: ReadonlyMap<string, string>,
    firstSender: string | undefined,
  ): ObservedTransfer[] {
    const record = (id: string, from: string, to: string, value: bigint): ObservedTransfer => ({
      id: `${this.chain}:${tx.txid}:${id}`,
      chain: this.chain,
      token_address: NATIVE,
      from_address: from,
      to_address: to,
      value: value.toString(),
      tx_hash: tx.txid,
      block_number: block.height.toString(),
      block_hash: block.hash,
      block_time: block.time,
    });
    let from: string | undefined;
    if (tx.coinbase) from = NATIVE;
    else if (senders.size > 0) from = largest(senders);
    else from = firstSender;
    const transfers: ObservedTransfer[] = [];
    const named = new Set<string>();
    for (const output of tx.outputs) {
      const to = trackedBy(scripts, this.chain, output.script) ?? addressOfScript(this.chain, output.script);
      if (to === undefined || output.value === 0n || senders.has(to)) continue;
      // Only transfers with a tracked end are recorded.
      if (senders.size === 0 && !received.has(to)) continue;
      if (from === undefined) continue;
      transfers.push(record(String(output.n), from, to, output.value));
      named.add(from);
    }
    // A tracked sender no transfer names: one transfer of its own (what it spent less what came back).
    const firstRecipient = transfers[0]?.to_address;
    for (const [sender, spent] of senders) {
      if (named.has(sender)) continue;
      const net = spent.value - (received.get(sender) ?? 0n);
      transfers.push(record(`in${spent.input}`, sender, firstRecipient ?? sender, net > 0n ? net : 0n));
    }
    return transfers;
  }

  /**
   * For transactions that pay a tracked address and spend no tracked output: the address of their
   * first input that has one, read from the transactions those inputs spend (one batch).
   */
  private async firstInputAddresses(
    transactions: readonly UtxoTransaction[],
    blocks: readonly UtxoBlock[],
  ): Promise<Map<string, string>> {
    // The transactions these inputs spend are often in the blocks just read, or the range before.
    const nearby = new Map(this.recentScripts);
    for (const block of blocks) for (const tx of block.transactions) nearby.set(tx.txid, scriptsOf(tx));
    this.recentScripts = new Map(blocks.flatMap((block) => block.transactions.map((tx) => [tx.txid, scriptsOf(tx)])));
    const found = new Map<string, string>();
    let remaining = transactions.filter((tx) => tx.inputs.length > 0);
    for (let index = 0; remaining.length > 0; index++) {
      const asked = remaining.filter((tx) => index < tx.inputs.length);
      if (asked.length === 0) break;
      const previous = [...new Set(asked.map((tx) => tx.inputs[index]!.txid))].filter((txid) => !nearby.has(txid));
      const answers = await this.rpc.batch<{ vout?: { n: number; scriptPubKey?: { hex?: string } }[] }>(
        previous.map((txid) => ({ method: 'getrawtransaction', params: [txid, true] })),
      );
      previous.forEach((txid, i) => {
        const scripts: string[] = [];
        for (const output of answers[i]?.vout ?? []) scripts[output.n] = output.scriptPubKey?.hex?.toLowerCase() ?? '';
        nearby.set(txid, scripts);
      });
      for (const tx of asked) {
        const input = tx.inputs[index]!;
        const script = nearby.get(input.txid)?.[input.vout];
        const address = script === undefined || script === '' ? undefined : addressOfScript(this.chain, script);
        if (address !== undefined) found.set(tx.txid, address);
      }
      remaining = asked.filter((tx) => !found.has(tx.txid));
    }
    return found;
  }

  /** The unspent outputs paid to `scripts` as of block `at` (see takeIn). */
  private async unspentAt(scripts: ReadonlyMap<string, string>, at: bigint): Promise<TrackedOutput[]> {
    if (scripts.size === 0) return [];
    let scan: {
      height: number;
      unspents: { txid: string; vout: number; scriptPubKey: string; amount: string | number; height: number }[];
    };
    try {
      scan = await this.rpc.call('scantxoutset', ['start', [...scripts.keys()].map((script) => `raw(${script})`)]);
    } catch (error) {
      if (error instanceof BitcoinRpcError && error.code === METHOD_NOT_FOUND) return [];
      throw error;
    }
    const outputs: TrackedOutput[] = [];
    for (const entry of scan.unspents) {
      const address = scripts.get(entry.scriptPubKey.toLowerCase());
      if (address === undefined || BigInt(entry.height) > at) continue;
      outputs.push({
        txid: entry.txid,
        vout: entry.vout,
        address,
        value: satoshis(entry.amount),
        block: BigInt(entry.height),
      });
    }
    const scanned = BigInt(scan.height);
    if (scanned > at) outputs.push(...(await this.spentAbove(scripts, at, scanned)));
    return outputs;
  }

  /** Outputs paid to `scripts` at or below `at` and spent in blocks `at`+1..`to`: unspent as of `at`. */
  private async spentAbove(scripts: ReadonlyMap<string, string>, at: bigint, to: bigint): Promise<TrackedOutput[]> {
    // Every block of the span (a few, the confirmations), each request bounded as any reading's.
    const blocks = await readBlocks(this.rpc, at + 1n, to, await this.readPath(), {
      perRequest: this.tuning.read.perRequest,
    });
    const inputs = blocks.flatMap((block) => block.transactions.flatMap((tx) => tx.inputs));
    const spentThere = new Set(inputs.map((input) => outpointKey(input.txid, input.vout)));
    const previous = [...new Set(inputs.map((input) => input.txid))];
    const answers = await this.rpc.batch<{
      blockhash?: string;
      vout?: { n: number; value: number | string; scriptPubKey?: { hex?: string } }[];
    }>(previous.map((txid) => ({ method: 'getrawtransaction', params: [txid, true] })));
    const candidates: { txid: string; vout: number; address: string; value: bigint; blockhash: string }[] = [];
    previous.forEach((txid, index) => {
      const answer = answers[index];
      for (const output of answer?.vout ?? []) {
        const address = scripts.get(output.scriptPubKey?.hex?.toLowerCase() ?? '');
        if (address === undefined || answer?.blockhash === undefined) continue;
        if (!spentThere.has(outpointKey(txid, output.n))) continue;
        candidates.push({ txid, vout: output.n, address, value: satoshis(output.value), blockhash: answer.blockhash });
      }
    });
    if (candidates.length === 0) return [];
    const headers = await this.rpc.batch<{ height: number }>(
      candidates.map((candidate) => ({ method: 'getblockheader', params: [candidate.blockhash, true] })),
    );
    return candidates
      .map((candidate, index) => ({ ...candidate, block: BigInt(headers[index]!.height) }))
      .filter((candidate) => candidate.block <= at)
      .map(({ txid, vout, address, value, block }) => ({ txid, vout, address, value, block }));
  }
}

/** A transaction's output scripts, indexed by output number. */
function scriptsOf(tx: UtxoTransaction): string[] {
  const scripts: string[] = [];
  for (const output of tx.outputs) scripts[output.n] = output.script;
  return scripts;
}

/** A pay-to-pubkey script: a 33- or 65-byte key, then OP_CHECKSIG. */
const PAY_TO_PUBKEY = /^(?:21[0-9a-f]{66}|41[0-9a-f]{130})ac$/;

/**
 * The followed address an output pays to: by its script, or, for a pay-to-pubkey output (early
 * coinbases), by the P2PKH script of its key, which is how the address is known.
 */
export function trackedBy(scripts: ReadonlyMap<string, string>, chain: ChainId, script: string): string | undefined {
  const direct = scripts.get(script);
  if (direct !== undefined || !PAY_TO_PUBKEY.test(script)) return direct;
  const address = addressOfScript(chain, script);
  const keyed = address === undefined ? undefined : outputScriptOf(chain, address);
  return keyed === undefined ? undefined : scripts.get(keyed);
}

function touchedBy(changes: OutputChanges): Set<string> {
  const touched = new Set<string>();
  for (const output of changes.created.values()) touched.add(output.address);
  for (const output of changes.spent.values()) touched.add(output.address);
  return touched;
}

/** What a tracked sender spent in a transaction, and the index of its first input there. */
interface Spent {
  value: bigint;
  input: number;
}

/** The sender that spent the most; on a tie, the one whose first input comes first. */
function largest(senders: ReadonlyMap<string, Spent>): string {
  let best: [string, Spent] | undefined;
  for (const entry of senders) {
    if (
      best === undefined ||
      entry[1].value > best[1].value ||
      (entry[1].value === best[1].value && entry[1].input < best[1].input)
    )
      best = entry;
  }
  return best![0];
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
