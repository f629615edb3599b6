import type { Sql } from '../../database/db.service';
import { bigSum, filterOnly, forKeyShare, inTexts, joinedText } from '../../database/dialect';
import { ADDRESSES_PER_STATEMENT, addressChunks, chunks, list, prepared, raw, sql } from '../../database/sql';
import { binaryOrder } from '../../core/text/binary-order';
import type { TagPart } from './kept-aggregate';
import { KEPT_AGGREGATES } from './registry';
import { pairedAddresses, pairedAmong } from './tables/address-pairs';
import { shareAddressRows } from './tables/address-stats';
import { lockTag, lockTags } from './tables/tag-stats';
import { lockTrackedRows, lockTrackedSet } from './tables/tracked-tagged';

/**
 * What a set of addresses brings to a tag's aggregates, read before the tag's row is locked: it
 * does not depend on who the tag's members are.
 */
export interface MembersPart {
  /** Canonical and distinct, in binary order. */
  addresses: readonly string[];
  /** Their holdings above zero, per token in key order: how many, and their balance sum. */
  holdings: TagPart['holdings'];
  /** Transactions with an end among the addresses, each once. */
  transactions: number;
  /** Each address's kept transaction count (exact while its address_stats row is share-locked). */
  transactionCounts: ReadonlyMap<string, number>;
  /**
   * Those over the pairing threshold that are paired (address_pairs): fixed while their rows are
   * share-locked, since only a data write that changes an address's count pairs it.
   */
  paired: ReadonlySet<string>;
  /**
   * Those whose transactions with the members are looked up under the tag's lock (busyAddresses),
   * chosen by the member count read before the lock; in binary order.
   */
  busy: readonly string[];
  /**
   * What finds the transactions whose other end is a member, once the tag's row is locked. Not
   * read (undefined) when the tag had no members; applyMembersPart checks that again under the
   * lock and reads them then if it has some by now.
   */
  otherEnds: OtherEnds | undefined;
}

/**
 * The addresses' transactions whose other end is not among them, split by what finding the
 * members among those other ends costs: a quiet address's transactions are read (before the lock)
 * and counted by their other end; a busy one's are found under the lock through the pair indexes
 * (busyWithMembers), so that a busy address costs in proportion to the tag, not to its history.
 */
interface OtherEnds {
  counterparties: Map<string, number>;
  busy: readonly string[];
  /**
   * The transactions between two of the addresses (not to itself) that the quiet ones' reading
   * saw: each quiet address's sent ones, and its received ones from a busy address.
   */
  amongQuiet: number;
}

/**
 * Shared locks on the addresses' address_stats rows (in binary order), for a change that may read
 * some of them only later: every address it may add to a tag must be locked before its
 * tracked_addresses rows (README.md, "Locking"). A row this transaction holds already is not waited
 * for again.
 */
export async function shareAddresses(tx: Sql, addresses: readonly string[]): Promise<void> {
  await shareAddressRows(tx, [...new Set(addresses)].sort(binaryOrder));
}

/**
 * Takes a shared lock on the addresses' address_stats rows (creating empty ones), then reads their
 * part for the tag. Costs in proportion to their holdings and to the quiet ones' transactions.
 *
 * The addresses' transactions (each once) are the sum of their kept txn_count (exact: the rows are
 * locked against data writes) less the transactions between two of them, which that sum counts for
 * both ends; those are found in the index entries of their recipients, without reading rows. When
 * the tag has members, the transactions with a member must not count again (readOtherEnds), and
 * the quiet addresses' reading for that also gives their part of the transactions among them.
 * `created`: the tag is this transaction's own (createTag), which no other transaction sees before
 * the commit: it has no members yet, and nothing to read for that.
 */
export async function readMembersPart(
  tx: Sql,
  tagId: number,
  addresses: readonly string[],
  created = false,
): Promise<MembersPart> {
  const ordered = [...new Set(addresses)].sort(binaryOrder);
  const transactionCounts = await shareAddressRows(tx, ordered);
  const held = new Map<string, TagPart['holdings'][number]>();
  for (const chunk of addressChunks(ordered)) {
    const holdings = await tx.query<{ chain: string; token_address: string; n: number | string; balance: string }>(
      sql`SELECT chain, token_address, COUNT(*) AS n, ${bigSum(tx.dialect, raw('balance'))} AS balance FROM holdings
          WHERE address ${inTexts(tx.dialect, chunk)} AND balance <> '0' GROUP BY chain, token_address`,
    );
    for (const row of holdings) {
      const key = `${row.chain} ${row.token_address}`;
      const entry = held.get(key) ?? { chain: row.chain, token_address: row.token_address, count: 0, balance: 0n };
      entry.count += Number(row.n);
      entry.balance += BigInt(row.balance);
      held.set(key, entry);
    }
  }
  // An address without transactions is an end of none.
  const active = ordered.filter((address) => (transactionCounts.get(address) ?? 0) > 0);
  const ends = active.reduce((sum, address) => sum + transactionCounts.get(address)!, 0);
  // Only an address over the threshold can be worth reading from its pairs; one paired earlier whose
  // count fell back under it is counted from its transactions, which is as exact.
  const candidates = active.filter((address) => transactionCounts.get(address)! > pairedAddresses.above);
  const paired = candidates.length > 0 ? await pairedAmong(tx, candidates) : new Set<string>();
  const members = created ? 0 : await memberCount(tx, tagId);
  const busy = busyAmong(active, transactionCounts, members);
  const otherEnds = members > 0 ? await readOtherEnds(tx, ordered, transactionCounts, busy) : undefined;
  // The quiet addresses' transactions among the addresses are read with them; the busy ones'
  // among themselves are looked up.
  const among =
    otherEnds === undefined
      ? await betweenThemselves(tx, active, paired, transactionCounts)
      : otherEnds.amongQuiet + (await betweenThemselves(tx, otherEnds.busy, paired, transactionCounts));
  return {
    addresses: ordered,
    holdings: [...held.values()].sort(
      (a, b) => binaryOrder(a.chain, b.chain) || binaryOrder(a.token_address, b.token_address),
    ),
    transactions: ends - among,
    transactionCounts,
    paired,
    busy,
    otherEnds,
  };
}

/**
 * Adds (`sign` 1) or takes away (-1) the part of `part.addresses` in the tag's aggregates: their
 * holdings, and their transactions whose other end is none of the tag's other members. Locks the
 * tag's row first, so call it while those addresses are not members: before their memberships are
 * inserted, or after they are deleted. A tag deleted meanwhile is left alone: answers false then.
 */
export async function applyMembersPart(tx: Sql, tagId: number, part: MembersPart, sign: 1 | -1): Promise<boolean> {
  if (part.addresses.length === 0) return true;
  const members = await lockTag(tx, tagId);
  if (members === undefined) return false;
  const shared = await sharedWithMembers(tx, tagId, part, members);
  if (sign > 0) await membersJoining(tx, tagId, part.addresses);
  await changeAggregates(tx, tagId, part, shared, sign);
  return true;
}

/**
 * Makes the addresses of `part` members of the tag: `join` inserts their memberships. Holds the
 * tag's row (its aggregates' row, lockTag) for as little as it can, since every other change of
 * the tag waits for it until this transaction commits: what does not depend on who the other
 * members are (each added address's kept rows, and the memberships unless an address is busy) is
 * written before that lock, under a key-share lock of the tag's own row, which keeps the tag from
 * being deleted meanwhile (the memberships have no foreign key on PostgreSQL, migration
 * 1763700000160). Under the lock the transactions with the members are counted. A tag deleted
 * meanwhile is left alone: answers false then. A tag this transaction `created` needs neither lock
 * (no other transaction sees it before the commit) and has no other members: three statements
 * fewer for most POSTs (bench/README.md, change 52).
 */
export async function addMembers(
  tx: Sql,
  tagId: number,
  part: MembersPart,
  join: (addresses: readonly string[]) => Promise<void>,
  created = false,
): Promise<boolean> {
  if (part.addresses.length === 0) return true;
  if (!created && !(await keyShareTag(tx, tagId))) return false;
  // With busy addresses among them, the memberships wait for the count: the busy ones' lookups go
  // through the members, and would find the others and cost them too.
  const early = part.busy.length === 0;
  if (early) await join(part.addresses);
  await membersJoining(tx, tagId, part.addresses);
  const members = created ? 0 : await lockTag(tx, tagId);
  if (members === undefined) return false;
  const shared = await sharedWithMembers(tx, tagId, part, members, early);
  if (!early) await join(part.addresses);
  await changeAggregates(tx, tagId, part, shared, 1);
  return true;
}

/**
 * The transactions of `part` whose other end is a member of the tag (`members` of them, as kept),
 * under the tag's lock. `joined`: the addresses of `part` are members already (addMembers, when
 * none of them is busy); they are none of the counterparties, so only the busy ones' lookups would
 * find them, and there must be none then.
 */
async function sharedWithMembers(
  tx: Sql,
  tagId: number,
  part: MembersPart,
  members: number,
  joined = false,
): Promise<number> {
  // The tag had no members when the part was read; another change may have added some since. Which
  // addresses are busy is chosen again by their number, unless they have joined already.
  const busy = joined ? part.busy : busyAmong(part.addresses, part.transactionCounts, members);
  const otherEnds =
    part.otherEnds ?? (members > 0 ? await readOtherEnds(tx, part.addresses, part.transactionCounts, busy) : undefined);
  if (otherEnds === undefined) return 0;
  return (
    (await countWithMembers(tx, tagId, otherEnds.counterparties, members)) +
    (await busyWithMembers(tx, tagId, otherEnds.busy, part, members))
  );
}

/** Each kept aggregate's rows of the addresses joining the tag that depend on them alone. */
async function membersJoining(tx: Sql, tagId: number, addresses: readonly string[]): Promise<void> {
  if (addresses.length === 0) return;
  for (const aggregate of KEPT_AGGREGATES) await aggregate.membersJoining?.(tx, tagId, addresses);
}

async function changeAggregates(tx: Sql, tagId: number, part: MembersPart, shared: number, sign: 1 | -1) {
  const tagPart: TagPart = {
    addresses: part.addresses.length,
    members: part.addresses,
    holdings: part.holdings,
    transactions: part.transactions - shared,
  };
  for (const aggregate of KEPT_AGGREGATES) await aggregate.membersChanged?.(tx, tagId, tagPart, sign);
}

/** A key-share lock on the tag's row: answers false for a tag deleted meanwhile. */
async function keyShareTag(tx: Sql, tagId: number): Promise<boolean> {
  const found = await tx.query(prepared(sql`SELECT id FROM tags WHERE id = ${tagId}${forKeyShare(tx.dialect)}`));
  return found.length > 0;
}

/** The tag's member count as last committed (exact under the tag's lock, a guess before it). */
async function memberCount(tx: Sql, tagId: number): Promise<number> {
  const [row] = await tx.query<{ address_count: number | string }>(
    prepared(sql`SELECT address_count FROM tag_stats WHERE tag_id = ${tagId}`),
  );
  return Number(row?.address_count ?? 0);
}

/**
 * Which addresses are busy. A quiet address's transactions are read before the tag's lock and sent
 * to the service, their other ends counted (otherEndsOf); a busy one's are counted against the
 * members under the lock, in the database (busyWithMembers: its transactions with members read
 * from its pair index entries on PostgreSQL, or looked up member by member above
 * `lookedUpPerMember` transactions per member, and always on SQLite). An address is busy when it
 * has more than `perMember` transactions per member of the tag and more than `atLeast` in all.
 * Only the cost depends on these: the property tests run with every address quiet (`perMember`
 * Infinity), every one busy and looked up (all 0), every one busy and read (PostgreSQL), and all
 * three kinds in one change.
 */
export const busyAddresses = { perMember: 4, atLeast: 1_000, lookedUpPerMember: 40 };

/** Those of the addresses that are busy for a tag of `members` members, in their order. */
function busyAmong(addresses: readonly string[], transactionCounts: ReadonlyMap<string, number>, members: number) {
  const busyAbove = Math.max(busyAddresses.atLeast, members * busyAddresses.perMember);
  return addresses.filter((address) => (transactionCounts.get(address) ?? 0) > busyAbove);
}

/**
 * The addresses' transactions whose other end is not among them: the quiet addresses' read and
 * counted by that other end (per chunk, the sent ones by recipient and the received ones by
 * sender), the busy ones named for busyWithMembers; and the quiet ones' transactions among the
 * addresses. Which addresses are busy (readMembersPart chooses them by the member count read before
 * the tag's lock) changes only the cost, not the counts.
 */
async function readOtherEnds(
  tx: Sql,
  ordered: readonly string[],
  transactionCounts: ReadonlyMap<string, number>,
  busy: readonly string[],
): Promise<OtherEnds> {
  const isBusy = new Set(busy);
  const quiet = ordered.filter((address) => !isBusy.has(address) && (transactionCounts.get(address) ?? 0) > 0);
  const inPart = new Set(ordered);
  const counterparties = new Map<string, number>();
  let amongQuiet = 0;
  const count = (other: string, n: number) => counterparties.set(other, (counterparties.get(other) ?? 0) + n);
  for (const chunk of entryChunks(quiet, transactionCounts)) {
    for (const [other, n] of await otherEndsOf(tx, chunk, 'sent')) {
      if (inPart.has(other)) amongQuiet += n;
      else count(other, n);
    }
    // From another quiet address: counted with its sender above.
    for (const [other, n] of await otherEndsOf(tx, chunk, 'received')) {
      if (isBusy.has(other)) amongQuiet += n;
      else if (!inPart.has(other)) count(other, n);
    }
  }
  return { counterparties, busy, amongQuiet };
}

/**
 * The other ends of the addresses' transactions, sent or received (not to themselves), with how
 * many each: `address n` pairs joined by spaces into one text, which the service splits, rather
 * than a row each. At 10M transactions the 1,000 quiet addresses of a request have some 24,000
 * other ends each way, whose rows the database driver took apart one by one (bench/README.md,
 * change 69). No address holds a space.
 */
async function otherEndsOf(
  tx: Sql,
  addresses: readonly string[],
  direction: 'sent' | 'received',
): Promise<[other: string, n: number][]> {
  const [own, other] = direction === 'sent' ? ['from_address', 'to_address'] : ['to_address', 'from_address'];
  const [row] = await tx.query<{ ends: string | null }>(
    sql`SELECT ${joinedText(tx.dialect, sql`e.other || ' ' || e.n`, ' ')} AS ends
        FROM (SELECT ${raw(other)} AS other, COUNT(*) AS n FROM transactions WHERE ${raw(own)} ${inTexts(tx.dialect, addresses)}
          AND to_address <> from_address GROUP BY ${raw(other)}) AS e`,
  );
  const words = row?.ends?.split(' ') ?? [];
  const ends: [string, number][] = [];
  for (let index = 0; index < words.length; index += 2) ends.push([words[index]!, Number(words[index + 1])]);
  return ends;
}

/**
 * The addresses in chunks of at most ADDRESSES_PER_STATEMENT and, by their kept counts, at most
 * `quietReads.entriesPerStatement` transactions (one address with more makes a chunk of its own):
 * what one statement's text of other ends may hold.
 */
function entryChunks(addresses: readonly string[], transactionCounts: ReadonlyMap<string, number>): string[][] {
  const result: string[][] = [];
  let chunk: string[] = [];
  let entries = 0;
  for (const address of addresses) {
    const count = transactionCounts.get(address) ?? 0;
    if (
      chunk.length > 0 &&
      (chunk.length === ADDRESSES_PER_STATEMENT || entries + count > quietReads.entriesPerStatement)
    ) {
      result.push(chunk);
      chunk = [];
      entries = 0;
    }
    chunk.push(address);
    entries += count;
  }
  if (chunk.length > 0) result.push(chunk);
  return result;
}

/**
 * How many transactions' other ends one statement of readOtherEnds reads back at most, by the
 * addresses' kept counts (a text of some 50 bytes each); the property tests read a few at a time.
 */
export const quietReads = { entriesPerStatement: 1_000_000 };

/**
 * The transactions between the busy addresses and the tag's members, in both directions, under the
 * tag's lock: it depends on who the members are. The members are none of the busy addresses, so no
 * transaction is to itself. On PostgreSQL a busy address's transactions are read from its entries
 * in the two narrow pair indexes (transactions_by_sender_pair for those it sent,
 * transactions_by_pair for those it received: about 90 entries a page, a twentieth of a lookup
 * each at 10M transactions) and matched against the memberships, unless it has more than
 * `lookedUpPerMember` transactions per member: then each (member, address) pair is looked up,
 * whatever its history holds (bench/README.md, changes 57 and 58), and for a paired address its
 * paired members' transactions are read from their kept counts instead (lookUpMembers). SQLite
 * joins without hashing: reading an address's entries would cost a membership lookup for each of
 * them, more than its lookups of the members, so it looks every pair up.
 */
async function busyWithMembers(
  tx: Sql,
  tagId: number,
  busy: readonly string[],
  part: Pick<MembersPart, 'transactionCounts' | 'paired'>,
  members: number,
): Promise<number> {
  const lookUpAbove = tx.dialect === 'postgres' ? members * busyAddresses.lookedUpPerMember : -1;
  const counted = (address: string) => part.transactionCounts.get(address) ?? 0;
  const read = busy.filter((address) => counted(address) <= lookUpAbove);
  const lookedUp = busy.filter((address) => counted(address) > lookUpAbove);
  const [paired, unpaired] = [
    lookedUp.filter((address) => part.paired.has(address)),
    lookedUp.filter((address) => !part.paired.has(address)),
  ];
  let count = 0;
  for (const direction of DIRECTIONS) {
    for (const chunk of chunks(unpaired, BUSY_PER_STATEMENT)) count += await lookUpMembers(tx, tagId, chunk, direction);
    for (const chunk of chunks(paired, BUSY_PER_STATEMENT)) {
      count += await lookUpMembers(tx, tagId, chunk, direction, true);
    }
    for (const chunk of addressChunks(read)) count += await readWithMembers(tx, tagId, chunk, direction);
  }
  return count;
}

/** A busy address's transactions to the members, or from them. */
type Direction = 'toMembers' | 'fromMembers';
const DIRECTIONS: readonly Direction[] = ['toMembers', 'fromMembers'];

/** The busy address's column and the member's, for a direction. */
function endsOf(direction: Direction): [own: string, member: string] {
  return direction === 'toMembers' ? ['from_address', 'to_address'] : ['to_address', 'from_address'];
}

/**
 * The addresses' transactions to or from a member, from their entries in the pair index that starts
 * with their own end, matched against the tag's memberships (hashed). PostgreSQL only
 * (busyWithMembers). The entries are read on their own (`OFFSET 0`), or the planner, which believes
 * a tag has its average number of members, may start from the members and read each member's whole
 * history.
 */
async function readWithMembers(tx: Sql, tagId: number, busy: readonly string[], direction: Direction): Promise<number> {
  const [own, member] = endsOf(direction);
  const [row] = await tx.query<{ n: number | string }>(
    sql`SELECT COUNT(*) AS n FROM (SELECT ${raw(member)} AS other FROM transactions WHERE ${raw(own)} ${inTexts(tx.dialect, busy)} OFFSET 0) AS ends
        JOIN address_tags m ON m.tag_id = ${tagId} AND m.address = ends.other`,
  );
  return Number(row?.n ?? 0);
}

/**
 * The addresses' transactions to or from the members, each (member, address) pair looked up in a
 * pair index. PostgreSQL is given each pair as a subquery of its own (`LATERAL`), a shape it can
 * only run as a lookup of both columns: given the addresses as `IN (…)` or as a table to join, it
 * reads every entry of each member (for a tag of busy members, their histories) or of each address
 * (bench/README.md, change 57). SQLite looks `IN (…)` on the index's second column up value by
 * value.
 *
 * `paired`: the addresses are paired, so their transactions with a paired member are its kept
 * count in address_pairs, and only the other members are looked up. In one statement, so that a
 * member that a data write pairs meanwhile is counted one way or the other: its transactions with
 * the addresses do not change while their rows are share-locked, and its pairs appear when it does.
 */
async function lookUpMembers(
  tx: Sql,
  tagId: number,
  busy: readonly string[],
  direction: Direction,
  paired = false,
): Promise<number> {
  const [own, member] = endsOf(direction);
  const unpairedOnly = paired
    ? sql`AND NOT EXISTS (SELECT 1 FROM paired_addresses q WHERE q.address = m.address)`
    : sql``;
  const lookedUp =
    tx.dialect === 'postgres'
      ? sql`SELECT COALESCE(SUM(c.n), 0) FROM address_tags m CROSS JOIN unnest(CAST(${busy} AS text[])) AS b(address)
            CROSS JOIN LATERAL (SELECT COUNT(*) AS n FROM transactions t
              WHERE t.${raw(member)} = m.address AND t.${raw(own)} = b.address) AS c
            WHERE m.tag_id = ${tagId} ${unpairedOnly}`
      : sql`SELECT COUNT(*) FROM address_tags m JOIN transactions t ON t.${raw(member)} = m.address
            AND t.${raw(own)} IN (${list(busy)}) WHERE m.tag_id = ${tagId} ${unpairedOnly}`;
  const kept = paired
    ? sql` + (SELECT COALESCE(SUM(p.n), 0) FROM address_pairs p
          JOIN address_tags m ON m.tag_id = ${tagId} AND m.address = p.${raw(member)}
          WHERE p.${raw(own)} ${inTexts(tx.dialect, busy)})`
    : sql``;
  const [row] = await tx.query<{ n: number | string | null }>(sql`SELECT (${lookedUp})${kept} AS n`);
  return Number(row?.n ?? 0);
}

/** Busy addresses per statement when looked up: each is looked up against every member, so a few at a time. */
const BUSY_PER_STATEMENT = 16;

/** Senders to match in one statement: one reading of the recipients' index entries for all of them. */
const SENDERS_PER_STATEMENT = 10_000;

/**
 * Transactions from one of the addresses to another one of them (not to itself), in three parts:
 * between two paired ones, their kept counts; to an unpaired one, from its received entries; from
 * an unpaired one to a paired one, from its sent entries. So no paired address's entries are read:
 * only those of addresses with at most `pairedAddresses.above` transactions, unless an address
 * went over that without a write pairing it yet (a paired address's count may fall below it).
 * `paired`: those of the addresses that are paired. Only worth it while the paired ones' entries
 * (which it saves reading) outnumber the unpaired ones' (whose sent entries it reads as well): a
 * watch list with one or two paired addresses among 1,000 is counted from all their received
 * entries, as exactly.
 */
async function betweenThemselves(
  tx: Sql,
  ordered: readonly string[],
  paired: ReadonlySet<string>,
  transactionCounts: ReadonlyMap<string, number>,
): Promise<number> {
  const entries = (addresses: readonly string[]) =>
    addresses.reduce((sum, address) => sum + (transactionCounts.get(address) ?? 0), 0);
  const split = ordered.filter((address) => paired.has(address));
  const both = entries(split) > entries(ordered) - entries(split) ? split : [];
  const unpaired = both.length === 0 ? ordered : ordered.filter((address) => !paired.has(address));
  let count = 0;
  if (both.length > 1) {
    for (const senders of addressChunks(both)) {
      for (const recipients of chunks(both, SENDERS_PER_STATEMENT)) count += await keptBetween(tx, senders, recipients);
    }
  }
  for (const recipients of addressChunks(unpaired)) {
    for (const senders of chunks(ordered, SENDERS_PER_STATEMENT)) {
      // The sender as a condition on the recipients' entries only. SQLite, given both lists against
      // transactions_by_pair, looks every recipient and sender pair up (1,000² for a full request:
      // 216 ms where reading the recipients' entries takes 6-9 ms); PostgreSQL's planner weighs the
      // two by its statistics.
      const [row] = await tx.query<{ n: number | string }>(
        sql`SELECT COUNT(*) AS n FROM transactions WHERE to_address ${inTexts(tx.dialect, recipients)}
            AND ${filterOnly(tx.dialect, 'from_address')} ${inTexts(tx.dialect, senders)} AND from_address <> to_address`,
      );
      count += Number(row?.n ?? 0);
    }
  }
  if (both.length > 0) {
    for (const senders of addressChunks(unpaired)) {
      for (const recipients of chunks(both, SENDERS_PER_STATEMENT)) count += await sentTo(tx, senders, recipients);
    }
  }
  return count;
}

/**
 * The kept transactions from the senders to the recipients, all of them paired. Read from the
 * senders' rows and matched against the recipients: given both lists against the key, PostgreSQL
 * may look every pair up.
 */
async function keptBetween(tx: Sql, senders: readonly string[], recipients: readonly string[]): Promise<number> {
  const [row] = await tx.query<{ n: number | string | null }>(
    tx.dialect === 'postgres'
      ? sql`SELECT SUM(p.n) AS n FROM (SELECT to_address, n FROM address_pairs
            WHERE from_address ${inTexts(tx.dialect, senders)} OFFSET 0) AS p WHERE p.to_address ${inTexts(tx.dialect, recipients)}`
      : sql`SELECT SUM(n) AS n FROM address_pairs WHERE from_address IN (${list(senders)})
            AND +to_address IN (${list(recipients)})`,
  );
  return Number(row?.n ?? 0);
}

/**
 * Transactions from the senders to the recipients (none of them a sender), from the senders'
 * entries in transactions_by_sender_pair, matched against the recipients (paired, with long
 * histories whose entries are not read).
 */
async function sentTo(tx: Sql, senders: readonly string[], recipients: readonly string[]): Promise<number> {
  const [row] = await tx.query<{ n: number | string }>(
    tx.dialect === 'postgres'
      ? sql`SELECT COUNT(*) AS n FROM (SELECT to_address FROM transactions
            WHERE from_address ${inTexts(tx.dialect, senders)} OFFSET 0) AS sent WHERE sent.to_address ${inTexts(tx.dialect, recipients)}`
      : sql`SELECT COUNT(*) AS n FROM transactions WHERE from_address IN (${list(senders)})
            AND +to_address IN (${list(recipients)})`,
  );
  return Number(row?.n ?? 0);
}

/** A tag with at most this many times as many members as counterparties is read whole, rather than probed. */
const READ_MEMBERS_WHOLE = 4;

/**
 * The transactions among `counterparties` whose other end is a member of the tag. Under the tag's
 * lock, so it reads the fewer of the two sides: the tag's members (about `members`), or the
 * counterparties' memberships of it.
 */
async function countWithMembers(
  tx: Sql,
  tagId: number,
  counterparties: ReadonlyMap<string, number>,
  members: number,
): Promise<number> {
  if (counterparties.size === 0) return 0;
  let shared = 0;
  if (members <= counterparties.size * READ_MEMBERS_WHOLE) {
    const found = await tx.query<{ address: string }>(sql`SELECT address FROM address_tags WHERE tag_id = ${tagId}`);
    for (const row of found) shared += counterparties.get(row.address) ?? 0;
    return shared;
  }
  for (const chunk of addressChunks([...counterparties.keys()])) {
    const found = await tx.query<{ address: string }>(
      sql`SELECT address FROM address_tags WHERE tag_id = ${tagId} AND address ${inTexts(tx.dialect, chunk)}`,
    );
    for (const row of found) shared += counterparties.get(row.address) ?? 0;
  }
  return shared;
}

/**
 * Deleting a tag, once its row is locked (lockForMembershipChange) and before its memberships are
 * deleted: the kept rows that its deletion does not take with it by a foreign key's cascade.
 */
export async function deleteTagAggregates(tx: Sql, tagId: number): Promise<void> {
  for (const aggregate of KEPT_AGGREGATES) await aggregate.tagDeleted?.(tx, tagId);
}

/**
 * Before removing addresses from a tag or deleting it, the locks in the order every membership
 * change takes them: shared on the addresses' address_stats rows (as readMembersPart), then the
 * tracked rows of the addresses whose memberships change (the cap's lock, under which `tagged` is
 * written), then the tag's row (as applyMembersPart). A tag's deletion shares no address_stats row;
 * `changing` is then its members as last committed, read before any lock. Answers those of
 * `changing` that have no tracked row (not tracked: no change can give them a membership meanwhile),
 * and whether the tag was still there under its name to lock (false: another request deleted or
 * renamed it after this one found it; a rename holds the tag's row while it renames, lockForRename).
 */
export async function lockForMembershipChange(
  tx: Sql,
  tag: { tagId: number; accountId: number; name: string },
  shared: readonly string[],
  changing: readonly string[] = shared,
): Promise<{ untracked: string[]; live: boolean }> {
  await shareAddressRows(tx, [...new Set(shared)].sort(binaryOrder));
  const untracked = await lockTrackedRows(tx, tag.accountId, [...new Set(changing)].sort(binaryOrder));
  const live = (await lockTags(tx, [tag.tagId])).length > 0 && (await stillNamed(tx, tag.tagId, tag.name));
  return { untracked, live };
}

/**
 * Before renaming a tag: the account's tracked set alone, which every tag assignment and import
 * holds shared from its start, before it finds its tags by name (so none of them is under way, and
 * none finds the tag by either name until the rename commits), then the tag's row, which removals
 * and deletions lock before they check the name (lockForMembershipChange). Answers the tag's id,
 * or undefined when the account has no tag of that name.
 */
export async function lockForRename(tx: Sql, accountId: number, name: string): Promise<number | undefined> {
  await lockTrackedSet(tx, accountId, 'replacing');
  const [found] = await tx.query<{ id: number | string }>(
    sql`SELECT id FROM tags WHERE account_id = ${accountId} AND name = ${name}`,
  );
  if (found === undefined) return undefined;
  const id = Number(found.id);
  // Deleted between the two statements: no tag of that name.
  return (await lockTag(tx, id)) === undefined ? undefined : id;
}

/** Whether the tag still has that name (its row locked by the caller). */
async function stillNamed(tx: Sql, tagId: number, name: string): Promise<boolean> {
  const found = await tx.query(prepared(sql`SELECT id FROM tags WHERE id = ${tagId} AND name = ${name}`));
  return found.length > 0;
}
