/** The dataset's tags, which the benchmark loads through the API (NDJSON cannot carry them). */
import { MAX_TAGS_PER_ADDRESS } from '../../src/core/tags/tag-rules';
import type { Random } from '../lib/random';
import type { Population } from './addresses';
import type { TagPlan } from './meta';
import { BENCH_ACCOUNTS, BIG_TAG_SIZE, DatasetOptions } from './options';

/**
 * `tags` tags shared out over BENCH_ACCOUNTS. Within an account tag sizes fall off as
 * BIG_TAG_SIZE / rank^1.2 (at least 5): one tag of 10k addresses, a few of some thousands, most of
 * tens. Nine in ten tags are watch lists of ordinary addresses, drawn uniformly; one in ten lists
 * busy addresses (exchanges, bridges, market makers), drawn by activity, so it holds the heaviest
 * ones. The largest tag of each account is a watch list. No address gets more than
 * MAX_TAGS_PER_ADDRESS tags in one account.
 */
export function planTags(
  random: Random,
  options: DatasetOptions,
  population: Population,
  activeAddress: () => number,
): TagPlan[] {
  const plans: TagPlan[] = [];
  const biggest = Math.min(BIG_TAG_SIZE, Math.floor(population.canonical.length / 2));
  BENCH_ACCOUNTS.forEach((account, accountIndex) => {
    const count =
      Math.floor(options.tags / BENCH_ACCOUNTS.length) + (accountIndex < options.tags % BENCH_ACCOUNTS.length ? 1 : 0);
    const tagsPerAddress = new Map<number, number>();
    for (let rank = 0; rank < count; rank += 1) {
      const size = Math.max(5, Math.round(biggest / (rank + 1) ** 1.2));
      const busy = rank > 0 && random.chance(0.1);
      const members = new Set<number>();
      for (let attempt = 0; members.size < size && attempt < size * 20; attempt += 1) {
        const index = busy ? activeAddress() : random.below(population.canonical.length);
        if (members.has(index) || (tagsPerAddress.get(index) ?? 0) >= MAX_TAGS_PER_ADDRESS) continue;
        members.add(index);
      }
      for (const index of members) tagsPerAddress.set(index, (tagsPerAddress.get(index) ?? 0) + 1);
      plans.push({
        account,
        name: `${account}_tag_${String(rank).padStart(4, '0')}`,
        addresses: [...members].map((index) => population.spelling[index]!),
      });
    }
  });
  return plans;
}
