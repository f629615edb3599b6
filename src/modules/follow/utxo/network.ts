import { BitcoinRpc } from './bitcoin-rpc';
import { MalformedNodeAnswer } from './utxo-block';

/** What `NETWORK_<CHAIN>` may say (contract §13). */
export type UtxoNetwork = 'mainnet' | 'regtest';

export type UtxoChainId = 'bitcoin' | 'bitcoincash' | 'dogecoin';

/**
 * Mainnet genesis blocks. Bitcoin's (Bitcoin Core's chainparams.cpp, and every explorer) is also
 * Bitcoin Cash's; Dogecoin's is asserted in Dogecoin Core's src/chainparams.cpp.
 */
const BITCOIN_GENESIS = '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f';
const DOGECOIN_GENESIS = '1a91e3dace36e2be3bf030a65679fe821aa1d6ef92e7c9902eb318182c355691';

/**
 * Bitcoin Cash left Bitcoin on 1 August 2017: 478558 is the last common block, and the two chains'
 * blocks at 478559 differ. BCH's 478559 (and 556767, where Bitcoin SV left Bitcoin Cash) are listed
 * in Bitcoin Unlimited's doc/bch-upgrades-timeline.md ("first block on the new BCH chain", "first
 * block on the new chain BCH"); BTC's 478559 is the fork block in MMGen's Bitcoin protocol
 * parameters (mmgen/proto/btc/params.py) and the parent of 478560 in published header chains.
 */
export const SPLIT_HEIGHT = 478_559;
const BITCOIN_AT_SPLIT = '00000000000000000019f112ec0a9982926f1258cdcc558dd7c3b7e5dc7fa148';
const BITCOINCASH_AT_SPLIT = '000000000000000000651ef99cb9fcbe0dadde1d424bd9f15ff20136191a5eec';
export const BSV_SPLIT_HEIGHT = 556_767;
const BITCOINCASH_AT_BSV_SPLIT = '0000000000000000004626ff6e3b936941d341c5932ece4357eeccac44e6d56c';

const NAMES: Readonly<Record<UtxoChainId, string>> = {
  bitcoin: 'Bitcoin',
  bitcoincash: 'Bitcoin Cash',
  dogecoin: 'Dogecoin',
};

/** What `getblockchaininfo` says that the network check and the head use. */
export interface ChainInfo {
  /** The network it names (`main`, `test`, `regtest`), when it is a short word. */
  chain: string | undefined;
  /** The height of its best block (what `getblockcount` answers). */
  blocks: bigint;
}

/** Reads `getblockchaininfo`'s `chain` and `blocks`; a node without a block height there is malformed. */
export async function chainInfo(rpc: BitcoinRpc): Promise<ChainInfo> {
  const info = await rpc.call<unknown>('getblockchaininfo');
  const { chain, blocks } = (typeof info === 'object' && info !== null ? info : {}) as {
    chain?: unknown;
    blocks?: unknown;
  };
  if (typeof blocks !== 'number' || !Number.isSafeInteger(blocks) || blocks < 0) {
    throw new MalformedNodeAnswer('getblockchaininfo has no block height (blocks)');
  }
  // Only a short word is repeated in a sentence meant for a person.
  return {
    chain: typeof chain === 'string' && /^[a-z0-9_-]{1,20}$/i.test(chain) ? chain : undefined,
    blocks: BigInt(blocks),
  };
}

/**
 * Undefined when the node follows `chain` on `network`, else a sentence saying why not, for
 * `GET /v2/sync` (no URL in it). Before writing anything for a chain, the follower asks this.
 * `info` is the node's `getblockchaininfo` (chainInfo), which a turn reads once for this and the head.
 *
 * mainnet: the node's block 0 must be the chain's genesis. Bitcoin and Bitcoin Cash share it, so
 * their block at `SPLIT_HEIGHT` tells them apart (and, for Bitcoin Cash, the block at
 * `BSV_SPLIT_HEIGHT` tells it from Bitcoin SV). A node that has not yet reached a split height is
 * accepted: every block it has is the same on both sides of the split, so whatever is written
 * from it is right for either chain. The follower asks again every turn, so once the node is past
 * the split a node of the other chain is refused. The hashes are asked for in one JSON-RPC batch.
 *
 * regtest: the node must say it is on regtest (`getblockchaininfo().chain`).
 */
export async function networkMismatch(
  rpc: BitcoinRpc,
  chain: UtxoChainId,
  network: UtxoNetwork,
  info: Promise<ChainInfo> = chainInfo(rpc),
): Promise<string | undefined> {
  const name = NAMES[chain];
  const setting = `NETWORK_${chain.toUpperCase()}`;
  const { chain: reported, blocks } = await info;

  if (network === 'regtest') {
    if (reported === 'regtest') return undefined;
    return `${setting} is regtest, but the node says it is on ${reported === undefined ? 'another network' : `"${reported}"`}`;
  }

  // The heights the node has of those that tell the chains apart: a split it has not reached yet
  // cannot be asked for (getblockhash above the tip is an error), and needs no answer.
  const splits = chain === 'dogecoin' ? [] : chain === 'bitcoin' ? [SPLIT_HEIGHT] : [SPLIT_HEIGHT, BSV_SPLIT_HEIGHT];
  const heights = [0, ...splits.filter((height) => BigInt(height) <= blocks)];
  const hashes = await rpc.batch<unknown>(heights.map((height) => ({ method: 'getblockhash', params: [height] })));
  const hashAt = (height: number): unknown => hashes[heights.indexOf(height)];

  const expectedGenesis = chain === 'dogecoin' ? DOGECOIN_GENESIS : BITCOIN_GENESIS;
  if (hashAt(0) !== expectedGenesis) {
    const on = reported === undefined ? '' : ` (the node says it is on "${reported}")`;
    return `${setting} is mainnet, but the node's genesis block is not ${name}'s mainnet genesis${on}`;
  }
  if (chain === 'dogecoin') return undefined;

  const atSplit = hashAt(SPLIT_HEIGHT);
  if (atSplit === undefined) return undefined;
  if (chain === 'bitcoin') {
    if (atSplit === BITCOIN_AT_SPLIT) return undefined;
    const other =
      atSplit === BITCOINCASH_AT_SPLIT ? 'follows Bitcoin Cash (or a chain split from it)' : 'is on another chain';
    return `the node ${other}: its block ${SPLIT_HEIGHT} is not Bitcoin's`;
  }
  if (atSplit !== BITCOINCASH_AT_SPLIT) {
    const other = atSplit === BITCOIN_AT_SPLIT ? 'follows Bitcoin' : 'is on another chain';
    return `the node ${other}: its block ${SPLIT_HEIGHT} is not Bitcoin Cash's`;
  }
  const atBsvSplit = hashAt(BSV_SPLIT_HEIGHT);
  if (atBsvSplit === undefined || atBsvSplit === BITCOINCASH_AT_BSV_SPLIT) return undefined;
  return `the node follows another chain (Bitcoin SV?): its block ${BSV_SPLIT_HEIGHT} is not Bitcoin Cash's`;
}
