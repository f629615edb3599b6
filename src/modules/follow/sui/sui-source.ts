import { sharedWhileInFlight } from '../in-flight';
import type { Chain } from '../../../core/chains/chain-registry';
import type { ChainId } from '../../../core/chains/chain-ids';
import type { TokenInput } from '../../../core/records/record-input';
import type { FollowedChainConfig } from '../../../config/config';
import type { AddressShape, BackfillPlan, BackfillState, ChainSource, SourceReading } from '../chain-source';
import { inBatches } from '../in-batches';
import {
  ChainMoved,
  holdingKey,
  NATIVE,
  TouchedSet,
  type BlockHeader,
  type HoldingKey,
  type ObservedTransfer,
} from '../reading';
import { suiAddressShape } from './address-shape';
import { coinTokenRecord } from './coin-tokens';
import { chainMismatch } from './network';
import { SuiNodeError, SuiRpc } from './sui-rpc';
import { coinToken, readTransaction, SUI_COIN_TYPE, type SuiTransaction } from './sui-transaction';

export interface SuiSourceTuning {
  /** Checkpoint requests in flight at once while reading a range, and balance requests. */
  parallelRequests: number;
  /** Balances per `ListBalances` page. */
  balancesPerPage: number;
}

export const SUI_SOURCE_TUNING: SuiSourceTuning = { parallelRequests: 8, balancesPerPage: 500 };

/** What a header needs of a checkpoint. */
const HEADER_FIELDS = ['sequence_number', 'digest', 'summary.previous_digest', 'summary.timestamp'];
/** What a range needs of a checkpoint: its header and, of each transaction, what `readTransaction` reads. */
const RANGE_FIELDS = [
  ...HEADER_FIELDS,
  'transactions.digest',
  'transactions.transaction.sender',
  'transactions.transaction.gas_payment.owner',
  'transactions.effects.status',
  'transactions.effects.gas_used',
  'transactions.balance_changes',
];

/** A checkpoint as `GetCheckpoint` answers it with the masks above (the fields read). */
interface CheckpointJson {
  sequenceNumber?: bigint;
  digest?: string;
  summary?: { previousDigest?: string; timestamp?: { seconds: bigint; nanos: number } };
  transactions: SuiTransaction[];
}

/**
 * Sui as a chain source, over a full node's gRPC API (`sui.rpc.v2`, through `@mysten/sui`).
 *
 * Checkpoints are final once made, so confirmations default to 0; a block is a checkpoint, its
 * hash the checkpoint's digest and its parent the previous checkpoint's (`previous_digest`). The
 * head is `GetServiceInfo`'s `checkpoint_height`; a range is read checkpoint by checkpoint
 * (`GetCheckpoint` with a read mask of what is needed: each transaction's digest, sender, gas
 * payer, status, gas used and balance changes), each naming the one before it as parent.
 * Transfers come from the balance changes (`readTransaction`).
 *
 * Balances are the node's (`GetBalance`), as of its newest checkpoint: a full node's state API
 * has no past, so while the follower catches up they may be ahead of the checkpoint it reached,
 * and are the same once it has caught up (as on Solana). A newly tracked address is taken in with
 * every coin it holds (`ListBalances`). Nothing of the source's own is kept.
 *
 * No backfill: a full node cannot list an address's past transactions (that is Sui's GraphQL
 * service over its indexer), so an address tracked after the follower started has its transfers
 * from then on, and earlier history by import.
 */
export class SuiSource implements ChainSource {
  readonly chain: ChainId;
  readonly addresses: AddressShape;
  readonly readsAhead = true;
  private readonly rpc: SuiRpc;
  /** The node's chain and newest checkpoint, asked once for a turn's `mismatch` and `head` together. */
  private readonly serviceInfo = sharedWhileInFlight(() =>
    this.rpc.call('GetServiceInfo', (client, options) => client.ledgerService.getServiceInfo({}, options)),
  );

  constructor(
    private readonly facts: Chain,
    private readonly settings: FollowedChainConfig,
    private readonly tuning: SuiSourceTuning = SUI_SOURCE_TUNING,
  ) {
    this.chain = settings.chain;
    this.rpc = new SuiRpc(settings.rpcUrls, settings.network === 'localnet' ? 'localnet' : 'mainnet');
    this.addresses = suiAddressShape(settings.chain);
  }

  async mismatch(): Promise<string | undefined> {
    return chainMismatch(this.settings.network, (await this.serviceInfo()).chain);
  }

  async head(): Promise<bigint> {
    const height = (await this.serviceInfo()).checkpointHeight;
    if (height === undefined) throw new Error('the Sui node gives no checkpoint height');
    return height;
  }

  async header(sequence: bigint): Promise<BlockHeader | undefined> {
    const checkpoint = await this.checkpoint(sequence, HEADER_FIELDS);
    return checkpoint === undefined ? undefined : headerOf(checkpoint);
  }

  async prepare(): Promise<void> {
    // Everything the Sui source needs is on the node.
  }

  async readRange(
    from: bigint,
    to: bigint,
    followed: ReadonlySet<string>,
  ): Promise<SourceReading & { headers: BlockHeader[] }> {
    const sequences: bigint[] = [];
    for (let sequence = from; sequence <= to; sequence++) sequences.push(sequence);
    const checkpoints = await inBatches(sequences, this.tuning.parallelRequests, async (sequence) => {
      const checkpoint = await this.checkpoint(sequence, RANGE_FIELDS);
      if (checkpoint !== undefined) return checkpoint;
      const lowest = (await this.serviceInfo()).lowestAvailableCheckpoint;
      if (lowest !== undefined && sequence < lowest)
        throw new Error(
          `checkpoint ${sequence} is pruned on the node (its oldest is ${lowest}): ` +
            'START_BLOCK_SUI must be at or above its lowest available checkpoint',
        );
      throw new ChainMoved(`the node has no checkpoint ${sequence}`, sequence);
    });
    const headers: BlockHeader[] = [];
    const transfers: ObservedTransfer[] = [];
    const touched = new TouchedSet();
    for (const checkpoint of checkpoints) {
      const header = headerOf(checkpoint);
      const previous = headers[headers.length - 1];
      if (previous !== undefined && header.parentHash !== previous.hash)
        throw new ChainMoved(
          `checkpoint ${header.number} does not follow checkpoint ${previous.number}`,
          header.number,
        );
      headers.push(header);
      const at = { sequence: header.number, digest: header.hash, time: header.time };
      for (const tx of checkpoint.transactions) {
        const read = readTransaction(tx, at, followed);
        transfers.push(...read.transfers);
        touched.addAll(read.touched);
      }
    }
    return { transfers, touched: touched.list(), headers };
  }

  async takeIn(fresh: readonly string[]): Promise<SourceReading> {
    const touched = new TouchedSet();
    const known = new Map<string, string>();
    const held = await inBatches(fresh, this.tuning.parallelRequests, (owner) => this.heldBy(owner));
    fresh.forEach((owner, index) => {
      const coins = held[index]!;
      touched.add(owner, NATIVE);
      known.set(holdingKey({ address: owner, token_address: NATIVE }), '0');
      for (const [token, amount] of coins) {
        touched.add(owner, token);
        known.set(holdingKey({ address: owner, token_address: token }), amount.toString());
      }
    });
    return { transfers: [], touched: touched.list(), known };
  }

  backfillFor(): BackfillPlan | undefined {
    // A full node cannot list an address's past transactions: no backfill (see the class's comment).
    return undefined;
  }

  backfillStep(backfill: BackfillState): Promise<{ reading: SourceReading; next: BackfillState }> {
    // Never planned (backfillFor); a plan left by another build ends at once.
    const next = { ...backfill, tokenNext: backfill.throughBlock + 1n, nativeNext: backfill.throughBlock + 1n };
    return Promise.resolve({ reading: { transfers: [], touched: [] }, next });
  }

  async balances(keys: readonly HoldingKey[]): Promise<Map<string, string>> {
    const amounts = await inBatches(keys, this.tuning.parallelRequests, async (key) => {
      const coinType = key.token_address === NATIVE ? SUI_COIN_TYPE : key.token_address;
      const answer = await this.rpc.call('GetBalance', (client, options) =>
        client.stateService.getBalance({ owner: key.address, coinType }, options),
      );
      return answer.balance?.balance ?? 0n;
    });
    return new Map(keys.map((key, index) => [holdingKey(key), amounts[index]!.toString()]));
  }

  async discoverTokens(coinTypes: readonly string[]): Promise<Map<string, TokenInput | undefined>> {
    const metadata = await inBatches(coinTypes, this.tuning.parallelRequests, async (coinType) => {
      try {
        return (
          await this.rpc.call('GetCoinInfo', (client, options) =>
            client.stateService.getCoinInfo({ coinType }, options),
          )
        ).metadata;
      } catch (error) {
        if (error instanceof SuiNodeError && error.code === 'NOT_FOUND') return undefined;
        throw error;
      }
    });
    return new Map(
      coinTypes.map((coinType, index) => [coinType, coinTokenRecord(this.facts, coinType, metadata[index])]),
    );
  }

  rewind(): Promise<Record<string, never>> {
    // Checkpoints are final; balances are the node's. Nothing of the source's own is kept.
    return Promise.resolve({});
  }

  /** The checkpoint at `sequence` with the fields `paths`, undefined when the node has none there. */
  private async checkpoint(sequence: bigint, paths: string[]): Promise<CheckpointJson | undefined> {
    try {
      const answer = await this.rpc.call('GetCheckpoint', (client, options) =>
        client.ledgerService.getCheckpoint(
          { checkpointId: { oneofKind: 'sequenceNumber', sequenceNumber: sequence }, readMask: { paths } },
          options,
        ),
      );
      return answer.checkpoint;
    } catch (error) {
      if (error instanceof SuiNodeError && error.code === 'NOT_FOUND') return undefined;
      throw error;
    }
  }

  /** Every coin `owner` holds, by token address (SUI as `0`), paged. */
  private async heldBy(owner: string): Promise<Map<string, bigint>> {
    const held = new Map<string, bigint>();
    let pageToken: Uint8Array | undefined;
    do {
      const page = await this.rpc.call('ListBalances', (client, options) =>
        client.stateService.listBalances({ owner, pageSize: this.tuning.balancesPerPage, pageToken }, options),
      );
      for (const entry of page.balances)
        if (entry.coinType !== undefined && (entry.balance ?? 0n) > 0n)
          held.set(coinToken(entry.coinType), entry.balance!);
      pageToken = page.nextPageToken !== undefined && page.nextPageToken.length > 0 ? page.nextPageToken : undefined;
    } while (pageToken !== undefined);
    return held;
  }
}

function headerOf(checkpoint: CheckpointJson): BlockHeader {
  const { sequenceNumber, digest, summary } = checkpoint;
  if (sequenceNumber === undefined || digest === undefined || summary?.timestamp === undefined)
    throw new Error('the Sui node gave a checkpoint without its sequence number, digest or time');
  const { seconds, nanos } = summary.timestamp;
  return {
    number: sequenceNumber,
    hash: digest,
    parentHash: summary.previousDigest ?? '',
    time: new Date(Number(seconds) * 1000 + Math.floor(nanos / 1_000_000)).toISOString(),
  };
}
