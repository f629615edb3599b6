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
  if (typeof raw !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(raw))
    throw new Error(`the Aptos API gave an address that is not one: ${String(raw).slice(0, 80)}`);
  return `0x${raw.slice(2).toLowerCase().padStart(64, '0')}`;
}

/** One side of a movement: an owner's asset going out (`-`) or coming in. */
interface Movement {
  owner: string;
  asset: string;
  amount: bigint;
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
 * fungible assets are not read). For each asset, each owner's movements are summed; owners whose
 * sum is negative sent, those whose sum is positive received, and senders are paired with
 * receivers in the order the events first name them (each pair a transfer of what the one still
 * has to send and the other to receive). A receiver with nothing left to pair received a mint
 * (from `0`), a sender a burn (to `BURNED`). A simple transfer is one pair; a payment to several
 * is a transfer to each; what goes out and comes back to the same owner (between its own stores)
 * moves nothing. Ids are `aptos:<transaction hash>:<n>`, n counting every pair of the transaction
 * whether followed or not, so an id never depends on which addresses are followed.
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

  // Each asset's owners in the order the events first name them, with the sum of their movements.
  const sums = new Map<string, Map<string, bigint>>();
  for (const movement of movementsOf(tx, stores)) {
    const owners = sums.get(movement.asset) ?? new Map<string, bigint>();
    owners.set(movement.owner, (owners.get(movement.owner) ?? 0n) + movement.amount);
    sums.set(movement.asset, owners);
  }
  let n = 0;
  for (const [asset, owners] of sums) {
    const token = asset === APT_METADATA ? NATIVE : asset;
    const senders = [...owners].filter(([, sum]) => sum < 0n).map(([owner, sum]) => ({ owner, left: -sum }));
    const receivers = [...owners].filter(([, sum]) => sum > 0n).map(([owner, sum]) => ({ owner, left: sum }));
    for (const [owner, sum] of owners) if (sum !== 0n && followed.has(owner)) touched.add(owner, token);
    const record = (from: string, to: string, value: bigint): void => {
      const id = `aptos:${tx.hash.toLowerCase()}:${n++}`;
      if (!followed.has(from) && !followed.has(to)) return;
      transfers.push({
        id,
        chain: 'aptos',
        token_address: token,
        from_address: from,
        to_address: to,
        value: value.toString(),
        tx_hash: tx.hash.toLowerCase(),
        block_number: at.height.toString(),
        block_hash: at.hash,
        block_time: at.time,
      });
    };
    let next = 0;
    for (const receiver of receivers) {
      while (receiver.left > 0n && next < senders.length) {
        const sender = senders[next]!;
        const value = sender.left < receiver.left ? sender.left : receiver.left;
        record(sender.owner, receiver.owner, value);
        sender.left -= value;
        receiver.left -= value;
        if (sender.left === 0n) next++;
      }
      if (receiver.left > 0n) record(NATIVE, receiver.owner, receiver.left);
    }
    for (const sender of senders.slice(next)) if (sender.left > 0n) record(sender.owner, BURNED, sender.left);
  }
  return { transfers, touched: touched.list() };
}

/** The transaction's movements of assets, in event order: withdrawals negative. */
function movementsOf(tx: TransactionJson, stores: ReadonlyMap<string, StoreFacts>): Movement[] {
  const movements: Movement[] = [];
  for (const event of tx.events ?? []) {
    const sign = event.type === FA_DEPOSIT || event.type === COIN_DEPOSIT ? 1n : -1n;
    if (event.type === FA_DEPOSIT || event.type === FA_WITHDRAW) {
      const store = fullAddress(event.data.store);
      const facts = stores.get(store);
      if (facts === undefined) throw new Error(`the owner of store ${store} (transaction ${tx.version}) is not known`);
      movements.push({ owner: facts.owner, asset: facts.asset, amount: sign * amountOf(event.data.amount) });
    } else if (event.type === COIN_DEPOSIT || event.type === COIN_WITHDRAW) {
      if (event.data.coin_type !== APT_COIN_TYPE) continue;
      movements.push({
        owner: fullAddress(event.data.account),
        asset: APT_METADATA,
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
