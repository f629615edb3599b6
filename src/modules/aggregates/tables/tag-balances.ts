import type { Sql } from '../../../database/db.service';
import { bigAdd, bigSumValue } from '../../../database/dialect';
import { chunks, list, raw, rows, sql } from '../../../database/sql';
import { binaryOrder } from '../../../core/text/binary-order';
import type { DataDelta, KeptAggregate, TagPart, WriteRound } from '../kept-aggregate';
import { lockTags } from './tag-stats';

/** tag_balances (tag_id, chain, token_address): the members' balance sum; rows with a zero sum go. */
export const tagBalances: KeptAggregate = {
  table: 'tag_balances',
  key: ['tag_id', 'chain', 'token_address'],
  kept: () => sql`SELECT tag_id, chain, token_address, balance FROM tag_balances WHERE balance <> '0'`,
  reference: (
    db,
  ) => sql`SELECT m.tag_id, h.chain, h.token_address, ${bigSumValue(db.dialect, raw('h.balance'))} AS balance
    FROM address_tags m JOIN holdings h ON h.address = m.address
    WHERE h.balance <> '0'
    GROUP BY m.tag_id, h.chain, h.token_address`,
  dataWrite: () => new TagBalancesDelta(),
  async membersChanged(tx: Sql, tagId: number, part: TagPart, sign: 1 | -1): Promise<void> {
    for (const chunk of chunks(part.holdings)) {
      const values = chunk.map((row) => [tagId, row.chain, row.token_address, (BigInt(sign) * row.balance).toString()]);
      await tx.execute(
        sql`INSERT INTO tag_balances (tag_id, chain, token_address, balance) VALUES ${rows(values)}
            ON CONFLICT (tag_id, chain, token_address)
            DO UPDATE SET balance = ${bigAdd(tx.dialect, raw('tag_balances.balance'), raw('excluded.balance'))}`,
      );
    }
    if (sign < 0) await tx.execute(sql`DELETE FROM tag_balances WHERE tag_id = ${tagId} AND balance = '0'`);
  },
};

interface BalanceDelta {
  tag_id: number;
  chain: string;
  token_address: string;
  delta: bigint;
}

/** Gathers the members' balance changes per tag and token; writes them once, at the end. */
class TagBalancesDelta implements DataDelta {
  private readonly balances = new Map<string, BalanceDelta>();

  async round(_tx: Sql, round: WriteRound): Promise<void> {
    if (round.holdings.length === 0) return;
    const tagsOf = await round.tagsOf();
    for (const change of round.holdings) {
      const difference = BigInt(change.after) - BigInt(change.before);
      for (const tagId of tagsOf.get(change.address) ?? []) {
        const key = `${tagId} ${change.chain} ${change.token_address}`;
        const entry = this.balances.get(key) ?? {
          tag_id: tagId,
          chain: change.chain,
          token_address: change.token_address,
          delta: 0n,
        };
        entry.delta += difference;
        this.balances.set(key, entry);
      }
    }
  }

  /** After tag_stats' delta has locked these tags' rows: this finds them locked already. */
  async finish(tx: Sql): Promise<void> {
    const balances = [...this.balances.values()].filter((entry) => entry.delta !== 0n);
    this.balances.clear();
    if (balances.length === 0) return;
    const live = new Set(await lockTags(tx, [...new Set(balances.map((entry) => entry.tag_id))]));
    const ordered = balances
      .filter((entry) => live.has(entry.tag_id))
      .sort(
        (a, b) => a.tag_id - b.tag_id || binaryOrder(a.chain, b.chain) || binaryOrder(a.token_address, b.token_address),
      );
    for (const chunk of chunks(ordered)) {
      await tx.execute(
        sql`INSERT INTO tag_balances (tag_id, chain, token_address, balance)
            VALUES ${rows(chunk.map((entry) => [entry.tag_id, entry.chain, entry.token_address, entry.delta.toString()]))}
            ON CONFLICT (tag_id, chain, token_address)
            DO UPDATE SET balance = ${bigAdd(tx.dialect, raw('tag_balances.balance'), raw('excluded.balance'))}`,
      );
      // Sums back at zero go (every zero row of these tags: there are no others).
      await tx.execute(
        sql`DELETE FROM tag_balances WHERE balance = '0' AND tag_id IN (${list([...new Set(chunk.map((e) => e.tag_id))])})`,
      );
    }
  }
}
