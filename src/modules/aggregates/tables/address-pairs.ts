import type { Sql } from '../../../database/db.service';
import { chunks, list, rows, sql } from '../../../database/sql';
import { binaryOrder } from '../../../core/text/binary-order';
import { signedEnds } from '../changes';
import { shareAddressRows } from './address-stats';
import type { DataDelta, KeptAggregate, WriteRound } from '../kept-aggregate';

/**
 * paired_addresses (address): the addresses whose transactions are counted by counterparty in
 * address_pairs. An address is paired before it first joins a tag and stays paired (it may join
 * another tag later); every member of a tag is. Only that inclusion is checked: an address that
 * left every tag, or whose request failed after pairing it, may stay paired.
 */
export const pairedAddresses: KeptAggregate = {
  table: 'paired_addresses',
  key: ['address'],
  kept: () => sql`SELECT address FROM paired_addresses WHERE address IN (SELECT address FROM address_tags)`,
  reference: () => sql`SELECT DISTINCT address FROM address_tags`,
};

/**
 * address_pairs (address_a, address_b), address_a < address_b in binary order: the transactions
 * between the two (either direction), for every pair of paired addresses; rows at zero go.
 *
 * Why it is exact (see also the module's README):
 * - A pair's transactions change only through a data write, which holds both ends' address_stats
 *   rows (it updated them) while it reads whether both are paired and updates the pair. An
 *   address's paired flag changes only under a shared lock on its row, so it is stable there.
 * - A pairing, in a short transaction of its own, share-locks the newcomers' rows (no data write
 *   changes their transactions meanwhile) and counts their transactions by other end; then, under
 *   PAIRING_LOCK (one pairing at a time, so the paired set does not change meanwhile), reads again
 *   which are paired and inserts the pairs whose ends are both paired or pairing now. A pair whose other end is paired
 *   later is inserted by that later pairing, which finds this end paired.
 * - A data write that committed before the pairing is in what it counts; one that writes after it
 *   finds both ends paired and updates the pair itself. A data write that had already locked a
 *   newcomer's row in an earlier round holds it to its commit, so the pairing waits for all of it.
 */
export const addressPairs: KeptAggregate = {
  table: 'address_pairs',
  key: ['address_a', 'address_b'],
  kept: () => sql`SELECT address_a, address_b, txn_count FROM address_pairs WHERE txn_count <> 0`,
  reference: () => sql`SELECT address_a, address_b, COUNT(*) AS txn_count FROM (
      SELECT CASE WHEN from_address < to_address THEN from_address ELSE to_address END AS address_a,
        CASE WHEN from_address < to_address THEN to_address ELSE from_address END AS address_b
      FROM transactions WHERE from_address <> to_address
    ) p
    WHERE address_a IN (SELECT address FROM paired_addresses) AND address_b IN (SELECT address FROM paired_addresses)
    GROUP BY address_a, address_b`,
  dataWrite: () => new AddressPairsDelta(),
  beforeJoining: pairAddresses,
};

/** The advisory lock key that makes pairings run one at a time (PostgreSQL's advisory locks are named by a number). */
const PAIRING_LOCK = '7263746170';

/** The pair's key: its two ends in binary order. */
export function pairOf(x: string, y: string): [string, string] {
  return binaryOrder(x, y) < 0 ? [x, y] : [y, x];
}

/** Which of the addresses are paired. */
export async function pairedAmong(tx: Sql, addresses: readonly string[]): Promise<Set<string>> {
  const paired = new Set<string>();
  for (const chunk of chunks(addresses)) {
    const found = await tx.query<{ address: string }>(
      sql`SELECT address FROM paired_addresses WHERE address IN (${list(chunk)})`,
    );
    for (const row of found) paired.add(row.address);
  }
  return paired;
}

/**
 * Updates the pairs of each round's transfers that have a paired end, in the round: after
 * address_stats' delta has locked both ends' rows, so no pairing runs meanwhile.
 */
class AddressPairsDelta implements DataDelta {
  async round(tx: Sql, round: WriteRound): Promise<void> {
    const sides = round.transfers.flatMap(signedEnds).filter(([ends]) => ends.from_address !== ends.to_address);
    if (sides.length === 0) return;
    const ends = [...new Set(sides.flatMap(([e]) => [e.from_address, e.to_address]))];
    const paired = await pairedAmong(tx, ends);
    if (paired.size === 0) return;
    const pairs = new Map<string, { a: string; b: string; n: number }>();
    for (const [e, step] of sides) {
      if (!paired.has(e.from_address) || !paired.has(e.to_address)) continue;
      const [a, b] = pairOf(e.from_address, e.to_address);
      const key = `${a}\n${b}`;
      const entry = pairs.get(key) ?? { a, b, n: 0 };
      entry.n += step;
      pairs.set(key, entry);
    }
    const ordered = [...pairs.values()]
      .filter((pair) => pair.n !== 0)
      .sort((x, y) => binaryOrder(x.a, y.a) || binaryOrder(x.b, y.b));
    for (const chunk of chunks(ordered)) {
      await tx.execute(
        sql`INSERT INTO address_pairs (address_a, address_b, txn_count)
            VALUES ${rows(chunk.map((pair) => [pair.a, pair.b, pair.n]))}
            ON CONFLICT (address_a, address_b) DO UPDATE SET txn_count = address_pairs.txn_count + excluded.txn_count`,
      );
      if (chunk.some((pair) => pair.n < 0)) {
        await tx.execute(
          sql`DELETE FROM address_pairs WHERE txn_count = 0
              AND address_a IN (${list([...new Set(chunk.map((pair) => pair.a))])})`,
        );
      }
    }
  }

  async finish(): Promise<void> {}
}

/**
 * Pairs those of the addresses (canonical, distinct, in binary order) that are not paired yet, in
 * the transaction given, which should hold nothing else: it waits for data writes on those
 * addresses, then for the pairing lock, and should commit soon after, since other pairings wait
 * for it.
 * Their transactions are read by other end, once in an address's life; a transaction between two
 * of them is read with its sender.
 */
async function pairAddresses(tx: Sql, ordered: readonly string[]): Promise<void> {
  const before = await pairedAmong(tx, ordered);
  if (before.size === ordered.length) return;
  const candidates = ordered.filter((address) => !before.has(address));
  // Their transactions do not change while their rows are share-locked: counted before the
  // pairing lock, so that pairings wait for each other only to check and insert.
  await shareAddressRows(tx, candidates);
  const counted = await countByOtherEnd(tx, candidates);
  if (tx.dialect === 'postgres') await tx.query(sql`SELECT pg_advisory_xact_lock(${PAIRING_LOCK}::bigint)`);
  const paired = await pairedAmong(tx, candidates);
  const newcomers = candidates.filter((address) => !paired.has(address));
  if (newcomers.length === 0) return;
  const joining = new Set(newcomers);
  // A candidate paired meanwhile by another request is now an other end like any paired one.
  const pairs = [...counted.values()].filter((pair) => joining.has(pair.a) || joining.has(pair.b));
  // The other ends paired already (none is pairing now: pairings run one at a time).
  const others = pairs.map((pair) => (joining.has(pair.a) ? pair.b : pair.a));
  const pairedOthers = await pairedAmong(tx, [...new Set(others.filter((other) => !joining.has(other)))]);
  const counts = (address: string) => joining.has(address) || pairedOthers.has(address);
  const newPairs = pairs
    .filter((pair) => counts(pair.a) && counts(pair.b))
    .sort((x, y) => binaryOrder(x.a, y.a) || binaryOrder(x.b, y.b));
  for (const chunk of chunks(newcomers)) {
    await tx.execute(sql`INSERT INTO paired_addresses (address) VALUES ${rows(chunk.map((address) => [address]))}`);
  }
  for (const chunk of chunks(newPairs)) {
    await tx.execute(
      sql`INSERT INTO address_pairs (address_a, address_b, txn_count)
          VALUES ${rows(chunk.map((pair) => [pair.a, pair.b, pair.n]))}`,
    );
  }
}

/**
 * The addresses' transactions counted per pair (with any other end): a transaction between two of
 * them is read with its sender, once.
 */
async function countByOtherEnd(
  tx: Sql,
  addresses: readonly string[],
): Promise<Map<string, { a: string; b: string; n: number }>> {
  const joining = new Set(addresses);
  const pairs = new Map<string, { a: string; b: string; n: number }>();
  for (const chunk of chunks(addresses)) {
    const sent = await tx.query<{ address: string; other: string; n: number | string }>(
      sql`SELECT from_address AS address, to_address AS other, COUNT(*) AS n FROM transactions
          WHERE from_address IN (${list(chunk)}) AND to_address <> from_address GROUP BY from_address, to_address`,
    );
    const received = await tx.query<{ address: string; other: string; n: number | string }>(
      sql`SELECT to_address AS address, from_address AS other, COUNT(*) AS n FROM transactions
          WHERE to_address IN (${list(chunk)}) AND from_address <> to_address GROUP BY to_address, from_address`,
    );
    for (const row of [...sent, ...received.filter((row) => !joining.has(row.other))]) {
      const [a, b] = pairOf(row.address, row.other);
      const key = `${a}\n${b}`;
      const entry = pairs.get(key) ?? { a, b, n: 0 };
      entry.n += Number(row.n);
      pairs.set(key, entry);
    }
  }
  return pairs;
}
