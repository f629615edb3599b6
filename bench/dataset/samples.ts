/** What the benchmark asks for (its request keys), and the skew the transactions came out with. */
import type { Random } from '../lib/random';
import type { Population } from './addresses';
import type { DatasetMeta, TagPlan } from './meta';
import { BENCH_ACCOUNTS } from './options';

/**
 * Request keys. Addresses: nine in ten drawn uniformly from the addresses that have data and one
 * in ten by activity, so the busiest addresses get the share of traffic they would in practice.
 * Tags: every tag of the first account, in random order.
 */
export function drawSamples(
  random: Random,
  population: Population,
  perAddress: Int32Array,
  activeAddress: () => number,
  tags: TagPlan[],
): DatasetMeta['samples'] {
  const active: number[] = [];
  perAddress.forEach((count, index) => {
    if (count > 0) active.push(index);
  });
  const addresses: string[] = [];
  for (let index = 0; index < 1000; index += 1) {
    const chosen = random.chance(0.9) ? random.pick(active) : activeAddress();
    addresses.push(population.spelling[chosen]!);
  }
  const own = tags.filter((tag) => tag.account === BENCH_ACCOUNTS[0]);
  return {
    addresses,
    tags: random.shuffle(own.map((tag) => tag.name)),
    bigTag: own[0]!.name,
  };
}

export function skewOf(perAddress: Int32Array): DatasetMeta['skew'] {
  const counts = [...perAddress].filter((count) => count > 0).sort((a, b) => a - b);
  return {
    maxTransactionsPerAddress: counts[counts.length - 1] ?? 0,
    addressesWith10kPlus: counts.filter((count) => count >= 10_000).length,
    addressesWith1kPlus: counts.filter((count) => count >= 1_000).length,
    medianTransactionsPerActiveAddress: counts[Math.floor(counts.length / 2)] ?? 0,
    activeAddresses: counts.length,
  };
}
