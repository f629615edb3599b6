import type { Sql } from '../../../database/db.service';
import { inTexts, textRows } from '../../../database/dialect';
import { addressChunks, chunks, sql } from '../../../database/sql';
import { binaryOrder } from '../../../core/text/binary-order';
import { signedEnds } from '../changes';
import type { DataDelta, KeptAggregate, TransferEnds, WriteRound } from '../kept-aggregate';

/**
 * When an address is paired: a data write that takes its kept txn_count above `above` pairs it.
 * Only the cost of a tag change depends on it (membership.ts counts a pair of paired addresses from
 * address_pairs, any other from the transactions); the property tests pair every address, some,
 * and none.
 */
export const pairedAddresses = { above: 2_000 };

/**
 * address_pairs (from_address, to_address): the transactions from one paired address to another
 * (not to itself), for every ordered pair of paired_addresses that has any. An address stays
 * paired once paired, whatever its count does later. A pair's row is added to only by a data write
 * that holds both ends' address_stats rows, and created by the pairing of one end, which holds that
 * end's row; the transactions it counts are between that end and the other, which no write changes
 * without that row. So a tag change that share-locks either end reads a count that stays exact
 * (membership.ts).
 */
export const addressPairs: KeptAggregate = {
  table: 'address_pairs',
  key: ['from_address', 'to_address'],
  kept: () => sql`SELECT from_address, to_address, n FROM address_pairs WHERE n <> 0`,
  reference: () => sql`SELECT t.from_address, t.to_address, COUNT(*) AS n FROM transactions t
      WHERE t.from_address <> t.to_address
        AND t.from_address IN (SELECT address FROM paired_addresses)
        AND t.to_address IN (SELECT address FROM paired_addresses)
      GROUP BY t.from_address, t.to_address`,
  dataWrite: () => new AddressPairsDelta(),
};

/** PostgreSQL's advisory lock that orders pairings (one key, as for the data writers' lock). */
const PAIRING_LOCK = 7_211_003;

/**
 * In each round, after address_stats' delta has locked the changed addresses' rows (and handed on
 * their counts): pairs those that went above the threshold, then adds the round's transfers
 * between two addresses that were paired before it.
 */
class AddressPairsDelta implements DataDelta {
  async round(tx: Sql, round: WriteRound): Promise<void> {
    const ends = new Set<string>();
    for (const change of round.transfers) {
      for (const [transfer] of signedEnds(change)) {
        if (transfer.from_address === transfer.to_address) continue;
        ends.add(transfer.from_address);
        ends.add(transfer.to_address);
      }
    }
    if (ends.size === 0) return;
    const { paired, crossing } = await pairingOf(tx, ends, round.overPairing);
    // A newly paired address's pairs are counted from its transactions, this round's included.
    if (crossing.length > 0) await pair(tx, crossing);
    if (paired.size < 2) return;
    const moved = new Map<string, { ends: TransferEnds; n: number }>();
    for (const change of round.transfers) {
      for (const [transfer, step] of signedEnds(change)) {
        const { from_address: from, to_address: to } = transfer;
        if (from === to || !paired.has(from) || !paired.has(to)) continue;
        const key = `${from} ${to}`;
        const entry = moved.get(key) ?? { ends: transfer, n: 0 };
        entry.n += step;
        moved.set(key, entry);
      }
    }
    const rows = [...moved.values()]
      .filter((entry) => entry.n !== 0)
      .sort(
        (a, b) =>
          binaryOrder(a.ends.from_address, b.ends.from_address) || binaryOrder(a.ends.to_address, b.ends.to_address),
      );
    for (const chunk of chunks(rows)) {
      await tx.execute(
        sql`INSERT INTO address_pairs (from_address, to_address, n)
            ${textRows(
              tx.dialect,
              [
                chunk.map((row) => row.ends.from_address),
                chunk.map((row) => row.ends.to_address),
                chunk.map((row) => row.n),
              ],
              ['text', 'text', 'bigint'],
            )}
            ON CONFLICT (from_address, to_address) DO UPDATE SET n = address_pairs.n + excluded.n`,
      );
    }
  }

  async finish(): Promise<void> {}
}

/**
 * Of the addresses (locked by this transaction): those paired already, and those whose kept count
 * the round took above the threshold and are not (in binary order). The paired set is read whole
 * (967 addresses at 10M transactions), after this round's rows are locked: a pairing committed by
 * another write since an earlier round must count here.
 */
async function pairingOf(
  tx: Sql,
  ends: ReadonlySet<string>,
  overPairing: ReadonlyMap<string, number>,
): Promise<{ paired: Set<string>; crossing: string[] }> {
  const found = await tx.query<{ address: string }>(sql`SELECT address FROM paired_addresses`);
  const paired = new Set(found.map((row) => row.address));
  const crossing = [...ends].filter((address) => !paired.has(address) && overPairing.has(address)).sort(binaryOrder);
  return { paired, crossing };
}

/**
 * Pairs the addresses (in binary order), a chunk after another, as if one write paired each chunk:
 * a chunk's rows are its transactions to every address paired by then (itself included), and
 * those it received from one paired before it. So a pair is counted once, by whichever of its two
 * ends was paired last. On PostgreSQL the pairings take a lock until the commit: two writes pairing
 * at once would each miss the other's address, which neither sees as paired before it commits.
 * Live writers run again when that lock closes a deadlock (Db.transaction); a file import runs
 * alone among data writers (IngestRepository.lockDataWriters).
 */
async function pair(tx: Sql, ordered: readonly string[]): Promise<void> {
  if (tx.dialect === 'postgres') await tx.query(sql`SELECT pg_advisory_xact_lock(${PAIRING_LOCK}::bigint)`);
  for (const chunk of addressChunks(ordered)) {
    const these = inTexts(tx.dialect, chunk);
    await tx.execute(sql`INSERT INTO paired_addresses (address) ${textRows(tx.dialect, [chunk], ['text'])}`);
    await tx.execute(
      sql`INSERT INTO address_pairs (from_address, to_address, n)
          SELECT t.from_address, t.to_address, COUNT(*) FROM transactions t
          WHERE t.from_address ${these} AND t.to_address <> t.from_address
            AND t.to_address IN (SELECT address FROM paired_addresses)
          GROUP BY t.from_address, t.to_address`,
    );
    await tx.execute(
      sql`INSERT INTO address_pairs (from_address, to_address, n)
          SELECT t.from_address, t.to_address, COUNT(*) FROM transactions t
          WHERE t.to_address ${these} AND NOT (t.from_address ${these})
            AND t.from_address IN (SELECT address FROM paired_addresses)
          GROUP BY t.from_address, t.to_address`,
    );
  }
}

/** Those of the addresses that are paired. */
export async function pairedAmong(tx: Sql, addresses: readonly string[]): Promise<Set<string>> {
  const paired = new Set<string>();
  for (const chunk of addressChunks(addresses)) {
    const found = await tx.query<{ address: string }>(
      sql`SELECT address FROM paired_addresses WHERE address ${inTexts(tx.dialect, chunk)}`,
    );
    for (const row of found) paired.add(row.address);
  }
  return paired;
}
