import { Injectable } from '@nestjs/common';
import { Db, Sql } from '../../database/db.service';
import { forKeyShare, inTexts, joinedText, textRows, toIso } from '../../database/dialect';
import { accountKey, addressSet, addressSetInJoinOrder } from '../../database/address-sets';
import {
  addMembers,
  applyMembersPart,
  createTagStats,
  deleteTagAggregates,
  flagFirstTags,
  lockForMembershipChange,
  lockForRename,
  lockTrackedRows,
  lockTrackedSet,
  type MembersPart,
  readMembersPart,
  shareAddresses,
} from '../aggregates/aggregates.service';
import {
  addressChunks,
  and,
  chunks,
  list,
  pageBesideTotal,
  pageSize,
  prepared,
  raw,
  splitPage,
  sql,
} from '../../database/sql';
import { settingOnce } from '../../database/settings';
import { type NamedTag as TagByName, TagScope } from '../../core/tags/tag-scope';
import { listedTags, UNTAGGED } from '../../core/tags/tag-rules';
import { binaryOrder } from '../../core/text/binary-order';
import type { TagChange } from './dto/tag-change';

export interface TagSummaryRow {
  name: string;
  address_count: number;
  created_at: string;
  updated_at: string;
  description: string | null;
}

/** A tag's summary as the drivers return it. */
interface SummaryRow {
  name: string;
  address_count: number | string;
  created_at: Date | string;
  updated_at: Date | string;
  description: string | null;
}

function toSummaryRow(row: SummaryRow): TagSummaryRow {
  return {
    name: row.name,
    address_count: Number(row.address_count),
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
    description: row.description,
  };
}

/** Who changes membership, and when: `key` is the API key's first 12 characters, or `cli`. */
export interface Change {
  key: string;
  now: string;
}

/** A tag of an account, by id and by name (the name is what its history keeps). */
export interface NamedTag {
  accountId: number;
  tagId: number;
  name: string;
}

export interface HistoryFilters {
  address?: string;
  since?: string;
  until?: string;
  after?: { at: string; id: number };
}

export interface HistoryRow {
  id: number;
  at: string;
  action: 'added' | 'removed';
  address: string;
  key_prefix: string;
}

const SETTING_CURSOR_SECRET = 'tag_history_cursor_secret';

/**
 * The outcome of checking a batch against the cap, under the lock. Once tagged (or, for the
 * reserved tag, tracked), each address's tags as the change left them (binary order; `0` for
 * none), read under the same lock: the answer needs no further read, which another change could
 * already be in.
 */
export type AssignOutcome =
  | { ok: true; tags: ReadonlyMap<string, string[]> }
  | { ok: false; overLimit: { address: string; tag_count: number }[] };

@Injectable()
export class TagsRepository {
  constructor(private readonly db: Db) {}

  /** The tag's id and its revision, which goes up with every change to its addresses. */
  async findTag(accountId: number, name: string): Promise<{ id: number; revision: number } | undefined> {
    const rows = await this.db.query<{ id: number | string; revision: number | string }>(
      prepared(sql`SELECT id, revision FROM tags WHERE account_id = ${accountId} AND name = ${name}`),
    );
    const row = rows[0];
    return row === undefined ? undefined : { id: Number(row.id), revision: Number(row.revision) };
  }

  /**
   * Which of `names` the account has tags of, in `tx`, those tags' rows held (FOR KEY SHARE) until
   * `tx` ends: a rename or deletion of one of them waits for `tx`, and one that committed first has
   * taken the name away. Assignments, which change no key of the row, do not wait.
   */
  async holdNamed(tx: Sql, accountId: number, names: readonly string[]): Promise<Set<string>> {
    if (names.length === 0) return new Set();
    const found = await tx.query<{ name: string }>(
      sql`SELECT name FROM tags WHERE account_id = ${accountId} AND name IN (${list(names)})
          ORDER BY id${forKeyShare(tx.dialect)}`,
    );
    return new Set(found.map((row) => row.name));
  }

  /**
   * Tags `addresses` (canonical, distinct) with `tag` (or only tracks them, for `tag` undefined), or
   * changes nothing when an address would carry more than `cap` tags.
   *
   * Why the cap holds under concurrency: everything happens in one transaction that first makes
   * sure a tracked_addresses row exists for each address and then locks those rows
   * (SELECT … FOR UPDATE), always in canonical (binary) address order so that two batches sharing
   * addresses queue rather than deadlock. Only then are the current tags counted, so no other
   * writer can add a tag to these addresses between the count and the insert. On SQLite the
   * transaction is BEGIN IMMEDIATE and Db serialises writers, which gives the same guarantee.
   *
   * The tag's kept aggregates follow in the same transaction (locking notes in
   * src/modules/aggregates/README.md). The tag is created first, if it is new, so that concurrent
   * requests creating it queue behind the first and then find its members. Then what the added
   * addresses bring (readMembersPart: their holdings and transactions, the costly part) is read for
   * the addresses that do not carry the tag yet, before the tracked_addresses rows and the tag's
   * row are locked: a request holds the tracked rows, which requests sharing addresses wait for,
   * while it checks the cap and inserts, and the tag's row, which other requests to the tag wait
   * for, only while it checks the other ends of those transactions against the tag's members and
   * updates the tag's kept rows (the history, and with addMembers the members' own rows and, unless
   * one is busy, their memberships, are written before).
   * Should the addresses to add have changed by the time the locks are held (another request
   * tagged some of them, or took the tag from some, meanwhile), their part is read again; every
   * address named is share-locked before the tracked rows, so that reading needs no lock after them.
   */
  async assign(
    accountId: number,
    tag: string | undefined,
    addresses: readonly string[],
    cap: number,
    change: Change,
  ): Promise<AssignOutcome> {
    const ordered = [...addresses].sort(binaryOrder);
    for (let attempt = 1; ; attempt += 1) {
      try {
        return { ok: true, tags: await this.assignOnce(accountId, tag, ordered, cap, change) };
      } catch (error) {
        if (error instanceof CapExceeded) return { ok: false, overLimit: error.overLimit };
        // The tag was deleted after this request found it: run again, which creates it anew (as if
        // the deletion had come first).
        if (error instanceof TagDeletedMeanwhile && attempt < MAX_TAG_CHANGE_ATTEMPTS) continue;
        throw error;
      }
    }
  }

  private assignOnce(
    accountId: number,
    tag: string | undefined,
    ordered: readonly string[],
    cap: number,
    change: Change,
  ): Promise<Map<string, string[]>> {
    const { now } = change;
    return this.db.transaction(async (tx) => {
      // First, before the tag or any row: a change waiting for it holds nothing another waits for.
      await lockTrackedSet(tx, accountId, 'adding');
      let target: { id: number; name: string; created: boolean; part: MembersPart } | undefined;
      if (tag !== undefined) {
        // A new tag is created first, so that concurrent requests creating it queue behind the first
        // and then find its members. A tag that exists is not: one deleted after this finds it is
        // found so under its row's lock, and the change runs again.
        const found = await existingTagId(tx, accountId, tag);
        const { id, created } =
          found === undefined ? await createTag(tx, accountId, tag, now) : { id: found, created: false };
        // Before any lock: a guess at the addresses to add, checked once the locks are held. A tag
        // this transaction created has no members to leave out.
        const before = created ? new Set<string>() : await membersAmong(tx, id, ordered);
        const untagged = ordered.filter((address) => !before.has(address));
        // The guess leaves members out; should one of them leave the tag before the tracked rows are
        // locked, it is read under them below, and its address_stats row must be held by then.
        if (before.size > 0) await shareAddresses(tx, ordered);
        target = { id, name: tag, created, part: await readMembersPart(tx, id, untagged, created) };
      }
      const flag = target === undefined ? 0 : 1;
      const inserted = await insertTracked(tx, accountId, ordered, now, flag);
      // A row found by the insert and deleted by another change before this one could lock it is
      // inserted again, as this change's own: an address this change tags or tracks stays tracked.
      for (let missing = await lockTrackedRows(tx, accountId, ordered); missing.length > 0;) {
        for (const address of await insertTracked(tx, accountId, missing, now, flag)) inserted.add(address);
        missing = await lockTrackedRows(tx, accountId, missing);
      }
      // The reserved tag only tracks: the answer is the addresses' tags as they are under the lock.
      if (target === undefined) return listedTagsOf(tx, accountId, ordered);

      const { id, name, created } = target;
      const current = await tagsOfLocked(tx, accountId, ordered);
      const adding = ordered.filter((address) => !current.get(address)?.includes(name));
      const overLimit = adding
        .map((address) => ({ address, tag_count: current.get(address)?.length ?? 0 }))
        .filter((entry) => entry.tag_count >= cap);
      // Thrown, not returned, so that the transaction rolls back the rows added above.
      if (overLimit.length > 0) throw new CapExceeded(overLimit);
      const after = new Map(ordered.map((address) => [address, current.get(address) ?? []]));
      for (const address of adding) after.get(address)!.push(name);
      for (const names of after.values()) names.sort(binaryOrder);
      if (adding.length === 0) return after;

      // Tracked before and untagged until now: their rows' flag flips (the rows this request
      // inserted are flagged already).
      const firstTags = adding.filter((address) => !current.has(address) && !inserted.has(address));
      if (firstTags.length > 0) await flagFirstTags(tx, accountId, firstTags);
      const part = sameAddresses(target.part.addresses, adding)
        ? target.part
        : await readMembersPart(tx, id, adding, created);
      await recordHistory(tx, accountId, name, adding, 'added', change);
      const join = (members: readonly string[]) => insertMemberships(tx, id, accountId, members, now);
      if (!(await addMembers(tx, id, part, join, created))) throw new TagDeletedMeanwhile();
      await membersChanged(tx, id, now);
      return after;
    });
  }

  /**
   * Removes the tag from those addresses (they stay tracked); answers their tags as the removal
   * left them. The addresses' tracked rows are held from the removal's lock on, so no other change
   * moves their tags until it commits; an address without a row then is answered untracked, whatever
   * a change that tracks it commits meanwhile (PostgreSQL's later statements would see it).
   * Answers undefined, changing nothing, when another request deleted the tag after this one found
   * it (its row was gone when locked).
   */
  removeMembers(
    tag: NamedTag,
    addresses: readonly string[],
    change: Change,
  ): Promise<Map<string, string[]> | undefined> {
    return this.db.transaction(async (tx) => {
      const { untracked, live } = await removeMembers(tx, tag, addresses, change);
      if (!live) return undefined;
      const missing = new Set(untracked);
      return listedTagsOf(
        tx,
        tag.accountId,
        addresses.filter((address) => !missing.has(address)),
      );
    });
  }

  /**
   * Stops tracking those of the addresses that carry no tag (the reserved tag's removal), and
   * answers the addresses' tags as the change left them. Their tracked rows are locked first, as
   * every membership change locks them, and read under the lock: rows a tag change holds are read
   * once it commits, and none of their tags can move until this change commits. An address without
   * a row then is answered untracked, whatever a change that tracks it commits meanwhile.
   */
  untrack(accountId: number, addresses: readonly string[]): Promise<Map<string, string[]>> {
    return this.db.transaction(async (tx) => {
      const ordered = [...new Set(addresses)].sort(binaryOrder);
      const missing = new Set(await lockTrackedRows(tx, accountId, ordered));
      const tags = await listedTagsOf(
        tx,
        accountId,
        ordered.filter((address) => !missing.has(address)),
      );
      const untagged = [...tags].filter(([, names]) => names.length === 1 && names[0] === UNTAGGED);
      for (const chunk of chunks(untagged.map(([address]) => address))) {
        await tx.execute(
          sql`DELETE FROM tracked_addresses WHERE account_id = ${accountKey(accountId)} AND address IN (${list(chunk)})
           AND tagged = 0 AND NOT EXISTS (SELECT 1 FROM address_tags a WHERE a.account_id = tracked_addresses.account_id
                           AND a.address = tracked_addresses.address)`,
        );
      }
      for (const [address] of untagged) tags.delete(address);
      return tags;
    });
  }

  /**
   * The tag's kept aggregates go with it (deleteTagAggregates, then ON DELETE CASCADE), after its
   * members' tracked rows and its own row are locked like any change's; its history stays, with a
   * `removed` for each of its last members. Should an address join it between the members' reading
   * and the tag's lock, its tracked row is locked after the tag's, out of order: PostgreSQL may
   * then pick one of two such changes as a deadlock victim, and Db.transaction runs it again.
   * Answers false, changing nothing, when another request deleted the tag after this one found it
   * (its row was gone when locked).
   */
  async deleteTag(tag: NamedTag, change: Change): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const members = await tx.query<{ address: string }>(
        sql`SELECT address FROM address_tags WHERE tag_id = ${tag.tagId}`,
      );
      const { live } = await lockForMembershipChange(
        tx,
        tag,
        [],
        members.map((row) => row.address),
      );
      if (!live) return false;
      await tx.execute(
        sql`INSERT INTO tag_history (account_id, tag, address, action, key_prefix, at)
            SELECT ${tag.accountId}, ${tag.name}, address, 'removed', ${change.key}, ${change.now}
            FROM address_tags WHERE tag_id = ${tag.tagId} ORDER BY address`,
      );
      await deleteTagAggregates(tx, tag.tagId);
      await tx.execute(sql`DELETE FROM address_tags WHERE tag_id = ${tag.tagId}`);
      await tx.execute(sql`DELETE FROM tags WHERE id = ${tag.tagId}`);
      return true;
    });
  }

  /**
   * Changes the account's tag `from`: its name to `change.name`, its description to
   * `change.description` (null: none), each when given. A rename keeps the tag's row, members,
   * kept aggregates and timestamps, and records each member `removed` under the old name and
   * `added` under the new one (the history names tags, and each name's history then replays to its
   * members); `alsoRenamed` runs in the same transaction (the webhooks' tag names). Answers the tag
   * as changed; `missing` when the account has no tag `from`, `taken` when it has one of the new
   * name. The locks of a rename: lockForRename (no assignment or import of the account under way
   * meanwhile, and the tag's row, which removals and deletions check its name under). A change of
   * the description alone is one UPDATE of the tag's row found by its name, so it waits for no
   * import.
   */
  changeTag(
    accountId: number,
    from: string,
    change: TagChange,
    who: Change,
    alsoRenamed: (tx: Sql) => Promise<void>,
  ): Promise<TagSummaryRow | 'missing' | 'taken'> {
    return this.db.transaction(async (tx) => {
      const to = change.name ?? from;
      let id: number | undefined;
      if (to === from) {
        const [found] = await tx.query<{ id: number | string }>(
          change.description === undefined
            ? sql`SELECT id FROM tags WHERE account_id = ${accountId} AND name = ${from}`
            : sql`UPDATE tags SET description = ${change.description}
                  WHERE account_id = ${accountId} AND name = ${from} RETURNING id`,
        );
        id = found === undefined ? undefined : Number(found.id);
        if (id === undefined) return 'missing';
      } else {
        id = await lockForRename(tx, accountId, from);
        if (id === undefined) return 'missing';
        if ((await existingTagId(tx, accountId, to)) !== undefined) return 'taken';
        const members = await tx.query<{ address: string }>(sql`SELECT address FROM address_tags WHERE tag_id = ${id}`);
        const addresses = members.map((row) => row.address).sort(binaryOrder);
        await recordHistory(tx, accountId, from, addresses, 'removed', who);
        await recordHistory(tx, accountId, to, addresses, 'added', who);
        await tx.execute(
          change.description === undefined
            ? sql`UPDATE tags SET name = ${to} WHERE id = ${id}`
            : sql`UPDATE tags SET name = ${to}, description = ${change.description} WHERE id = ${id}`,
        );
        await alsoRenamed(tx);
      }
      const [row] = await tx.query<SummaryRow>(
        sql`SELECT t.name, s.address_count, t.created_at, t.updated_at, t.description
            FROM tags t JOIN tag_stats s ON s.tag_id = t.id WHERE t.id = ${id}`,
      );
      return toSummaryRow(row!);
    });
  }

  /** Up to `limit` entries of the tag's history, newest first (at, then id, descending), from the filters on. */
  async history(accountId: number, tag: string, filters: HistoryFilters, limit: number): Promise<HistoryRow[]> {
    const conditions = [sql`account_id = ${accountId}`, sql`tag = ${tag}`];
    if (filters.address !== undefined) conditions.push(sql`address = ${filters.address}`);
    if (filters.since !== undefined) conditions.push(sql`at > ${filters.since}`);
    if (filters.until !== undefined) conditions.push(sql`at <= ${filters.until}`);
    if (filters.after !== undefined) conditions.push(sql`(at, id) < (${filters.after.at}, ${filters.after.id})`);
    const found = await this.db.query<{
      id: number | string;
      at: Date | string;
      action: 'added' | 'removed';
      address: string;
      key_prefix: string;
    }>(
      sql`SELECT id, at, action, address, key_prefix FROM tag_history WHERE ${and(conditions)}
          ORDER BY at DESC, id DESC LIMIT ${limit}`,
    );
    return found.map((row) => ({ ...row, id: Number(row.id), at: toIso(row.at) }));
  }

  /** The history cursors' secret, stored on first use. */
  cursorSecret(candidate: string): Promise<string> {
    return settingOnce(this.db, SETTING_CURSOR_SECRET, candidate);
  }

  /**
   * A page of the account's tags by name, with each one's kept address count, and how many tags
   * the account has, in one statement (bench/README change 64); only those whose name starts with
   * `prefix` when given (`LIKE`, its `_` escaped; tag names are lowercase, so SQLite's case-blind
   * `LIKE` matches as PostgreSQL's does). A page past the end has no tags and the total still.
   */
  async pageTags(
    accountId: number,
    offset: number,
    limit: number,
    prefix?: string,
  ): Promise<{ total: number; tags: TagSummaryRow[] }> {
    const pattern = prefix === undefined ? undefined : `${prefix.replace(/_/g, '\\_')}%`;
    const named = (column: string) =>
      pattern === undefined ? sql`` : sql` AND ${raw(column)} LIKE ${pattern} ESCAPE '\\'`;
    // The total's row has no tag: its name is null (pageBesideTotal).
    const found = await this.db.query<{ total: number | string; name: string | null } & Omit<SummaryRow, 'name'>>(
      prepared(
        pageBesideTotal(
          sql`SELECT COUNT(*) AS total FROM tags WHERE account_id = ${accountId}${named('name')}`,
          sql`SELECT t.name, s.address_count, t.created_at, t.updated_at, t.description
              FROM tags t JOIN tag_stats s ON s.tag_id = t.id
              WHERE t.account_id = ${accountId}${named('t.name')} ORDER BY t.name LIMIT ${pageSize(limit)} OFFSET ${offset}`,
          raw('page.name'),
        ),
      ),
    );
    const { total, rows } = splitPage(found, 'name')!;
    return { total, tags: rows.map((row) => toSummaryRow({ ...row, name: row.name! })) };
  }

  /** A real tag's from its kept count (tag_stats); the reserved tag's from the partial index of its set. */
  countMembers(scope: TagScope): Promise<number> {
    if (scope.kind === 'tag') {
      return this.db.count(sql`SELECT address_count FROM tag_stats WHERE tag_id = ${scope.tagId}`);
    }
    return this.db.count(sql`SELECT COUNT(*) FROM (${addressSet(scope)}) m`);
  }

  /** A page of the scope's addresses, by time of assignment (tracking, for `0`), then address. */
  async pageMembers(scope: TagScope, offset: number, limit: number): Promise<string[]> {
    const members = await this.db.query<{ address: string }>(
      sql`${addressSetInJoinOrder(scope)} LIMIT ${limit} OFFSET ${offset}`,
    );
    return members.map((row) => row.address);
  }

  /**
   * A page of a real tag's addresses (by time of assignment, then address), each with the names of
   * its tags in the account (unordered), and the tag's kept address count, in one statement that
   * finds the tag by its name: one round trip where finding the tag, counting, paging and reading
   * the members' tags took four (bench/README change 63). Undefined when the account has no such
   * tag; a page past the end has no members and the total still.
   */
  async namedMembersPage(
    tag: TagByName,
    offset: number,
    limit: number,
  ): Promise<{ total: number; members: { address: string; tags: string[] }[] } | undefined> {
    const tagId = sql`(SELECT id FROM tags WHERE account_id = ${tag.accountId} AND name = ${tag.name})`;
    const found = await this.db.query<{ total: number | string; address: string | null; tags: string | null }>(
      prepared(
        pageBesideTotal(
          sql`SELECT address_count AS total FROM tag_stats WHERE tag_id = ${tagId}`,
          sql`SELECT m.address, m.created_at,
                (SELECT ${joinedText(this.db.dialect, raw('t.name'), ',')} FROM address_tags a JOIN tags t ON t.id = a.tag_id
                  WHERE a.address = m.address AND a.account_id = ${tag.accountId}) AS tags
              FROM address_tags m WHERE m.tag_id = ${tagId}
              ORDER BY m.created_at, m.address LIMIT ${pageSize(limit)} OFFSET ${offset}`,
          raw('page.created_at, page.address'),
        ),
      ),
    );
    const page = splitPage(found, 'address');
    if (page === undefined) return undefined;
    return {
      total: page.total,
      members: page.rows.map((row) => ({ address: row.address!, tags: row.tags === null ? [] : row.tags.split(',') })),
    };
  }

  /**
   * Each address's tags in ascending order; tracked addresses without a tag get the reserved `0`,
   * addresses the account does not track get none.
   */
  tagsOf(accountId: number, addresses: readonly string[]): Promise<Map<string, string[]>> {
    return listedTagsOf(this.db, accountId, addresses);
  }
}

/**
 * A tag found (or created) at the start of a change (a POST, an import) was deleted before the
 * change locked its row: the change's transaction is rolled back and run again, which creates the
 * tag anew, as if the deletion had come first.
 */
export class TagDeletedMeanwhile extends Error {
  constructor() {
    super('tag deleted meanwhile');
  }
}

/** A change runs at most this many times in all when its tag keeps being deleted under it. */
export const MAX_TAG_CHANGE_ATTEMPTS = 5;

export class CapExceeded extends Error {
  constructor(readonly overLimit: { address: string; tag_count: number }[]) {
    super('tag cap exceeded');
  }
}

/** Both in binary order. */
function sameAddresses(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((address, index) => address === b[index]);
}

/**
 * Removes the tag from those of the addresses that carry it, with the kept aggregates and the
 * history in the same transaction; answers how many did, which of the addresses were not tracked,
 * and whether the tag was still there (a tag another request deleted is left alone).
 */
export async function removeMembers(
  tx: Sql,
  tag: NamedTag,
  addresses: readonly string[],
  change: Change,
): Promise<{ removed: number; untracked: string[]; live: boolean }> {
  const { tagId } = tag;
  const { untracked, live } = await lockForMembershipChange(tx, tag, addresses);
  if (!live) return { removed: 0, untracked, live };
  const removed: string[] = [];
  for (const chunk of addressChunks(addresses)) {
    const deleted = await tx.query<{ address: string }>(
      sql`DELETE FROM address_tags WHERE tag_id = ${tagId} AND address ${inTexts(tx.dialect, chunk)} RETURNING address`,
    );
    removed.push(...deleted.map((row) => row.address));
  }
  if (removed.length === 0) return { removed: 0, untracked, live };
  removed.sort(binaryOrder);
  // Read under the tag's lock: only now is it known which of the addresses were members.
  await applyMembersPart(tx, tagId, await readMembersPart(tx, tagId, removed), -1);
  await recordHistory(tx, tag.accountId, tag.name, removed, 'removed', change);
  await membersChanged(tx, tagId, change.now);
  return { removed: removed.length, untracked, live };
}

/** One history entry per address whose membership of the tag changed. */
async function recordHistory(
  tx: Sql,
  accountId: number,
  tag: string,
  addresses: readonly string[],
  action: 'added' | 'removed',
  change: Change,
): Promise<void> {
  for (const chunk of addressChunks(addresses)) {
    const values = textRows(
      tx.dialect,
      [
        chunk.map(() => accountId),
        chunk.map(() => tag),
        chunk,
        chunk.map(() => action),
        chunk.map(() => change.key),
        chunk.map(() => change.now),
      ],
      ['bigint', 'text', 'text', 'text', 'text', 'timestamptz'],
    );
    await tx.execute(
      prepared(sql`INSERT INTO tag_history (account_id, tag, address, action, key_prefix, at) ${values}`),
    );
  }
}

/** Every change to a tag's addresses moves its `updated_at` and revision on. */
export async function membersChanged(tx: Sql, tagId: number, now: string): Promise<void> {
  await tx.execute(prepared(sql`UPDATE tags SET updated_at = ${now}, revision = revision + 1 WHERE id = ${tagId}`));
}

/**
 * Tracks those of the addresses not tracked yet; answers them. `tagged`: 1 when the transaction
 * goes on to give them a tag (a POST of a real tag: an address tracked by it gets the tag, or the
 * transaction rolls back), so that a new row is written once rather than inserted untagged and
 * flipped.
 */
async function insertTracked(
  tx: Sql,
  accountId: number,
  ordered: readonly string[],
  now: string,
  tagged: 0 | 1,
): Promise<Set<string>> {
  const inserted = new Set<string>();
  for (const chunk of addressChunks(ordered)) {
    const values = textRows(
      tx.dialect,
      [chunk.map(() => accountId), chunk, chunk.map(() => now), chunk.map(() => tagged)],
      ['bigint', 'text', 'timestamptz', 'integer'],
    );
    const rows = await tx.query<{ address: string }>(
      prepared(sql`INSERT INTO tracked_addresses (account_id, address, created_at, tagged) ${values}
          ON CONFLICT (account_id, address) DO NOTHING RETURNING address`),
    );
    for (const row of rows) inserted.add(row.address);
  }
  return inserted;
}

/** Those of the addresses that carry the tag (as last committed, before any lock: a guess). */
async function membersAmong(tx: Sql, tagId: number, ordered: readonly string[]): Promise<Set<string>> {
  const members = new Set<string>();
  for (const chunk of addressChunks(ordered)) {
    const found = await tx.query<{ address: string }>(
      sql`SELECT address FROM address_tags WHERE tag_id = ${tagId} AND address ${inTexts(tx.dialect, chunk)}`,
    );
    for (const row of found) members.add(row.address);
  }
  return members;
}

/**
 * Each address's tags in ascending order; tracked addresses without a tag get the reserved `0`,
 * addresses the account does not track are left out (they have none).
 */
async function listedTagsOf(q: Sql, accountId: number, addresses: readonly string[]): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>();
  for (const chunk of chunks(addresses)) {
    const found = await q.query<{ address: string; name: string | null }>(
      sql`SELECT tr.address, t.name FROM tracked_addresses tr
       LEFT JOIN address_tags a ON a.account_id = tr.account_id AND a.address = tr.address
       LEFT JOIN tags t ON t.id = a.tag_id
       WHERE tr.account_id = ${accountKey(accountId)} AND tr.address ${inTexts(q.dialect, chunk)}`,
    );
    for (const row of found) {
      const tags = result.get(row.address) ?? [];
      if (row.name !== null) tags.push(row.name);
      result.set(row.address, tags);
    }
  }
  for (const [address, tags] of result) result.set(address, listedTags(true, tags));
  return result;
}

/** The names of each address's tags in the account (exact while its tracked row is locked). */
async function tagsOfLocked(tx: Sql, accountId: number, ordered: readonly string[]): Promise<Map<string, string[]>> {
  const tags = new Map<string, string[]>();
  for (const chunk of addressChunks(ordered)) {
    const found = await tx.query<{ address: string; name: string }>(
      sql`SELECT a.address, t.name FROM address_tags a JOIN tags t ON t.id = a.tag_id
       WHERE a.account_id = ${accountKey(accountId)} AND a.address ${inTexts(tx.dialect, chunk)}`,
    );
    for (const row of found) {
      const names = tags.get(row.address);
      if (names === undefined) tags.set(row.address, [row.name]);
      else names.push(row.name);
    }
  }
  return tags;
}

/**
 * The tag's id, and whether this call created it (and its empty aggregates) rather than finding
 * it. DO NOTHING, not DO UPDATE: an upsert that finds the row locks it as for an update, which
 * blocks the foreign-key checks of every other request inserting the tag's memberships, and this
 * request then waits for the tag's aggregates row that one of those holds: a deadlock.
 */
export async function createTag(
  tx: Sql,
  accountId: number,
  name: string,
  now: string,
): Promise<{ id: number; created: boolean }> {
  // Each turn either creates the tag or finds it; it goes round again only if the tag that stood in
  // the way was deleted before it could be read.
  for (;;) {
    const [created] = await tx.query<{ id: number | string }>(
      prepared(sql`INSERT INTO tags (account_id, name, created_at, updated_at) VALUES (${accountId}, ${name}, ${now}, ${now})
       ON CONFLICT (account_id, name) DO NOTHING RETURNING id`),
    );
    if (created !== undefined) {
      await createTagStats(tx, Number(created.id));
      return { id: Number(created.id), created: true };
    }
    const existing = await existingTagId(tx, accountId, name);
    if (existing !== undefined) return { id: existing, created: false };
  }
}

/** The tag's id, as last committed; undefined when there is no such tag. */
async function existingTagId(tx: Sql, accountId: number, name: string): Promise<number | undefined> {
  const [found] = await tx.query<{ id: number | string }>(
    prepared(sql`SELECT id FROM tags WHERE account_id = ${accountId} AND name = ${name}`),
  );
  return found === undefined ? undefined : Number(found.id);
}

/**
 * The addresses are not members (checked under their tracked rows' lock, which every change of
 * their memberships takes): a plain INSERT, which PostgreSQL need not look each row up for first.
 */
async function insertMemberships(
  tx: Sql,
  tagId: number,
  accountId: number,
  addresses: readonly string[],
  now: string,
): Promise<void> {
  for (const chunk of addressChunks(addresses)) {
    const values = textRows(
      tx.dialect,
      [chunk.map(() => tagId), chunk.map(() => accountId), chunk, chunk.map(() => now)],
      ['bigint', 'bigint', 'text', 'timestamptz'],
    );
    await tx.execute(prepared(sql`INSERT INTO address_tags (tag_id, account_id, address, created_at) ${values}`));
  }
}
