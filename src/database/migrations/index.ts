import { Foundation1763700000000 } from './1763700000000-foundation';
import { Tags1763700000001 } from './1763700000001-tags';
import { Data1763700000002 } from './1763700000002-data';
import { TransactionPaging1763700000003 } from './1763700000003-transaction-paging';
import { StatsIndexes1763700000010 } from './1763700000010-stats-indexes';
import { StatsRevisions1763700000011 } from './1763700000011-stats-revisions';
import { PricePoller1763700000020 } from './1763700000020-price-poller';
import { ChainRegistry1763700000021 } from './1763700000021-chain-registry';
import { KeptAggregates1763700000030 } from './1763700000030-kept-aggregates';
import { Followers1763700000040 } from './1763700000040-followers';
import { AddressStatsFillfactor1763700000050 } from './1763700000050-address-stats-fillfactor';
import { TagHistory1763700000060 } from './1763700000060-tag-history';
import { UtxoOutputs1763700000070 } from './1763700000070-utxo-outputs';
import { Webhooks1763700000080 } from './1763700000080-webhooks';
import { JettonWallets1763700000090 } from './1763700000090-jetton-wallets';
import { TagHoldings1763700000100 } from './1763700000100-tag-holdings';
import { TransactionPairs1763700000110 } from './1763700000110-transaction-pairs';
import { SenderCounterparties1763700000120 } from './1763700000120-sender-counterparties';
import { TagHoldingsUnchecked1763700000130 } from './1763700000130-tag-holdings-unchecked';
import { TrackedOrder1763700000140 } from './1763700000140-tracked-order';
import { TrackedTagged1763700000150 } from './1763700000150-tracked-tagged';
import { MembershipWrites1763700000160 } from './1763700000160-membership-writes';
import { SenderPairs1763700000170 } from './1763700000170-sender-pairs';
import { AddressPairs1763700000180 } from './1763700000180-address-pairs';
import { AddressVersions1763700000190 } from './1763700000190-address-versions';
import { WebhookIdempotencyKeys1763700000200 } from './1763700000200-webhook-idempotency-keys';
import { FailedDeliveries1763700000210 } from './1763700000210-failed-deliveries';
import { ReadOnlyKeys1763700000220 } from './1763700000220-read-only-keys';
import { KeyExpiry1763700000230 } from './1763700000230-key-expiry';
import { TagDescriptions1763700000240 } from './1763700000240-tag-descriptions';
import { PriceMisses1763700000250 } from './1763700000250-price-misses';
import { BackfillAddressCount1763700000260 } from './1763700000260-backfill-address-count';
import { WebhookMinimumValue1763700000270 } from './1763700000270-webhook-minimum-value';
import { KeyLastUsed1763700000280 } from './1763700000280-key-last-used';
import { WebhookTokens1763700000290 } from './1763700000290-webhook-tokens';

/** Every migration, oldest first. */
export const MIGRATIONS = [
  Foundation1763700000000,
  Tags1763700000001,
  Data1763700000002,
  TransactionPaging1763700000003,
  StatsIndexes1763700000010,
  StatsRevisions1763700000011,
  PricePoller1763700000020,
  ChainRegistry1763700000021,
  KeptAggregates1763700000030,
  Followers1763700000040,
  AddressStatsFillfactor1763700000050,
  TagHistory1763700000060,
  UtxoOutputs1763700000070,
  Webhooks1763700000080,
  JettonWallets1763700000090,
  TagHoldings1763700000100,
  TransactionPairs1763700000110,
  SenderCounterparties1763700000120,
  TagHoldingsUnchecked1763700000130,
  TrackedOrder1763700000140,
  TrackedTagged1763700000150,
  MembershipWrites1763700000160,
  SenderPairs1763700000170,
  AddressPairs1763700000180,
  AddressVersions1763700000190,
  WebhookIdempotencyKeys1763700000200,
  FailedDeliveries1763700000210,
  ReadOnlyKeys1763700000220,
  KeyExpiry1763700000230,
  TagDescriptions1763700000240,
  PriceMisses1763700000250,
  BackfillAddressCount1763700000260,
  WebhookMinimumValue1763700000270,
  KeyLastUsed1763700000280,
  WebhookTokens1763700000290,
];
