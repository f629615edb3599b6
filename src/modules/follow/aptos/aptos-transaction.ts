import { fullMoveAddress } from '../move-address';
import { changedBalances, pairNetChanges, type NetChange } from '../net-changes';
import { NATIVE, TouchedSet, type HoldingKey, type ObservedTransfer } from '../reading';
import {
  APT_COIN_TYPE,
  APT_METADATA,
  COIN_DEPOSIT,
  COIN_WITHDRAW,
  FA_DEPOSIT,
  FA_WITHDRAW,
  FUNGIBLE_STORE,
  OBJECT_CORE,
  type TransactionJson,
} from './aptos-shapes';

/**
 * Where a burn sends an asset: the zero address, as the EVM followers record burns. A mint comes
 * from `0`, as on every chain.
 */
export const BURNED = `0x${'0'.repeat(64)}`;

/** Who owns a fungible store, and of which asset (its metadata address); both written in full. */
export interface StoreFacts {
  owner: string;
  asset: string;
}

/** The block a transaction is read in. */
export interface BlockOf {
  height: bigint;
  hash: string;
  time: string;
}

/** An address as the API writes it (`0xa`, any case) written in full: `0x` and 64 lowercase hex digits. */
export function fullAddress(raw: unknown): string {
  return fullMoveAddress(raw, 'the Aptos API');
}

/**
 * What a transaction's write set says of the fungible stores it wrote: each store's owner (its
 * `ObjectCore`) and asset (its `FungibleStore`'s metadata), where written.
 */
export function writtenStores(tx: TransactionJson): Map<string, Partial<StoreFacts>> {
  const stores = new Map<string, Partial<StoreFacts>>();
  for (const change of tx.changes ?? []) {
    if (change.type !== 'write_resource' || change.address === undefined || change.data === undefined) continue;
    const type = change.data.type;
    if (type !== OBJECT_CORE && type !== FUNGIBLE_STORE) continue;
    const store = fullAddress(change.address);
    const facts = stores.get(store) ?? {};
    if (type === OBJECT_CORE) facts.owner = fullAddress(change.data.data.owner);
    else facts.asset = fullAddress((change.data.data.metadata as { inner?: unknown } | undefined)?.inner);
    stores.set(store, facts);
  }
  return stores;
}

/** The stores a successful transaction's fungible asset events name: what `readTransaction` needs to know. */
export function storesMoved(tx: TransactionJson): string[] {
  if (!tx.success) return [];
  const stores = new Set<string>();
  for (const event of tx.events ?? [])
    if (event.type === FA_DEPOSIT || event.type === FA_WITHDRAW) stores.add(fullAddress(event.data.store));
  return [...stores];
}

/**
 * A transaction's transfers that touch a followed owner, and the balances it may have changed
 * (README "What is recorded").
 *
 * Aptos events say what left and entered each store, not who paid whom: a fungible asset's
 * `Withdraw` and `Deposit` name a store (whose owner and asset `stores` knows: the write set's
 * `ObjectCore` and `FungibleStore`, or the node's state before the transaction), and a coin's
 * `CoinWithdraw` and `CoinDeposit` name the account (APT only: other coins not yet migrated to
 * fungible assets are not read). The movements become transfers by `pairNetChanges`: summed per
 * owner and asset, senders paired with receivers in the order the events first name them, the rest
 * a mint from `0` or a burn to `BURNED` (an owner moving between its own stores moves nothing). Ids
 * are `aptos:<transaction hash>:<n>`, n counting every pair of the transaction whether followed or
 * not, so an id never depends on which addresses are followed.
 *
 * A failed transaction moves nothing but its gas; gas is never an event (it is burned), so the APT
 * balance of whoever pays it (the sender, or a sponsored transaction's fee payer) is touched by
 * every transaction.
 */
export function readTransaction(
  tx: TransactionJson,
  at: BlockOf,
  followed: ReadonlySet<string>,
  stores: ReadonlyMap<string, StoreFacts>,
): { transfers: ObservedTransfer[]; touched: HoldingKey[] } {
  const touched = new TouchedSet();
  const transfers: ObservedTransfer[] = [];
  // Whoever pays the gas: the sender, or a sponsored transaction's fee payer.
  for (const payer of [tx.sender, tx.signature?.fee_payer_address]) {
    if (payer === undefined) continue;
    const address = fullAddress(payer);
    if (followed.has(address)) touched.add(address, NATIVE);
  }
  if (!tx.success) return { transfers, touched: touched.list() };

  const movements = movementsOf(tx, stores);
  for (const { owner, token } of changedBalances(movements)) if (followed.has(owner)) touched.add(owner, token);
  pairNetChanges(movements, BURNED).forEach((pair, n) => {
    if (!followed.has(pair.from) && !followed.has(pair.to)) return;
    transfers.push({
      id: `aptos:${tx.hash.toLowerCase()}:${n}`,
      chain: 'aptos',
      token_address: pair.token,
      from_address: pair.from,
      to_address: pair.to,
      value: pair.value.toString(),
      tx_hash: tx.hash.toLowerCase(),
      block_number: at.height.toString(),
      block_hash: at.hash,
      block_time: at.time,
    });
  });
  return { transfers, touched: touched.list() };
}

/** The transaction's movements of assets, in event order: withdrawals negative, APT as the native coin. */
function movementsOf(tx: TransactionJson, stores: ReadonlyMap<string, StoreFacts>): NetChange[] {
  const movements: NetChange[] = [];
  const tokenOf = (asset: string): string => (asset === APT_METADATA ? NATIVE : asset);
  for (const event of tx.events ?? []) {
    const sign = event.type === FA_DEPOSIT || event.type === COIN_DEPOSIT ? 1n : -1n;
    if (event.type === FA_DEPOSIT || event.type === FA_WITHDRAW) {
      const store = fullAddress(event.data.store);
      const facts = stores.get(store);
      if (facts === undefined) throw new Error(`the owner of store ${store} (transaction ${tx.version}) is not known`);
      movements.push({ owner: facts.owner, token: tokenOf(facts.asset), amount: sign * amountOf(event.data.amount) });
    } else if (event.type === COIN_DEPOSIT || event.type === COIN_WITHDRAW) {
      if (event.data.coin_type !== APT_COIN_TYPE) continue;
      movements.push({
        owner: fullAddress(event.data.account),
        token: NATIVE,
        amount: sign * amountOf(event.data.amount),
      });
    }
  }
  return movements;
}

function amountOf(raw: unknown): bigint {
  if (typeof raw !== 'string' || !/^\d{1,20}$/.test(raw))
    throw new Error(`the Aptos API gave an amount that is not a u64: ${String(raw).slice(0, 40)}`);
  return BigInt(raw);
}
