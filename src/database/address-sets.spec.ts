import { addressSet, addressSetInJoinOrder } from './address-sets';
import { render, sql } from './sql';

describe('address sets', () => {
  const tag = { kind: 'tag', accountId: 3, tagId: 12, revision: 1 } as const;
  const untagged = { kind: 'untagged', accountId: 3 } as const;

  it("selects a tag's addresses by its id", () => {
    expect(render(addressSet(tag), 'postgres')).toEqual({
      text: 'SELECT address FROM address_tags WHERE tag_id = $1',
      params: [12],
    });
  });

  it("selects the account's tracked addresses without a tag for the reserved 0", () => {
    const { text, params } = render(addressSet(untagged), 'sqlite');
    expect(text.replace(/\s+/g, ' ')).toBe(
      'SELECT tr.address FROM tracked_addresses tr WHERE tr.account_id = ? AND tr.tagged = 0',
    );
    expect(params).toEqual([3]);
  });

  it('embeds with its value numbered after the values before it', () => {
    const statement = sql`SELECT COUNT(*) FROM holdings h WHERE h.chain = ${'eth'} AND h.address IN (${addressSet(tag)})`;
    expect(render(statement, 'postgres')).toEqual({
      text: 'SELECT COUNT(*) FROM holdings h WHERE h.chain = $1 AND h.address IN (SELECT address FROM address_tags WHERE tag_id = $2)',
      params: ['eth', 12],
    });
  });

  it('orders by the time an address joined the scope, then by address', () => {
    const page = (scope: typeof tag | typeof untagged) =>
      render(sql`${addressSetInJoinOrder(scope)} LIMIT ${30} OFFSET ${60}`, 'postgres');
    expect(page(tag)).toEqual({
      text: 'SELECT address FROM address_tags WHERE tag_id = $1 ORDER BY created_at, address LIMIT $2 OFFSET $3',
      params: [12, 30, 60],
    });
    expect(page(untagged).text).toMatch(
      /^SELECT tr\.address FROM tracked_addresses tr .* ORDER BY created_at, address LIMIT \$2 OFFSET \$3$/s,
    );
    expect(page(untagged).params).toEqual([3, 30, 60]);
  });
});
