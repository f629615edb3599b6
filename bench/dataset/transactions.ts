/** The dataset's transactions rows. */
import { CHAIN_IDS, ChainId } from '../../src/core/chains/chain-ids';
import { syntheticTxHash } from '../../scripts/lib/tx-hash';
import type { Random } from '../lib/random';
import type { Population } from './addresses';
import { busyOn, chainPicker } from './draws';
import type { DatasetOutput } from './output';
import { amount, Deployment, drawDeployment } from './tokens';
import { SPAN_MS, START } from './year';

/**
 * Each chain's block height at the start of the dataset's year, so block numbers look like that
 * chain's; a chain not listed starts at 1,000,000.
 */
const BLOCK_HEIGHT: Partial<Record<ChainId, number>> = {
  bitcoin: 880_000,
  ethereum: 21_500_000,
  bnb: 45_000_000,
  solana: 310_000_000,
  dogecoin: 5_500_000,
  bitcoincash: 880_000,
  ton: 44_000_000,
  polygon: 66_000_000,
  arbitrum: 290_000_000,
  optimism: 130_000_000,
  base: 24_500_000,
  sui: 95_000_000,
  aptos: 250_000_000,
};

/**
 * Transactions in block-time order over one year, each between two addresses drawn by activity on
 * its chain. One in ten shares the hash of the chain's previous transfer (several transfers in one
 * transaction, ids `<hash>:<n>`); one in fifty native transfers is a mint with sender `0`. Answers
 * each address's number of transactions.
 */
export function writeTransactions(
  random: Random,
  count: number,
  population: Population,
  byChain: Map<ChainId, Deployment[]>,
  out: DatasetOutput,
): Int32Array {
  const perAddress = new Int32Array(population.canonical.length);
  const height = new Map(CHAIN_IDS.map((chain) => [chain, BLOCK_HEIGHT[chain] ?? 1_000_000]));
  const previous = new Map<ChainId, { hash: string; blockHash: string; index: number }>();
  for (let index = 0; index < count; index += 1) {
    const chain = chainPicker(random);
    const from = busyOn(random, population, chain);
    const to = busyOn(random, population, chain);
    const deployment = drawDeployment(random, byChain.get(chain)!, 0.65);
    const minted = deployment.address === '0' && random.chance(0.02);
    const last = previous.get(chain);
    let hash: string;
    let blockHash: string;
    let logIndex: number;
    if (last !== undefined && random.chance(0.1)) {
      hash = last.hash;
      blockHash = last.blockHash;
      logIndex = last.index + 1;
    } else {
      height.set(chain, height.get(chain)! + 1 + random.below(3));
      hash = syntheticTxHash(chain, random);
      blockHash = syntheticTxHash(chain, random);
      logIndex = 0;
    }
    previous.set(chain, { hash, blockHash, index: logIndex });
    const id = `${hash}:${logIndex}`;
    const blockNumber = String(height.get(chain));
    const blockTime = new Date(START + Math.floor((index * SPAN_MS) / count) + random.below(1000)).toISOString();
    const value = amount(random, deployment.decimals, 4);
    out.line('transaction', {
      type: 'transaction',
      id,
      chain,
      token_address: deployment.address,
      from_address: minted ? '0' : population.spelling[from],
      to_address: population.spelling[to],
      value,
      tx_hash: hash,
      block_number: blockNumber,
      block_hash: blockHash,
      block_time: blockTime,
    });
    out.row('transactions', [
      id,
      chain,
      deployment.address,
      minted ? '0' : population.canonical[from]!,
      population.canonical[to]!,
      value,
      hash,
      blockNumber,
      blockHash,
      blockTime,
    ]);
    if (!minted) perAddress[from] = perAddress[from]! + 1;
    if (minted || to !== from) perAddress[to] = perAddress[to]! + 1;
  }
  return perAddress;
}
