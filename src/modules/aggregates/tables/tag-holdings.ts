import type { Sql } from '../../../database/db.service';
import { inTexts } from '../../../database/dialect';
import { addressChunks, chunks, list, rows, sql } from '../../../database/sql';
import { binaryOrder } from '../../../core/text/binary-order';
import { positive } from '../changes';
import type { DataDelta, KeptAggregate, TagPart, WriteRound } from '../kept-aggregate';
import { lockTags } from './tag-stats';

/**
 * tag_holdings (tag_id, chain, token_address, address): each member's holdings above zero, one row
 * per tag it carries, in the list order of `GET /v2/token-holdings`. A page of a tag's holdings is
 * then a range of its own rows, however many holdings the other addresses have.
 */
export const tagHoldings: KeptAggregate = {
  table: 'tag_holdings',
  key: ['tag_id', 'chain', 'token_address', 'address'],
  kept: () => sql`SELECT tag_id, chain, token_address, address FROM tag_holdings`,
  reference: () => referenceTagHoldings(),
  dataWrite: () => new TagHoldingsDelta(),
  // A member's rows are its own: written as it joins, before the tag's lock. A plain INSERT: an
  // address that is not a member has no rows (its removal deleted them, and every writer of a
  // member's rows holds its address_stats row, which the joining change share-locks), and
  // PostgreSQL's ON CONFLICT looked every row up once more before inserting it (bench/README.md,
  // change 51).
  async membersJoining(tx: Sql, tagId: number, addresses: readonly string[]): Promise<void> {
    for (const chunk of addressChunks(addresses)) {
      await tx.execute(
        sql`INSERT INTO tag_holdings (tag_id, chain, token_address, address)
            SELECT ${tagId}, chain, token_address, address FROM holdings
            WHERE address ${inTexts(tx.dialect, chunk)} AND balance <> '0'`,
      );
    }
  },
  async membersChanged(tx: Sql, tagId: number, part: TagPart, sign: 1 | -1): Promise<void> {
    if (sign > 0) return;
    for (const chunk of addressChunks(part.members)) {
      await tx.execute(sql`DELETE FROM tag_holdings WHERE tag_id = ${tagId} AND address ${inTexts(tx.dialect, chunk)}`);
    }
  },
  // No foreign key on PostgreSQL (migration 1763700000130): the tag's rows are deleted with it here.
  async tagDeleted(tx: Sql, tagId: number): Promise<void> {
    await tx.execute(sql`DELETE FROM tag_holdings WHERE tag_id = ${tagId}`);
  },
};

/** tag_holdings as it must be: every member's holdings above zero, for each of its tags. */
function referenceTagHoldings() {
  return sql`SELECT m.tag_id, h.chain, h.token_address, h.address
    FROM address_tags m JOIN holdings h ON h.address = m.address WHERE h.balance <> '0'`;
}

interface HoldingRow {
  tag_id: number;
  chain: string;
  token_address: string;
  address: string;
  /** 1: above zero now and not before; -1: the other way; 0: as it was. */
  step: number;
}

/**
 * Gathers, per tag and holding, whether the holding crossed zero over the rounds; at the end
 * inserts the ones that rose above it and deletes the ones that fell to it, for the tags still
 * there (their tag_stats rows are locked by then, tag_stats' delta having run first).
 */
class TagHoldingsDelta implements DataDelta {
  private readonly changed = new Map<string, HoldingRow>();

  async round(_tx: Sql, round: WriteRound): Promise<void> {
    const crossing = round.holdings.filter((change) => positive(change.after) !== positive(change.before));
    if (crossing.length === 0) return;
    const tagsOf = await round.tagsOf();
    for (const change of crossing) {
      const step = positive(change.after) - positive(change.before);
      for (const tagId of tagsOf.get(change.address) ?? []) {
        const key = `${tagId} ${change.chain} ${change.token_address} ${change.address}`;
        const entry = this.changed.get(key) ?? {
          tag_id: tagId,
          chain: change.chain,
          token_address: change.token_address,
          address: change.address,
          step: 0,
        };
        entry.step += step;
        this.changed.set(key, entry);
      }
    }
  }

  async finish(tx: Sql): Promise<void> {
    const changed = [...this.changed.values()].filter((entry) => entry.step !== 0);
    this.changed.clear();
    if (changed.length === 0) return;
    const live = new Set(await lockTags(tx, [...new Set(changed.map((entry) => entry.tag_id))]));
    const ordered = changed
      .filter((entry) => live.has(entry.tag_id))
      .sort(
        (a, b) =>
          a.tag_id - b.tag_id ||
          binaryOrder(a.chain, b.chain) ||
          binaryOrder(a.token_address, b.token_address) ||
          binaryOrder(a.address, b.address),
      );
    const added = ordered.filter((entry) => entry.step > 0);
    for (const chunk of chunks(added)) {
      await tx.execute(
        sql`INSERT INTO tag_holdings (tag_id, chain, token_address, address)
            VALUES ${rows(chunk.map((entry) => [entry.tag_id, entry.chain, entry.token_address, entry.address]))}
            ON CONFLICT (tag_id, chain, token_address, address) DO NOTHING`,
      );
    }
    // Deletions by tag and token: few (a balance falling to zero), and plain equalities on both databases.
    const removed = new Map<string, HoldingRow[]>();
    for (const entry of ordered.filter((row) => row.step < 0)) {
      const key = `${entry.tag_id} ${entry.chain} ${entry.token_address}`;
      const group = removed.get(key);
      if (group === undefined) removed.set(key, [entry]);
      else group.push(entry);
    }
    for (const group of removed.values()) {
      const [{ tag_id, chain, token_address }] = group as [HoldingRow];
      for (const chunk of chunks(group)) {
        await tx.execute(
          sql`DELETE FROM tag_holdings WHERE tag_id = ${tag_id} AND chain = ${chain} AND token_address = ${token_address}
              AND address IN (${list(chunk.map((entry) => entry.address))})`,
        );
      }
    }
  }
}
