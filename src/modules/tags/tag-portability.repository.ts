import { Injectable } from '@nestjs/common';
import {
  applyMembersPart,
  lockTrackedSet,
  readMembersPart,
  shareAddressRowsOf,
} from '../aggregates/aggregates.service';
import { accountKey } from '../../database/address-sets';
import { countOf, Db, Sql } from '../../database/db.service';
import { analyze, columnTypes, forUpdate, textRows } from '../../database/dialect';
import { chunks, prepared, raw, sql, SqlFragment } from '../../database/sql';
import { UNTAGGED } from '../../core/tags/tag-rules';
import { binaryOrder } from '../../core/text/binary-order';
import type { TagPair } from './portability/tag-files';
import {
  CapExceeded,
  Change,
  createTag,
  MAX_TAG_CHANGE_ATTEMPTS,
  membersChanged,
  removeMembers,
  TagDeletedMeanwhile,
} from './tags.repository';

export type ImportMode = 'merge' | 'replace';

/** What an import changed (or, in a dry run, would change), counted in (address, tag) pairs. */
export interface ImportCounts {
  /** Distinct addresses in the file. */
  addresses: number;
  added: number;
  removed: number;
  unchanged: number;
}

export type ImportOutcome =
  { ok: true; counts: ImportCounts } | { ok: false; overLimit: { address: string; tag_count: number }[] };

/** An address and its tags, ascending; none for an address tracked without a tag. */
export interface ExportedAddress {
  address: string;
  tags: string[];
}

/** Addresses an export reads per statement: one page held in memory at a time. */
const EXPORT_PAGE = 1000;
/** Addresses an import adds to or removes from one tag per step: one slice held in memory at a time. */
const IMPORT_SLICE = 5000;
/** Pairs staged per statement: two values each, so at most 5,000 bound values (see ROWS_PER_STATEMENT). */
const STAGED_PER_STATEMENT = 2500;
/** Addresses over the cap a refusal names at most. */
export const MAX_CAP_DETAILS = 100;

/** Rolls the import's transaction back once everything is counted. */
class DryRun extends Error {
  constructor(readonly counts: ImportCounts) {
    super('dry run');
  }
}

/**
 * Export and import of an account's tags. An import changes membership as a POST and a DELETE do
 * (tags.repository.ts), in one transaction for the whole file: the same cap lock on the tracked
 * rows, the same kept aggregates (readMembersPart / applyMembersPart), a DELETE's own removal, and
 * history entries for every address added or removed.
 */
@Injectable()
export class TagPortabilityRepository {
  constructor(private readonly db: Db) {}

  /**
   * Every address the account tracks with its tags, in address order, a page at a time: each page
   * is one statement from where the last ended, so memory holds one page whatever the account's
   * size, and a consumer that stops asking stops the reading.
   */
  async *exportPages(accountId: number): AsyncGenerator<ExportedAddress[]> {
    let after = '';
    for (;;) {
      const tracked = await this.db.query<{ address: string }>(
        prepared(
          sql`SELECT address FROM tracked_addresses WHERE account_id = ${accountId} AND address > ${after}
              ORDER BY address LIMIT ${EXPORT_PAGE}`,
        ),
      );
      if (tracked.length === 0) return;
      const page = tracked.map((row): ExportedAddress => ({ address: row.address, tags: [] }));
      const byAddress = new Map(page.map((entry) => [entry.address, entry.tags]));
      // The page's tags are one range of the (account_id, address) index, read in one pass.
      const tagged = await this.db.query<{ address: string; name: string }>(
        prepared(
          sql`SELECT a.address, t.name FROM address_tags a JOIN tags t ON t.id = a.tag_id
              WHERE a.account_id = ${accountId} AND a.address >= ${page[0]!.address}
              AND a.address <= ${page[page.length - 1]!.address}`,
        ),
      );
      for (const row of tagged) byAddress.get(row.address)?.push(row.name);
      for (const entry of page) entry.tags.sort(binaryOrder);
      yield page;
      after = page[page.length - 1]!.address;
    }
  }

  /**
   * Makes the account's tags take in (merge) or equal (replace) the pairs, all in one transaction,
   * or changes nothing when an address would carry more than `cap` tags; a dry run counts and rolls
   * back. `pairs` is read once per attempt (PostgreSQL may run the transaction again after a
   * deadlock, and so does a tag of the file deleted under the import), into a temporary table: the
   * file's size costs database pages, not memory.
   *
   * Order of work, as the locking notes of tags.repository.ts and src/modules/aggregates/README.md want it:
   * the file's tags are created first (as a POST does before its locks), then the address_stats
   * rows of every address whose memberships may change are share-locked at once, then the tracked
   * rows of the file's addresses (all of the account's, for a replace) are locked in address order,
   * and only then is the cap counted and membership changed, tag by tag, a slice at a time.
   */
  async importPairs(
    accountId: number,
    pairs: () => AsyncIterable<readonly TagPair[]>,
    options: { mode: ImportMode; dryRun: boolean },
    cap: number,
    change: Change,
  ): Promise<ImportOutcome> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const counts = await this.db.transaction(async (tx) => {
          const counts = await importInto(tx, accountId, pairs, options.mode, cap, change);
          if (options.dryRun) throw new DryRun(counts);
          return counts;
        });
        return { ok: true, counts };
      } catch (error) {
        if (error instanceof DryRun) return { ok: true, counts: error.counts };
        if (error instanceof CapExceeded) return { ok: false, overLimit: error.overLimit };
        if (error instanceof TagDeletedMeanwhile && attempt < MAX_TAG_CHANGE_ATTEMPTS) continue;
        throw error;
      }
    }
  }
}

async function importInto(
  tx: Sql,
  accountId: number,
  pairs: () => AsyncIterable<readonly TagPair[]>,
  mode: ImportMode,
  cap: number,
  change: Change,
): Promise<ImportCounts> {
  const types = columnTypes(tx.dialect);
  // Dropped before the commit; a rollback takes its creation back on both databases.
  await tx.execute(
    sql`CREATE TEMP TABLE import_pairs (address ${raw(types.text)} NOT NULL, tag ${raw(types.text)} NOT NULL,
        PRIMARY KEY (tag, address))`,
  );
  const stage = (chunk: readonly TagPair[]) =>
    tx.execute(
      sql`INSERT INTO import_pairs (address, tag)
          ${textRows(tx.dialect, [chunk.map((pair) => pair.address), chunk.map((pair) => pair.tag)])}
          ON CONFLICT DO NOTHING`,
    );
  let pending: TagPair[] = [];
  for await (const batch of pairs()) {
    pending.push(...batch);
    if (pending.length < STAGED_PER_STATEMENT) continue;
    const whole = pending.length - (pending.length % STAGED_PER_STATEMENT);
    for (const chunk of chunks(pending.slice(0, whole), STAGED_PER_STATEMENT)) await stage(chunk);
    pending = pending.slice(whole);
  }
  if (pending.length > 0) await stage(pending);
  // PostgreSQL keeps no statistics of a temporary table by itself; the statements below are planned from these.
  const statistics = analyze(tx.dialect, 'import_pairs');
  if (statistics !== undefined) await tx.execute(statistics);
  const [staged] = await tx.query<{ addresses: number | string; tagged: number | string; untagged: number | string }>(
    sql`SELECT COUNT(DISTINCT address) AS addresses,
          COALESCE(SUM(CASE WHEN tag <> ${UNTAGGED} THEN 1 ELSE 0 END), 0) AS tagged,
          COALESCE(SUM(CASE WHEN tag = ${UNTAGGED} THEN 1 ELSE 0 END), 0) AS untagged
        FROM import_pairs`,
  );
  const addresses = Number(staged?.addresses ?? 0);
  const taggedPairs = Number(staged?.tagged ?? 0);
  const untaggedPairs = Number(staged?.untagged ?? 0);

  const names = await tx.query<{ tag: string }>(
    sql`SELECT DISTINCT tag FROM import_pairs WHERE tag <> ${UNTAGGED} ORDER BY tag`,
  );
  // The account's tracked set first (lockTrackedSet), before any tag or row: held alone by a
  // replace, so that no change adds a member between the reading of them below and its removals.
  await lockTrackedSet(tx, accountId, mode === 'replace' ? 'replacing' : 'adding');
  const fileTags: { id: number; name: string }[] = [];
  for (const { tag } of names) fileTags.push({ id: (await createTag(tx, accountId, tag, change.now)).id, name: tag });
  // Every address whose memberships the import may change, before any of them is read (the slices
  // below find their rows held): taken at once, so that the import never waits for one of them
  // while holding others that a data write waits for (src/modules/aggregates/README.md, "Locking").
  const changing = sql`SELECT address FROM import_pairs WHERE tag <> ${UNTAGGED}`;
  await shareAddressRowsOf(
    tx,
    mode === 'replace'
      ? sql`${changing} UNION ALL SELECT address FROM address_tags WHERE account_id = ${accountId}`
      : changing,
  );

  // A `0` pair adds the address when it was not tracked before.
  const account = sql`CAST(${accountId} AS ${raw(types.bigint)})`;
  const now = sql`CAST(${change.now} AS ${raw(types.timestamp)})`;
  const track = async (): Promise<number> => {
    const untracked = await tx.execute(
      sql`INSERT INTO tracked_addresses (account_id, address, created_at)
          SELECT ${account}, address, ${now} FROM import_pairs WHERE tag = ${UNTAGGED} ORDER BY address
          ON CONFLICT (account_id, address) DO NOTHING`,
    );
    // An address the file tags gets its tags below (or the import rolls back): tracked as tagged.
    await tx.execute(
      sql`INSERT INTO tracked_addresses (account_id, address, created_at, tagged)
          SELECT ${account}, address, ${now}, 1 FROM (SELECT DISTINCT address FROM import_pairs WHERE tag <> ${UNTAGGED}) d
          WHERE 1 = 1 ORDER BY address
          ON CONFLICT (account_id, address) DO NOTHING`,
    );
    return untracked;
  };
  // The cap's lock, as a POST takes it, on every address the import may change; answers how many
  // of the file's addresses it holds. A replace holds every address of the account, and keeps which
  // (import_held): what it removes is only theirs. It holds the account's tracked set alone
  // (above), so no change tracks an address meanwhile; a change it waited for there has
  // committed, and its locking statement sees all that change did.
  // A replace counts apart from its locking statement: joining the locked rows to the file could
  // stop reading them early (an empty file's replace would lock none).
  if (mode === 'replace') {
    await tx.execute(sql`CREATE TEMP TABLE import_held (address ${raw(types.text)} NOT NULL PRIMARY KEY)`);
  }
  const lock = async (): Promise<number> => {
    if (mode === 'replace') {
      await tx.execute(
        sql`INSERT INTO import_held (address)
            SELECT address FROM tracked_addresses WHERE account_id = ${accountKey(accountId)}
            AND NOT EXISTS (SELECT 1 FROM import_held h WHERE h.address = tracked_addresses.address)
            ORDER BY address${forUpdate(tx.dialect)}`,
      );
      return countOf(
        await tx.query(
          sql`SELECT COUNT(*) FROM (SELECT DISTINCT address FROM import_pairs) p
              WHERE p.address IN (SELECT address FROM import_held)`,
        ),
      );
    }
    return countOf(
      await tx.query(
        sql`SELECT COUNT(*) FROM (SELECT address FROM tracked_addresses WHERE account_id = ${accountKey(accountId)}
            AND address IN (SELECT address FROM import_pairs) ORDER BY address${forUpdate(tx.dialect)}) held`,
      ),
    );
  };
  let newlyTracked = await track();
  // A row the inserts found and another change deleted before the lock (an untracking, another
  // replace) is skipped by it: inserted again, as this import's own.
  while ((await lock()) < addresses) newlyTracked += await track();

  let removed = 0;
  if (mode === 'replace') removed = await removeWhatTheFileLacks(tx, accountId, change);

  const overLimit = await tx.query<{ address: string; tag_count: number | string }>(
    sql`SELECT address, current_count AS tag_count FROM (
          SELECT p.address, COUNT(*) AS adding,
            (SELECT COUNT(*) FROM address_tags a WHERE a.account_id = ${accountId} AND a.address = p.address) AS current_count
          FROM import_pairs p
          WHERE p.tag <> ${UNTAGGED} AND NOT EXISTS (
            SELECT 1 FROM tags t JOIN address_tags a ON a.tag_id = t.id
            WHERE t.account_id = ${accountId} AND t.name = p.tag AND a.address = p.address)
          GROUP BY p.address) c
        WHERE current_count + adding > ${cap} ORDER BY address LIMIT ${MAX_CAP_DETAILS}`,
  );
  if (overLimit.length > 0) {
    throw new CapExceeded(overLimit.map((row) => ({ address: row.address, tag_count: Number(row.tag_count) })));
  }

  // The file's tagged addresses that are tracked untagged get their first tag below: their rows'
  // flag flips now, under the lock taken above (rows inserted above are flagged already).
  await tx.execute(
    sql`UPDATE tracked_addresses SET tagged = 1 WHERE account_id = ${accountKey(accountId)} AND tagged = 0
        AND address IN (SELECT address FROM import_pairs WHERE tag <> ${UNTAGGED})`,
  );

  let added = 0;
  for (const tag of [...fileTags].sort((a, b) => a.id - b.id)) {
    const slices = addressSlices(
      tx,
      (after) =>
        sql`SELECT p.address FROM import_pairs p WHERE p.tag = ${tag.name} AND p.address > ${after}
            AND NOT EXISTS (SELECT 1 FROM address_tags a WHERE a.tag_id = ${tag.id} AND a.address = p.address)
            ORDER BY p.address LIMIT ${IMPORT_SLICE}`,
    );
    let changed = false;
    for await (const slice of slices) {
      // As a POST: what the addresses bring to the tag is counted before they are members. The
      // tag's row is held from its first slice on, so only that one can find it deleted.
      if (!(await applyMembersPart(tx, tag.id, await readMembersPart(tx, tag.id, slice), 1))) {
        throw new TagDeletedMeanwhile();
      }
      // The slice is the file's addresses of the tag from its first to its last that are not members
      // (nobody can make them members meanwhile: their tracked rows are locked), written from the
      // staged table in one statement each rather than bound value by value.
      const fresh = sql`FROM import_pairs p WHERE p.tag = ${tag.name} AND p.address >= ${slice[0]}
        AND p.address <= ${slice[slice.length - 1]}
        AND NOT EXISTS (SELECT 1 FROM address_tags a WHERE a.tag_id = ${tag.id} AND a.address = p.address)`;
      await tx.execute(
        sql`INSERT INTO tag_history (account_id, tag, address, action, key_prefix, at)
            SELECT ${account}, ${tag.name}, p.address, 'added', ${change.key}, ${now} ${fresh} ORDER BY p.address`,
      );
      await tx.execute(
        sql`INSERT INTO address_tags (tag_id, account_id, address, created_at)
            SELECT CAST(${tag.id} AS ${raw(types.bigint)}), ${account}, p.address, ${now} ${fresh} ORDER BY p.address`,
      );
      added += slice.length;
      changed = true;
    }
    if (changed) await membersChanged(tx, tag.id, change.now);
  }

  await tx.execute(sql`DROP TABLE import_pairs`);
  if (mode === 'replace') await tx.execute(sql`DROP TABLE import_held`);
  return {
    addresses,
    added: added + newlyTracked,
    removed,
    unchanged: taggedPairs - added + (untaggedPairs - newlyTracked),
  };
}

/**
 * For a replace: every membership of the account's tags that the file does not list goes, as a
 * DELETE of those addresses would take it; addresses the file does not name at all stop being
 * tracked. Answers the pairs removed: memberships, and a `0` for each address that carried no tag.
 * Only the addresses the replace holds (import_held) are changed: no other change can move their
 * memberships meanwhile, so each slice read is what its removal finds.
 */
async function removeWhatTheFileLacks(tx: Sql, accountId: number, change: Change): Promise<number> {
  // Whether the file names an address at all is asked of every address the replace holds: by an
  // index (the pairs' key starts with the tag), and as NOT EXISTS. PostgreSQL answers `NOT IN` over
  // a subquery larger than work_mem by scanning it for each row: a replace with 250,000 addresses
  // took minutes on that statement alone.
  await tx.execute(sql`CREATE INDEX import_pairs_by_address ON import_pairs (address)`);
  const held = sql`IN (SELECT address FROM import_held)`;
  const [untracking] = await tx.query<{ n: number | string }>(
    sql`SELECT COUNT(*) AS n FROM tracked_addresses tr WHERE tr.account_id = ${accountId} AND tr.address ${held}
        AND NOT EXISTS (SELECT 1 FROM import_pairs p WHERE p.address = tr.address)
        AND NOT EXISTS (SELECT 1 FROM address_tags a WHERE a.account_id = tr.account_id AND a.address = tr.address)`,
  );
  let removed = Number(untracking?.n ?? 0);
  const tags = await tx.query<{ id: number | string; name: string }>(
    sql`SELECT id, name FROM tags WHERE account_id = ${accountId} ORDER BY id`,
  );
  for (const row of tags) {
    const tag = { accountId, tagId: Number(row.id), name: row.name };
    const slices = addressSlices(
      tx,
      (after) =>
        sql`SELECT a.address FROM address_tags a WHERE a.tag_id = ${tag.tagId} AND a.address > ${after}
            AND a.address ${held}
            AND NOT EXISTS (SELECT 1 FROM import_pairs p WHERE p.tag = ${tag.name} AND p.address = a.address)
            ORDER BY a.address LIMIT ${IMPORT_SLICE}`,
    );
    for await (const slice of slices) removed += (await removeMembers(tx, tag, slice, change)).removed;
  }
  await tx.execute(
    sql`DELETE FROM tracked_addresses WHERE account_id = ${accountId} AND address ${held}
        AND NOT EXISTS (SELECT 1 FROM import_pairs p WHERE p.address = tracked_addresses.address)
        AND NOT EXISTS (SELECT 1 FROM address_tags a WHERE a.account_id = tracked_addresses.account_id
                        AND a.address = tracked_addresses.address)`,
  );
  return removed;
}

/**
 * The addresses a keyset query selects, a slice per statement: `select(after)` answers, in address
 * order, the (at most IMPORT_SLICE) addresses after `after` that are still to do.
 */
async function* addressSlices(tx: Sql, select: (after: string) => SqlFragment): AsyncGenerator<string[]> {
  let after = '';
  for (;;) {
    const slice = (await tx.query<{ address: string }>(select(after))).map((row) => row.address);
    if (slice.length === 0) return;
    yield slice;
    after = slice[slice.length - 1]!;
  }
}
