import { parseTokenAddress } from '../../../core/addresses/token-address';
import { fullMoveAddress } from '../move-address';
import { changedBalances, pairNetChanges, type NetChange } from '../net-changes';
import { NATIVE, TouchedSet, type HoldingKey, type ObservedTransfer } from '../reading';

/** SUI's coin type, written in full as the node writes coin types. */
export const SUI_COIN_TYPE = `0x${'2'.padStart(64, '0')}::sui::SUI`;

/** Where a burn sends a coin: the zero address, as the EVM followers record burns. */
export const BURNED = `0x${'0'.repeat(64)}`;

/** The parts of an `ExecutedTransaction` the reader needs (the gRPC API's, with the read mask the source asks). */
export interface SuiTransaction {
  digest?: string;
  transaction?: { sender?: string; gasPayment?: { owner?: string } };
  effects?: {
    status?: { success?: boolean };
    gasUsed?: { computationCost?: bigint; storageCost?: bigint; storageRebate?: bigint };
  };
  balanceChanges: readonly { address?: string; coinType?: string; amount?: string }[];
}

export interface CheckpointOf {
  sequence: bigint;
  digest: string;
  time: string;
}

/** A Sui address written in full: `0x` and 64 lowercase hex digits. */
export function suiAddress(raw: unknown): string {
  return fullMoveAddress(raw, 'the Sui node');
}

/** A coin type as records write it: `0` for SUI, else the type with its address in full. */
export function coinToken(raw: unknown): string {
  const parsed = typeof raw === 'string' ? parseTokenAddress('sui', raw) : undefined;
  if (parsed === undefined || !parsed.ok || !parsed.canonical.includes('::'))
    throw new Error(`the Sui node gave a coin type that is not one: ${String(raw).slice(0, 120)}`);
  return parsed.canonical === SUI_COIN_TYPE ? NATIVE : parsed.canonical;
}

/**
 * A transaction's transfers that touch a followed address, and the balances it may have changed.
 *
 * A Sui transaction's effects say how each address's balance of each coin type changed, net, gas
 * included, not who paid whom. The gas (computation and storage, less the storage rebate) is taken
 * back out of its payer's SUI change first, so it is no transfer; then the changes become
 * transfers by `pairNetChanges` (senders paired with receivers in the order the changes name them,
 * the rest a mint from `0` or a burn to `BURNED`). Ids are `sui:<transaction digest>:<n>`, n
 * counting every pair of the transaction, followed or not. A failed transaction moves nothing but
 * its gas; the SUI of its sender and gas payer is touched by every transaction either way.
 */
export function readTransaction(
  tx: SuiTransaction,
  at: CheckpointOf,
  followed: ReadonlySet<string>,
): { transfers: ObservedTransfer[]; touched: HoldingKey[] } {
  const touched = new TouchedSet();
  const transfers: ObservedTransfer[] = [];
  const digest = tx.digest;
  if (digest === undefined) throw new Error(`a transaction of checkpoint ${at.sequence} has no digest`);
  const sender = tx.transaction?.sender === undefined ? undefined : suiAddress(tx.transaction.sender);
  const payer = tx.transaction?.gasPayment?.owner === undefined ? sender : suiAddress(tx.transaction.gasPayment.owner);
  for (const address of [sender, payer])
    if (address !== undefined && followed.has(address)) touched.add(address, NATIVE);
  if (tx.effects?.status?.success === false) return { transfers, touched: touched.list() };

  const changes: NetChange[] = tx.balanceChanges.map((change) => ({
    owner: suiAddress(change.address),
    token: coinToken(change.coinType),
    amount: signedAmount(change.amount),
  }));
  const gas = tx.effects?.gasUsed;
  const charged = (gas?.computationCost ?? 0n) + (gas?.storageCost ?? 0n) - (gas?.storageRebate ?? 0n);
  if (payer !== undefined && charged !== 0n) changes.push({ owner: payer, token: NATIVE, amount: charged });
  for (const { owner, token } of changedBalances(changes)) if (followed.has(owner)) touched.add(owner, token);
  pairNetChanges(changes, BURNED).forEach((pair, n) => {
    if (!followed.has(pair.from) && !followed.has(pair.to)) return;
    transfers.push({
      id: `sui:${digest}:${n}`,
      chain: 'sui',
      token_address: pair.token,
      from_address: pair.from,
      to_address: pair.to,
      value: pair.value.toString(),
      tx_hash: digest,
      block_number: at.sequence.toString(),
      block_hash: at.digest,
      block_time: at.time,
    });
  });
  return { transfers, touched: touched.list() };
}

function signedAmount(raw: unknown): bigint {
  if (typeof raw !== 'string' || !/^-?\d{1,40}$/.test(raw))
    throw new Error(`the Sui node gave an amount that is not a number: ${String(raw).slice(0, 40)}`);
  return BigInt(raw);
}
