import type { Sql } from '../../../database/db.service';
import { chunks, list, rows, sql } from '../../../database/sql';
import { binaryOrder } from '../../../core/text/binary-order';
import { signedEnds } from '../changes';
import type { DataDelta, KeptAggregate, WriteRound } from '../kept-aggregate';

/**
 * paired_addresses (address): the addresses whose transactions are kept counted by counterparty in
 * address_pairs. An address joins when it first joins a tag and stays (it may join another tag
 * later); every member of a tag is one. Only that inclusion is checked: an address that left
 * every tag may stay paired.
 */
export const pairedAddresses: KeptAggregate = {
  table: 'paired_addresses',
  key: ['address'],
  kept: () => sql`SELECT address FROM paired_addresses WHERE address IN (SELECT address FROM address_tags)`,
  reference: () => sql`SELECT DISTINCT address FROM address_tags`,
};

/**
 * address_pairs (address_a, address_b), address_a < address_b in binary order: the transactions
 * between the two (either direction), for every pair with a paired end; rows at zero go.
 *
 * Why it is exact:
 * - A pair's transactions change only through a data write, which holds both ends' address_stats
 *   rows (it updated them) while it reads whether the ends are paired and updates the pair.
 * - An address becomes paired (`joining`) under a shared lock on its address_stats row, which
 *   excludes those data writes: it counts its transactions by other end and inserts the pairs
 *   that do not exist yet. A pair that exists already has a paired other end, so it is exact. Two
 *   requests pairing the same address, or the two ends of a pair, at once count the same rows (no
 *   data write can change them meanwhile), so whichever inserts a pair second does nothing.
 * - A data write that committed before the pairing is in what the pairing counts; one that
 *   writes after it finds the end paired and updates the pair itself.
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
    WHERE address_a IN (SELECT address FROM paired_addresses) OR address_b IN (SELECT address FROM paired_addresses)
    GROUP BY address_a, address_b`,
  dataWrite: () => new AddressPairsDelta(),
  joining: pairAddresses,
};

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
      if (!paired.has(e.from_address) && !paired.has(e.to_address)) continue;
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
 * Pairs those of the addresses (their address_stats rows share-locked) that are not paired yet: their
 * transactions counted by other end, read once in an address's life. A transaction between two of
 * them is read with its sender.
 */
async function pairAddresses(tx: Sql, ordered: readonly string[]): Promise<void> {
  const paired = await pairedAmong(tx, ordered);
  const newcomers = ordered.filter((address) => !paired.has(address));
  if (newcomers.length === 0) return;
  const joining = new Set(newcomers);
  const pairs = new Map<string, { a: string; b: string; n: number }>();
  const count = (x: string, y: string, n: number) => {
    const [a, b] = pairOf(x, y);
    const key = `${a}\n${b}`;
    const entry = pairs.get(key) ?? { a, b, n: 0 };
    entry.n += n;
    pairs.set(key, entry);
  };
  for (const chunk of chunks(newcomers)) {
    const sent = await tx.query<{ address: string; other: string; n: number | string }>(
      sql`SELECT from_address AS address, to_address AS other, COUNT(*) AS n FROM transactions
          WHERE from_address IN (${list(chunk)}) AND to_address <> from_address GROUP BY from_address, to_address`,
    );
    for (const row of sent) count(row.address, row.other, Number(row.n));
    const received = await tx.query<{ address: string; other: string; n: number | string }>(
      sql`SELECT to_address AS address, from_address AS other, COUNT(*) AS n FROM transactions
          WHERE to_address IN (${list(chunk)}) AND from_address <> to_address GROUP BY to_address, from_address`,
    );
    for (const row of received) if (!joining.has(row.other)) count(row.address, row.other, Number(row.n));
  }
  for (const chunk of chunks(newcomers)) {
    await tx.execute(
      sql`INSERT INTO paired_addresses (address) VALUES ${rows(chunk.map((address) => [address]))}
          ON CONFLICT (address) DO NOTHING`,
    );
  }
  const newPairs = [...pairs.values()].sort((x, y) => binaryOrder(x.a, y.a) || binaryOrder(x.b, y.b));
  for (const chunk of chunks(newPairs)) {
    await tx.execute(
      sql`INSERT INTO address_pairs (address_a, address_b, txn_count)
          VALUES ${rows(chunk.map((pair) => [pair.a, pair.b, pair.n]))}
          ON CONFLICT (address_a, address_b) DO NOTHING`,
    );
  }
}
