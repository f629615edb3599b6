import type { KeptAggregate } from './kept-aggregate';
import { addressPairs } from './tables/address-pairs';
import { addressStats } from './tables/address-stats';
import { tagBalances } from './tables/tag-balances';
import { tagHoldings } from './tables/tag-holdings';
import { tagStats } from './tables/tag-stats';
import { tokenHolders } from './tables/token-holders';
import { trackedTagged } from './tables/tracked-tagged';

/**
 * Every kept aggregate, in lock order: each writer takes (or writes) these tables' rows in this
 * order, each table's rows in key order (binaryOrder for text keys); a membership change holds its
 * addresses' address_stats rows (shared), then their tracked_addresses rows, then the tag's. Data
 * writes, membership changes, `stats verify` and the tests iterate over this list; a new aggregate
 * is a file in tables/, an entry here where its rows are locked, a migration, and its reader.
 */
export const KEPT_AGGREGATES: readonly KeptAggregate[] = [
  addressStats,
  addressPairs,
  trackedTagged,
  tagStats,
  tagBalances,
  tagHoldings,
  tokenHolders,
];
