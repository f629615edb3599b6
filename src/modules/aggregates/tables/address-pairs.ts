import type { Sql } from '../../../database/db.service';
import { textRows } from '../../../database/dialect';
import { chunks, list, sql } from '../../../database/sql';
import { binaryOrder } from '../../../core/text/binary-order';
import { signedEnds } from '../changes';
import type { DataDelta, KeptAggregate, WriteRound } from '../kept-aggregate';

/**
 * address_pairs (to_address, from_address): the transactions from one address to another, never to
 * itself. What a change of a tag's members counts among its addresses and with the tag's members
 * (membership.ts) is read here, a pair at a time, rather than a transaction at a time. A pair's
 * row changes only in a write that has updated (locked) both its ends' address_stats rows, so it
 * holds still while a membership change share-locks either end. Rows at zero go.
 */
export const addressPairs: KeptAggregate = {
  table: 'address_pairs',
  key: ['to_address', 'from_address'],
  kept: () => sql`SELECT to_address, from_address, txn_count FROM address_pairs WHERE txn_count <> 0`,
  reference: () => sql`SELECT to_address, from_address, COUNT(*) AS txn_count FROM transactions
      WHERE to_address <> from_address GROUP BY to_address, from_address`,
  dataWrite: () => new AddressPairsDelta(),
};

/** Writes each round's pairs after address_stats has locked their ends, in key order. */
class AddressPairsDelta implements DataDelta {
  async round(tx: Sql, round: WriteRound): Promise<void> {
    const pairs = new Map<string, { to: string; from: string; txns: number }>();
    for (const change of round.transfers) {
      for (const [ends, step] of signedEnds(change)) {
        if (ends.from_address === ends.to_address) continue;
        const key = `${ends.to_address} ${ends.from_address}`;
        const pair = pairs.get(key) ?? { to: ends.to_address, from: ends.from_address, txns: 0 };
        pair.txns += step;
        pairs.set(key, pair);
      }
    }
    const ordered = [...pairs.values()]
      .filter((pair) => pair.txns !== 0)
      .sort((a, b) => binaryOrder(a.to, b.to) || binaryOrder(a.from, b.from));
    for (const chunk of chunks(ordered)) {
      await tx.execute(
        sql`INSERT INTO address_pairs (to_address, from_address, txn_count)
            ${textRows(
              tx.dialect,
              [chunk.map((pair) => pair.to), chunk.map((pair) => pair.from), chunk.map((pair) => pair.txns)],
              ['text', 'text', 'bigint'],
            )}
            ON CONFLICT (to_address, from_address) DO UPDATE SET txn_count = address_pairs.txn_count + excluded.txn_count`,
      );
      const fewer = chunk.filter((pair) => pair.txns < 0);
      if (fewer.length === 0) continue;
      await tx.execute(
        sql`DELETE FROM address_pairs WHERE txn_count = 0 AND to_address IN (${list([...new Set(fewer.map((pair) => pair.to))])})`,
      );
    }
  }

  async finish(): Promise<void> {}
}
