import { ReservedSetCounts, type MemberVersion } from './reserved-set-counts';

const set = (...members: [string, number][]): MemberVersion[] =>
  members.map(([address, version]) => ({ address, version }));

/** What the plan asks for, answered from `received` (0 where absent), then settled. */
function readAndSettle(
  memo: ReservedSetCounts,
  accountId: number,
  members: MemberVersion[],
  received: Record<string, number>,
): { read: string[]; shared: number } {
  const { read, settle } = memo.plan(accountId, members);
  return { read, shared: settle(new Map(read.map((address) => [address, received[address] ?? 0]))) };
}

const toRead = (memo: ReservedSetCounts, accountId: number, members: MemberVersion[]) =>
  memo.plan(accountId, members).read;

describe('ReservedSetCounts', () => {
  it('reads every member the first time, then only those whose version moved or is 0', () => {
    const memo = new ReservedSetCounts();
    const first = readAndSettle(memo, 1, set(['a', 5], ['b', 7], ['c', 0]), { a: 2, b: 1 });
    expect(first).toEqual({ read: ['a', 'b', 'c'], shared: 3 });

    // b was written since (version 9): its count is read again, a's remembered, c's never trusted.
    const second = readAndSettle(memo, 1, set(['a', 5], ['b', 9], ['c', 0]), { b: 4, c: 1 });
    expect(second).toEqual({ read: ['b', 'c'], shared: 2 + 4 + 1 });

    const third = readAndSettle(memo, 1, set(['a', 5], ['b', 9], ['c', 0]), { c: 1 });
    expect(third).toEqual({ read: ['c'], shared: 7 });
  });

  it('reads the whole set again when its addresses differ from the ones remembered', () => {
    const memo = new ReservedSetCounts();
    readAndSettle(memo, 1, set(['a', 5], ['b', 7]), { a: 1, b: 1 });
    // Same size, another member: every count depends on who the others are.
    expect(readAndSettle(memo, 1, set(['a', 5], ['d', 3]), { a: 0, d: 0 }).read).toEqual(['a', 'd']);
    // A member left.
    expect(readAndSettle(memo, 1, set(['a', 5]), {}).read).toEqual(['a']);
    // A member joined.
    expect(readAndSettle(memo, 1, set(['a', 5], ['b', 7]), { a: 1, b: 1 })).toEqual({ read: ['a', 'b'], shared: 2 });
    // Every member left: nothing to read, and nothing between two of them.
    expect(readAndSettle(memo, 1, [], {})).toEqual({ read: [], shared: 0 });
    expect(readAndSettle(memo, 1, [], {})).toEqual({ read: [], shared: 0 });
  });

  it('keeps accounts apart', () => {
    const memo = new ReservedSetCounts();
    expect(memo.remembers(1)).toBe(false);
    readAndSettle(memo, 1, set(['a', 5]), { a: 0 });
    expect([memo.remembers(1), memo.remembers(2)]).toEqual([true, false]);
    expect(toRead(memo, 2, set(['a', 5]))).toEqual(['a']);
    expect(toRead(memo, 1, set(['a', 5]))).toEqual([]);
    memo.forget(1);
    expect(memo.remembers(1)).toBe(false);
    expect(toRead(memo, 1, set(['a', 5]))).toEqual(['a']);
  });

  it('refuses to count a member it neither read nor remembers', () => {
    const memo = new ReservedSetCounts();
    expect(() => memo.plan(1, set(['a', 5])).settle(new Map())).toThrow(/were not read/);
  });

  it('counts a read from what was remembered when it was planned, not from a read settled meanwhile', () => {
    const memo = new ReservedSetCounts();
    readAndSettle(memo, 1, set(['a', 5], ['b', 7]), { a: 1, b: 2 });
    // An older snapshot's read, planned first: nothing to read there.
    const older = memo.plan(1, set(['a', 5], ['b', 7]));
    expect(older.read).toEqual([]);
    // A newer one, where b was written, settles first.
    expect(readAndSettle(memo, 1, set(['a', 5], ['b', 9]), { b: 10 }).shared).toBe(11);
    expect(older.settle(new Map())).toBe(3);
    // The older read, which read nothing, leaves the newer one remembered.
    expect(toRead(memo, 1, set(['a', 5], ['b', 9]))).toEqual([]);
    // An older read that did read settles last: it is remembered, and b read again at version 9.
    const stale = memo.plan(1, set(['a', 4], ['b', 9]));
    expect(stale.read).toEqual(['a']);
    readAndSettle(memo, 1, set(['a', 5], ['b', 9]), {});
    expect(stale.settle(new Map([['a', 1]]))).toBe(11);
    expect(toRead(memo, 1, set(['a', 5], ['b', 9]))).toEqual(['a']);
  });

  it('remembers no set over its limit, and lets the least recently read accounts go beyond it', () => {
    const memo = new ReservedSetCounts(3);
    readAndSettle(memo, 1, set(['a', 1], ['b', 1], ['c', 1], ['d', 1]), {});
    expect(toRead(memo, 1, set(['a', 1], ['b', 1], ['c', 1], ['d', 1]))).toHaveLength(4);

    readAndSettle(memo, 1, set(['a', 1], ['b', 1]), {});
    readAndSettle(memo, 2, set(['x', 1]), {});
    expect(toRead(memo, 1, set(['a', 1], ['b', 1]))).toEqual([]);
    // Account 1 read again, then account 3's two members: account 2, read least recently, goes.
    readAndSettle(memo, 1, set(['a', 1], ['b', 1]), {});
    readAndSettle(memo, 3, set(['y', 1], ['z', 1]), {});
    expect(toRead(memo, 2, set(['x', 1]))).toEqual(['x']);
    expect(toRead(memo, 3, set(['y', 1], ['z', 1]))).toEqual([]);
  });
});
