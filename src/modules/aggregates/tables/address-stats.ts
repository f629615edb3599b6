import type { Sql } from '../../../database/db.service';
import { forShare, inTexts, textRows } from '../../../database/dialect';
import { addressChunks, chunks, prepared, raw, sql, type SqlFragment } from '../../../database/sql';
import { binaryOrder } from '../../../core/text/binary-order';
import { backoff } from '../../../core/time/backoff';
import { HALF_OF_DEADLOCK_TIMEOUT, WAITED_TOO_LONG, withinLockTimeout } from '../../../database/lock-timeout';
import { endsOf, positive, signedEnds } from '../changes';
import { pairedAddresses } from './address-pairs';
import type { DataDelta, KeptAggregate, WriteRound } from '../kept-aggregate';

/**
 * address_stats (address): the address's holdings above zero, and its transactions (either end).
 * Its rows are also the per-address locks of the lock protocol (README.md here): a data write updates
 * (and so locks) the rows of the addresses it changes, a membership change share-locks them.
 */
export const addressStats: KeptAggregate = {
  table: 'address_stats',
  key: ['address'],
  // `version` (which write last changed the row) is not an aggregate: a rewrite leaves it 0.
  columns: ['address', 'holding_count', 'txn_count'],
  kept: () =>
    sql`SELECT address, holding_count, txn_count FROM address_stats WHERE holding_count <> 0 OR txn_count <> 0`,
  // A transaction counts for its sender, and for its recipient unless that is the sender.
  reference: () => sql`SELECT address, SUM(h) AS holding_count, SUM(t) AS txn_count FROM (
      SELECT address, 1 AS h, 0 AS t FROM holdings WHERE balance <> '0'
      UNION ALL SELECT from_address AS address, 0 AS h, 1 AS t FROM transactions
      UNION ALL SELECT to_address AS address, 0 AS h, 1 AS t FROM transactions WHERE to_address <> from_address
    ) e GROUP BY address`,
  dataWrite: () => new AddressStatsDelta(),
};

/**
 * Updates (and so locks) the changed addresses' rows in each round, in key order, and hands on the
 * counts of those above the pairing threshold (`round.overPairing`). PostgreSQL returns only those:
 * a round of an import changes tens of thousands of addresses, a few of which are busy.
 */
class AddressStatsDelta implements DataDelta {
  async round(tx: Sql, round: WriteRound): Promise<void> {
    const addresses = new Map<string, { holdings: number; txns: number }>();
    const delta = (address: string) => {
      let entry = addresses.get(address);
      if (entry === undefined) addresses.set(address, (entry = { holdings: 0, txns: 0 }));
      return entry;
    };
    for (const change of round.holdings)
      delta(change.address).holdings += positive(change.after) - positive(change.before);
    for (const change of round.transfers) {
      for (const [ends, step] of signedEnds(change)) {
        for (const address of endsOf(ends)) delta(address).txns += step;
      }
    }
    if (addresses.size === 0) return;
    const above = pairedAddresses.above;
    const version = await nextVersion(tx);
    const ordered = [...addresses.keys()].sort(binaryOrder);
    for (const chunk of chunks(ordered)) {
      const upsert = sql`INSERT INTO address_stats (address, holding_count, txn_count, version)
          ${textRows(
            tx.dialect,
            [
              chunk,
              chunk.map((address) => addresses.get(address)!.holdings),
              chunk.map((address) => addresses.get(address)!.txns),
              chunk.map(() => version),
            ],
            ['text', 'bigint', 'bigint', 'bigint'],
          )}
          ON CONFLICT (address) DO UPDATE SET holding_count = address_stats.holding_count + excluded.holding_count,
            txn_count = address_stats.txn_count + excluded.txn_count, version = excluded.version`;
      if (!Number.isFinite(above)) {
        await tx.execute(upsert);
        continue;
      }
      const written = await tx.query<{ address: string; txn_count: number | string }>(
        tx.dialect === 'postgres'
          ? sql`WITH written AS (${upsert} RETURNING address, txn_count)
                SELECT address, txn_count FROM written WHERE txn_count > ${above}`
          : sql`${upsert} RETURNING address, txn_count`,
      );
      for (const row of written) {
        const count = Number(row.txn_count);
        if (count > above) round.overPairing.set(row.address, count);
      }
    }
  }

  async finish(): Promise<void> {}
}

/**
 * The version of an empty row a tag change inserts to have a row to lock: the address has no
 * transactions (a data write that gives it one stamps the row), as with the rows from before
 * migration 1763700000190.
 */
const EMPTY_ROW = 1;

/**
 * The next value of the clock that stamps the rows a round changes (`version`, migration
 * 1763700000190): never handed out twice, so a row's version moves with every write of it, rewinds
 * and rewrites included. Every row a round writes has a transaction or a holding of its address
 * changed (or moved) by the round: an address whose version a reader has seen unchanged has the
 * transactions it had then.
 */
async function nextVersion(tx: Sql): Promise<number> {
  const [row] = await tx.query<{ value: number | string }>(
    tx.dialect === 'postgres'
      ? prepared(sql`SELECT nextval('address_stats_clock') AS value`)
      : sql`UPDATE address_stats_clock SET value = value + 1 WHERE id = 1 RETURNING value`,
  );
  return Number(row!.value);
}

/**
 * Shared locks on the addresses' rows (in key order), creating empty rows where there are none;
 * answers each address's kept transaction count, exact while the lock is held.
 *
 * On PostgreSQL a tag change never waits long for one of these rows while holding others: a file
 * import updates address_stats rows in several rounds, each in key order but a later one maybe
 * below an earlier one's, so a change that holds a row the import's next round needs and waits for
 * one its earlier round holds closes a cycle, and PostgreSQL's deadlock check rolls back whichever
 * of the two began waiting first. When that was the import, the whole file failed (it cannot be
 * read twice). So the rows are taken under a savepoint and a lock_timeout of half PostgreSQL's
 * deadlock_timeout: should a wait last longer, the change rolls back to the savepoint (letting go
 * of every row it took here, and of the empty rows it inserted), pauses and takes them again, and
 * a writer waiting for one of them has it before its own deadlock check.
 * Only the transaction's first taking of them: letting go of a later one's rows alone would leave
 * the writer waiting for the earlier ones while the change tried again, for ever. So a change takes
 * every row it may need in its first: a POST or a removal the addresses it names, a tag import
 * those of its file (and, replacing, of the account's members) before any of its slices
 * (shareAddressRowsOf). The change's other waits are on rows a data write never takes (tracked
 * rows) or takes only in its `finish`, after its last address_stats row (README.md, "Locking").
 */
export async function shareAddressRows(tx: Sql, ordered: readonly string[]): Promise<Map<string, number>> {
  if (ordered.length === 0) return new Map();
  return firstTaking(tx, () => lockAddressRows(tx, ordered));
}

/**
 * Shared locks on the rows of the addresses `addresses` selects (a subquery of one `address`
 * column), taken as shareAddressRows takes a list's: empty rows created first, then locked in key
 * order. SQLite runs one writer at a time: nothing to take there, and a change's own reads create
 * the rows.
 */
export async function shareAddressRowsOf(tx: Sql, addresses: SqlFragment): Promise<void> {
  if (tx.dialect !== 'postgres') return;
  await firstTaking(tx, async () => {
    await tx.execute(
      sql`INSERT INTO address_stats (address, holding_count, txn_count, version)
          SELECT DISTINCT address, 0, 0, ${raw(String(EMPTY_ROW))} FROM (${addresses}) a ORDER BY address ON CONFLICT (address) DO NOTHING`,
    );
    await tx.query(
      sql`SELECT COUNT(*) AS n FROM (SELECT address FROM address_stats WHERE address IN (${addresses})
          ORDER BY address${forShare(tx.dialect)}) locked`,
    );
  });
}

/**
 * Runs `take`, which locks address_stats rows, as shareAddressRows describes: on PostgreSQL, the
 * transaction's first taking under the lock_timeout, taken again after a pause for as long as a
 * wait outlasts it; any later one, and every one on SQLite, as it comes.
 */
async function firstTaking<T>(tx: Sql, take: () => Promise<T>): Promise<T> {
  if (tx.dialect !== 'postgres' || holdingAddressRows.has(tx)) return take();
  for (let attempt = 1; ; attempt += 1) {
    const taken = await withinLockTimeout(tx, HALF_OF_DEADLOCK_TIMEOUT, take);
    if (taken !== WAITED_TOO_LONG) {
      holdingAddressRows.add(tx);
      return taken;
    }
    await pause(attempt);
  }
}

/** The transactions (each its own Sql) that hold address_stats rows taken by firstTaking. */
const holdingAddressRows = new WeakSet<Sql>();

/**
 * Before taking the rows again: 20 ms, doubling to 320 ms, each with up to as much again at random.
 * Short beside the lock_timeout: a data write that held a row that long (a follower's range as it
 * catches up) has most likely committed by then, and the next wait is in its turn.
 */
function pause(attempt: number): Promise<void> {
  const base = backoff(attempt - 1, 20, 320);
  return new Promise((resolve) => setTimeout(resolve, base + Math.random() * base));
}

async function lockAddressRows(tx: Sql, ordered: readonly string[]): Promise<Map<string, number>> {
  const txnCounts = new Map<string, number>();
  for (const chunk of addressChunks(ordered)) {
    await tx.execute(
      prepared(sql`INSERT INTO address_stats (address, holding_count, txn_count, version)
          ${textRows(
            tx.dialect,
            [chunk, chunk.map(() => 0), chunk.map(() => 0), chunk.map(() => EMPTY_ROW)],
            ['text', 'bigint', 'bigint', 'bigint'],
          )}
          ON CONFLICT (address) DO NOTHING`),
    );
    const locked = await tx.query<{ address: string; txn_count: number | string }>(
      sql`SELECT address, txn_count FROM address_stats WHERE address ${inTexts(tx.dialect, chunk)}
          ORDER BY address${forShare(tx.dialect)}`,
    );
    for (const row of locked) txnCounts.set(row.address, Number(row.txn_count));
  }
  return txnCounts;
}
