/**
 * The kept aggregates' door: what other modules may use of src/modules/aggregates/ (README.md
 * there has the tables, the lock protocol and why they stay exact). Functions over the writer's
 * own transaction, so no Nest provider: the sink and a rewind use AggregateWrite, tag changes
 * readMembersPart/addMembers/applyMembersPart, `stats verify` findDrift/rebuildAggregates.
 */
export { AggregateWrite } from './data-write';
export { dataWriteTables, findDrift, keptTables, rebuildAggregates, type Drift } from './drift';
export type { HoldingChange, TransferChange, TransferEnds } from './kept-aggregate';
export {
  addMembers,
  applyMembersPart,
  busyAddresses,
  deleteTagAggregates,
  lockForMembershipChange,
  lockForRename,
  quietReads,
  readMembersPart,
  shareAddresses,
  type MembersPart,
} from './membership';
export { pairedAddresses } from './tables/address-pairs';
export { shareAddressRowsOf } from './tables/address-stats';
export { createTagStats } from './tables/tag-stats';
export { flagFirstTags, lockTrackedRows, lockTrackedSet } from './tables/tracked-tagged';
