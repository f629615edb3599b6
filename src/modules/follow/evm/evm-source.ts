import type { EvmChain } from '../../../core/chains/chain-registry';
import type { FollowedChainConfig } from '../../../config/config';
import type { TokenInput } from '../../../core/records/record-input';
import {
  nativeBackfillStart,
  type AddressShape,
  type BackfillPlan,
  type BackfillState,
  type ChainSource,
  type SourceReading,
} from '../chain-source';
import { NATIVE, type BlockHeader, type HoldingKey } from '../reading';
import { tokenFromContract } from '../token-discovery';
import { ChainReader } from './chain-reader';
import { evmAddressShape } from './address-shape';

export interface EvmSourceTuning {
  /** Blocks of token-transfer history read per backfill step (the reader splits it further when the node asks). */
  tokenBackfillBlocks: number;
  /** Whole blocks read per native backfill step. */
  nativeBackfillBlocks: number;
}

export const EVM_SOURCE_TUNING: EvmSourceTuning = { tokenBackfillBlocks: 10_000, nativeBackfillBlocks: 100 };

/**
 * An EVM chain as a chain source (contract §10), over the chain reader's JSON-RPC: the node must
 * answer the registry's `chainId`; balances and token metadata are read from state; history of an
 * address tracked later is its token transfers from START_BLOCK (`eth_getLogs`, cheap) and then its
 * native transfers over NATIVE_BACKFILL_BLOCKS whole blocks.
 */
export class EvmSource implements ChainSource {
  readonly chain;
  readonly addresses: AddressShape;
  /** A range is read from the node alone: the next one can be read while one commits. */
  readonly readsAhead = true;

  constructor(
    private readonly facts: EvmChain,
    private readonly settings: FollowedChainConfig,
    private readonly reader: ChainReader = new ChainReader(settings.chain, settings.rpcUrls),
    private readonly tuning: EvmSourceTuning = EVM_SOURCE_TUNING,
  ) {
    this.chain = settings.chain;
    this.addresses = evmAddressShape(settings.chain);
  }

  async mismatch(): Promise<string | undefined> {
    const chainId = await this.reader.chainId();
    if (chainId === this.facts.chainId) return undefined;
    return `the node answers chain id ${chainId}, not ${this.facts.chainId} (${this.facts.name})`;
  }

  head(): Promise<bigint> {
    return this.reader.head();
  }

  header(height: bigint): Promise<BlockHeader | undefined> {
    return this.reader.header(height);
  }

  async prepare(): Promise<void> {
    // Everything the EVM source needs is on the node.
  }

  readRange(from: bigint, to: bigint, followed: ReadonlySet<string>) {
    return this.reader.readRange(from, to, followed);
  }

  takeIn(fresh: readonly string[]): Promise<SourceReading> {
    return Promise.resolve({
      transfers: [],
      touched: fresh.map((address) => ({ address, token_address: NATIVE })),
    });
  }

  backfillFor(trackedAt: bigint): BackfillPlan {
    return {
      throughBlock: trackedAt,
      tokenNext: this.settings.startBlock,
      nativeNext: nativeBackfillStart(this.settings, trackedAt),
    };
  }

  async backfillStep(backfill: BackfillState): Promise<{ reading: SourceReading; next: BackfillState }> {
    const next: BackfillState = { ...backfill };
    if (backfill.tokenNext <= backfill.throughBlock) {
      const to = min(backfill.throughBlock, backfill.tokenNext + BigInt(this.tuning.tokenBackfillBlocks) - 1n);
      next.tokenNext = to + 1n;
      return { reading: await this.reader.tokenTransfers(backfill.tokenNext, to, backfill.addresses), next };
    }
    if (backfill.nativeNext <= backfill.throughBlock) {
      const to = min(backfill.throughBlock, backfill.nativeNext + BigInt(this.tuning.nativeBackfillBlocks) - 1n);
      next.nativeNext = to + 1n;
      return { reading: await this.reader.nativeTransfers(backfill.nativeNext, to, new Set(backfill.addresses)), next };
    }
    return { reading: { transfers: [], touched: [] }, next };
  }

  balances(keys: readonly HoldingKey[], at: BlockHeader): Promise<Map<string, string>> {
    return this.reader.balances(keys, at.number);
  }

  async discoverTokens(contracts: readonly string[], at: BlockHeader): Promise<Map<string, TokenInput | undefined>> {
    const metadata = await this.reader.tokenMetadata(contracts, at.number);
    return new Map(
      contracts.map((contract) => [contract, tokenFromContract(this.facts, contract, metadata.get(contract))]),
    );
  }

  rewind(): Promise<Record<string, never>> {
    // Balances at the ancestor are read from the node's state there; nothing of the source's own is kept.
    return Promise.resolve({});
  }
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
