import type { Sql } from '../../database/db.service';
import { inTexts, rowsPerLoad } from '../../database/dialect';
import { chunks, sql } from '../../database/sql';
import { binaryOrder } from '../../core/text/binary-order';
import { endsOf, sameEnds, signedEnds } from './changes';
import type { DataDelta, HoldingChange, TransferChange, WriteRound } from './kept-aggregate';
import { KEPT_AGGREGATES } from './registry';

/**
 * One writing transaction's changes to the kept aggregates. The contract with the writers (the
 * sink, a rewind): hand the changes over in `round`s as they are written, as many as needed, then
 * call `finish` once, just before the commit. Each round runs every aggregate's delta in list
 * order (address_stats first, which locks the changed addresses' rows); the tags' and tokens' rows
 * are locked and updated in `finish` only, so that no round takes an address's row while holding
 * a tag's (locking notes in README.md).
 */
export class AggregateWrite {
  private readonly deltas: DataDelta[] = KEPT_AGGREGATES.flatMap((aggregate) =>
    aggregate.dataWrite === undefined ? [] : [aggregate.dataWrite()],
  );

  async round(tx: Sql, holdings: readonly HoldingChange[], transfers: readonly TransferChange[]): Promise<void> {
    const round = writeRound(
      tx,
      holdings.filter((change) => change.before !== change.after),
      transfers.filter((change) => !sameEnds(change.before, change.after)),
    );
    if (round.holdings.length === 0 && round.transfers.length === 0) return;
    for (const delta of this.deltas) await delta.round(tx, round);
  }

  async finish(tx: Sql): Promise<void> {
    for (const delta of this.deltas) await delta.finish(tx);
  }
}

function writeRound(tx: Sql, holdings: HoldingChange[], transfers: TransferChange[]): WriteRound {
  let memberships: Promise<Map<string, number[]>> | undefined;
  return {
    holdings,
    transfers,
    overPairing: new Map(),
    tagsOf() {
      if (memberships === undefined) {
        const addresses = new Set(holdings.map((change) => change.address));
        for (const change of transfers) {
          for (const [ends] of signedEnds(change)) for (const address of endsOf(ends)) addresses.add(address);
        }
        memberships = tagsOf(tx, [...addresses].sort(binaryOrder));
      }
      return memberships;
    },
  };
}

/**
 * Each address's tags, over every account. On PostgreSQL the addresses go as one array of up to
 * 5,000 a statement (rowsPerLoad): a round names thousands, and bound one by one, 500 a statement,
 * each statement was parsed and planned anew.
 */
async function tagsOf(tx: Sql, addresses: readonly string[]): Promise<Map<string, number[]>> {
  const result = new Map<string, number[]>();
  for (const chunk of chunks(addresses, rowsPerLoad(tx.dialect))) {
    const found = await tx.query<{ address: string; tag_id: number | string }>(
      sql`SELECT address, tag_id FROM address_tags WHERE address ${inTexts(tx.dialect, chunk)}`,
    );
    for (const row of found) {
      const tags = result.get(row.address) ?? [];
      tags.push(Number(row.tag_id));
      result.set(row.address, tags);
    }
  }
  return result;
}
