import type { Sql } from '../../../database/db.service';
import { forUpdate, textRows } from '../../../database/dialect';
import { chunks, list, prepared, sql, SqlFragment } from '../../../database/sql';
import { endsOf, positive, signedEnds } from '../changes';
import type { DataDelta, KeptAggregate, TagPart, WriteRound } from '../kept-aggregate';

/**
 * tag_stats (tag_id): the tag's addresses, their holdings above zero, and their distinct
 * transactions: one between two members counts once.
 */
export const tagStats: KeptAggregate = {
  table: 'tag_stats',
  key: ['tag_id'],
  kept: () => sql`SELECT tag_id, address_count, holding_count, txn_count FROM tag_stats`,
  reference: () => referenceTagStats(),
  dataWrite: () => new TagStatsDelta(),
  async membersChanged(tx: Sql, tagId: number, part: TagPart, sign: 1 | -1): Promise<void> {
    const held = part.holdings.reduce((sum, row) => sum + row.count, 0);
    await tx.execute(
      prepared(sql`UPDATE tag_stats SET address_count = address_count + ${sign * part.addresses},
          holding_count = holding_count + ${sign * held}, txn_count = txn_count + ${sign * part.transactions}
          WHERE tag_id = ${tagId}`),
    );
  },
};

/**
 * tag_stats as it must be, for the tags `tagIds` selects (every tag when omitted). A transaction
 * counts once even when both ends are members: with the ones the members sent, or with the ones
 * they received from a non-member.
 */
export function referenceTagStats(tagIds?: SqlFragment): SqlFragment {
  const which = tagIds === undefined ? sql`` : sql`WHERE t.id IN (${tagIds})`;
  return sql`SELECT t.id AS tag_id,
      (SELECT COUNT(*) FROM address_tags m WHERE m.tag_id = t.id) AS address_count,
      (SELECT COUNT(*) FROM address_tags m JOIN holdings h ON h.address = m.address
        WHERE m.tag_id = t.id AND h.balance <> '0') AS holding_count,
      (SELECT COUNT(*) FROM address_tags m JOIN transactions x ON x.from_address = m.address WHERE m.tag_id = t.id)
      + (SELECT COUNT(*) FROM address_tags m JOIN transactions x ON x.to_address = m.address WHERE m.tag_id = t.id
          AND NOT EXISTS (SELECT 1 FROM address_tags s WHERE s.tag_id = t.id AND s.address = x.from_address)) AS txn_count
    FROM tags t ${which}`;
}

interface TagDelta {
  holdings: number;
  txns: number;
}

/**
 * Gathers each tag's change over the rounds, and locks and updates the tags' rows once, at the end.
 * Every tag a changed holding's address belongs to is locked, even when its count does not move:
 * tag_balances' delta updates only tags locked here, so that tag_stats rows are locked in key
 * order, once.
 */
class TagStatsDelta implements DataDelta {
  private readonly tags = new Map<number, TagDelta>();

  async round(_tx: Sql, round: WriteRound): Promise<void> {
    if (round.holdings.length === 0 && round.transfers.length === 0) return;
    const tagsOf = await round.tagsOf();
    for (const change of round.holdings) {
      const step = positive(change.after) - positive(change.before);
      for (const tagId of tagsOf.get(change.address) ?? []) this.delta(tagId).holdings += step;
    }
    for (const change of round.transfers) {
      for (const [ends, step] of signedEnds(change)) {
        // A transfer between two members of a tag counts once for it.
        const tags = new Set(endsOf(ends).flatMap((address) => tagsOf.get(address) ?? []));
        for (const tagId of tags) this.delta(tagId).txns += step;
      }
    }
  }

  async finish(tx: Sql): Promise<void> {
    const tags = [...this.tags].sort(([a], [b]) => a - b);
    this.tags.clear();
    const live = new Set(
      await lockTags(
        tx,
        tags.map(([tagId]) => tagId),
      ),
    );
    const moved = tags.filter(([tagId, delta]) => live.has(tagId) && (delta.holdings !== 0 || delta.txns !== 0));
    // One statement for the tags' rows (a block of 50 transfers moves about 50 tags), locked above.
    for (const chunk of chunks(moved)) {
      const changes = textRows(
        tx.dialect,
        [chunk.map(([tagId]) => tagId), chunk.map(([, delta]) => delta.holdings), chunk.map(([, delta]) => delta.txns)],
        ['bigint', 'bigint', 'bigint'],
      );
      await tx.execute(
        sql`WITH d (tag_id, holdings, txns) AS (${changes})
            UPDATE tag_stats SET holding_count = tag_stats.holding_count + d.holdings,
              txn_count = tag_stats.txn_count + d.txns
            FROM d WHERE tag_stats.tag_id = d.tag_id`,
      );
    }
  }

  private delta(tagId: number): TagDelta {
    let delta = this.tags.get(tagId);
    if (delta === undefined) this.tags.set(tagId, (delta = { holdings: 0, txns: 0 }));
    return delta;
  }
}

/** Locks the tags' rows in key order; answers the ids whose rows exist (a deleted tag has none). */
export async function lockTags(tx: Sql, tagIds: readonly number[]): Promise<number[]> {
  const live: number[] = [];
  for (const chunk of chunks([...tagIds].sort((a, b) => a - b))) {
    const found = await tx.query<{ tag_id: number | string }>(
      sql`SELECT tag_id FROM tag_stats WHERE tag_id IN (${list(chunk)}) ORDER BY tag_id${forUpdate(tx.dialect)}`,
    );
    live.push(...found.map((row) => Number(row.tag_id)));
  }
  return live;
}

/** Locks one tag's row; answers its address count, or undefined for a tag deleted meanwhile. */
export async function lockTag(tx: Sql, tagId: number): Promise<number | undefined> {
  const [tag] = await tx.query<{ address_count: number | string }>(
    prepared(sql`SELECT address_count FROM tag_stats WHERE tag_id = ${tagId}${forUpdate(tx.dialect)}`),
  );
  return tag === undefined ? undefined : Number(tag.address_count);
}

/** The empty aggregates of a new tag, in the transaction that creates it. */
export async function createTagStats(tx: Sql, tagId: number): Promise<void> {
  await tx.execute(
    prepared(sql`INSERT INTO tag_stats (tag_id, address_count, holding_count, txn_count) VALUES (${tagId}, 0, 0, 0)
        ON CONFLICT (tag_id) DO NOTHING`),
  );
}
