import { walksTag } from './transactions.repository';

describe('walksTag', () => {
  const page = 31;
  const atTenMillion = (transactions: number, members: number) => ({ transactions, members, total: 10_000_000 });

  it('reads a tag of up to walkAbove transactions member by member, however many members it has', () => {
    expect(walksTag(atTenMillion(10_000, 10_000), page, 'postgres')).toBe(false);
    expect(walksTag({ transactions: 10_000, members: 10_000, total: 10_001 }, page, 'postgres')).toBe(false);
  });

  it('reads a larger tag of few members member by member, where walking would read far more', () => {
    // 19 members: at most 1,178 rows by member; walking, about 30,800 before a page is found.
    expect(walksTag(atTenMillion(10_069, 19), page, 'postgres')).toBe(false);
    expect(walksTag(atTenMillion(20_000, 10), page, 'postgres')).toBe(false);
    // 53 members: at most 3,286 rows by member (5 ms on the 10M bench database), about 29,150
    // walked (27 ms).
    expect(walksTag({ transactions: 10_954, members: 53, total: 10_301_290 }, page, 'postgres')).toBe(false);
  });

  it('walks more tags on SQLite, which reads a tag by member whole', () => {
    expect(walksTag({ transactions: 10_954, members: 53, total: 10_301_290 }, page, 'sqlite')).toBe(true);
    expect(walksTag(atTenMillion(10_069, 19), page, 'sqlite')).toBe(false);
  });

  it('walks a tag of many members or whose transactions are a large share of the list', () => {
    // 312 members: up to 19,344 rows by member against about 10,500 walked, each far cheaper.
    expect(walksTag(atTenMillion(29_470, 312), page, 'postgres')).toBe(true);
    expect(walksTag(atTenMillion(2_000_000, 10_000), page, 'postgres')).toBe(true);
    expect(walksTag(atTenMillion(5_000_000, 50), page, 'postgres')).toBe(true);
  });

  it('walks the same tag in a smaller list, where it is a larger share', () => {
    const tag = { transactions: 12_000, members: 20 };
    expect(walksTag({ ...tag, total: 10_000_000 }, page, 'postgres')).toBe(false);
    expect(walksTag({ ...tag, total: 100_000 }, page, 'postgres')).toBe(true);
  });
});
