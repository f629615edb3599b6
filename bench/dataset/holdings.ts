/** The dataset's holdings rows. */
import { ChainId } from '../../src/core/chains/chain-ids';
import type { Random } from '../lib/random';
import { chainsOf, Population } from './addresses';
import type { DatasetOutput } from './output';
import { amount, Deployment, drawDeployment } from './tokens';
import { DAY_MS, SPAN_MS, START } from './year';

/**
 * Holdings: three in four go to a uniformly drawn address (so nearly every address holds
 * something), one in four to a busy one. One in twenty balances is zero, as an emptied wallet
 * leaves behind; chaintags stores those and lists none of them.
 */
export function writeHoldings(
  random: Random,
  count: number,
  population: Population,
  byChain: Map<ChainId, Deployment[]>,
  activeAddress: () => number,
  out: DatasetOutput,
): void {
  const taken = new Set<string>();
  let written = 0;
  for (let attempt = 0; written < count && attempt < count * 4; attempt += 1) {
    const index = random.chance(0.75) ? random.below(population.canonical.length) : activeAddress();
    const chain = random.pick(chainsOf(population.family[index]!));
    const deployment = drawDeployment(random, byChain.get(chain)!, 0.5);
    const key = `${index} ${chain} ${deployment.address}`;
    if (taken.has(key)) continue;
    taken.add(key);
    const balance = random.chance(0.05) ? '0' : amount(random, deployment.decimals, 6);
    const updatedAt = new Date(START + SPAN_MS - random.below(30 * DAY_MS)).toISOString();
    out.line('holding', {
      type: 'holding',
      chain,
      address: population.spelling[index],
      token_address: deployment.address,
      balance,
      updated_at: updatedAt,
    });
    out.row('holdings', [chain, deployment.address, population.canonical[index]!, balance, updatedAt]);
    written += 1;
  }
  if (written < count) throw new Error(`only ${written} distinct holdings fit; use more addresses`);
}
