import { DataSource } from 'typeorm';
import { parseDatabaseUrl } from '../src/config/config';
import { addressSet, addressSetInJoinOrder } from '../src/database/address-sets';
import { dataSourceOptions, openDataSource } from '../src/database/data-source';
import { Db } from '../src/database/db.service';
import { bigSum, columnTypes } from '../src/database/dialect';
import { list, prepared, raw, rows, sql, SqlFragment } from '../src/database/sql';
import { DATABASES, emptyDatabase, freshDatabase } from './support/test-app';
import { MIGRATIONS } from '../src/database/migrations';

// The SQL layer under the repositories, on each database: fragments as the drivers receive them,
// the tag-scope address sets, and Db.count.
describe.each(DATABASES)('SQL fragments on %s', (kind) => {
  let db: Db;
  let dataSource: DataSource;
  let drop: () => Promise<void>;
  let accountId: number;

  beforeAll(async () => {
    const database = await freshDatabase(kind);
    drop = database.drop;
    dataSource = await openDataSource(dataSourceOptions(parseDatabaseUrl(database.url)));
    db = new Db(dataSource);
    await db.execute(sql`INSERT INTO accounts (name, created_at) VALUES (${'fragments'}, ${at(0)})`);
    accountId = await idOf(sql`SELECT id FROM accounts WHERE name = ${'fragments'}`);
  });

  afterAll(async () => {
    await dataSource.destroy();
    await drop();
  });

  /** An instant `minutes` after a fixed start, in the form the repositories write. */
  function at(minutes: number): string {
    return new Date(Date.UTC(2025, 0, 1, 0, minutes)).toISOString();
  }

  async function idOf(statement: SqlFragment): Promise<number> {
    const found = await db.query<{ id: number | string }>(statement);
    return Number(found[0]!.id);
  }

  it('binds a value that stands alone in the select list, and the same value twice', async () => {
    const found = await db.query<{ chain: string; same: number | string }>(
      sql`SELECT ${'eth'} AS chain, CASE WHEN ${'a'} = ${'a'} THEN 1 ELSE 0 END AS same`,
    );
    expect(found.map((row) => ({ chain: row.chain, same: Number(row.same) }))).toEqual([{ chain: 'eth', same: 1 }]);
  });

  if (kind === 'postgres') {
    it('binds an array as PostgreSQL reads it back, element for element, whatever its text holds', async () => {
      const texts = [
        '0xAbC',
        'bitcoincash:qq9',
        '0:ab12',
        '',
        ' padded ',
        'a,b',
        '{braced}',
        'quote"d',
        'back\\slash',
        'NULL',
        'null',
        'Null ',
        'ünïcode',
        null,
        '-1.5e10',
      ];
      const [found] = await db.query<{ texts: (string | null)[]; plain: string[]; amounts: string[] }>(
        sql`SELECT CAST(${texts} AS text[]) AS texts, CAST(${['a', '2026-01-01T00:00:00.000Z', 'x_y']} AS text[]) AS plain,
            CAST(CAST(${[1, 2n ** 70n, -3]} AS numeric[]) AS text[]) AS amounts`,
      );
      expect(found).toEqual({
        texts,
        plain: ['a', '2026-01-01T00:00:00.000Z', 'x_y'],
        amounts: ['1', (2n ** 70n).toString(), '-3'],
      });
    });
  }

  it('runs a prepared statement with new values every time, kept under one name per connection on PostgreSQL', async () => {
    const statement = (accountName: string) =>
      prepared(
        sql`SELECT name, CAST(${accountName.length} AS INTEGER) AS size FROM accounts WHERE name = ${accountName}`,
      );
    const names = await db.transaction(async (tx) => {
      // More runs than PostgreSQL plans one by one before it tries a generic plan.
      for (const [index, name] of [
        'fragments',
        'nobody',
        'fragments',
        'x',
        'fragments',
        'nobody',
        'fragments',
        'y',
      ].entries()) {
        const found = await tx.query<{ name: string; size: number | string }>(statement(name));
        expect([index, found.map((row) => ({ name: row.name, size: Number(row.size) }))]).toEqual([
          index,
          name === 'fragments' ? [{ name, size: 9 }] : [],
        ]);
      }
      if (kind === 'sqlite') return [];
      return tx.query<{ name: string; statement: string }>(
        sql`SELECT name, statement FROM pg_prepared_statements WHERE statement LIKE ${'%FROM accounts WHERE name = $2'}`,
      );
    });
    if (kind === 'postgres')
      expect(names).toEqual([{ name: expect.stringMatching(/^chaintags_\d+$/), statement: expect.any(String) }]);
  });

  it('writes rows and reads them back through a list, the same on both databases', async () => {
    const addresses = ['0xc', '0xa', '0xb'];
    const written = await db.execute(
      sql`INSERT INTO tracked_addresses (account_id, address, created_at) VALUES ${rows(
        addresses.map((address, index) => [accountId, address, at(10 + index)]),
      )}`,
    );
    expect(written).toBe(3);
    const found = await db.query<{ address: string }>(
      sql`SELECT address FROM tracked_addresses WHERE account_id = ${accountId} AND address IN (${list(['0xa', '0xc', '0xz'])})
          ORDER BY address`,
    );
    expect(found.map((row) => row.address)).toEqual(['0xa', '0xc']);
    await db.execute(sql`DELETE FROM tracked_addresses WHERE account_id = ${accountId}`);
  });

  it('counts, answering a number whatever the driver returns for COUNT(*)', async () => {
    expect(await db.count(sql`SELECT COUNT(*) FROM tracked_addresses WHERE account_id = ${accountId}`)).toBe(0);
    await db.execute(
      sql`INSERT INTO tracked_addresses (account_id, address, created_at) VALUES ${rows([
        [accountId, '0x1', at(1)],
        [accountId, '0x2', at(2)],
      ])}`,
    );
    expect(await db.count(sql`SELECT COUNT(*) AS n FROM tracked_addresses WHERE account_id = ${accountId}`)).toBe(2);
    await expect(db.count(sql`SELECT COUNT(*) AS n, 1 AS other FROM tracked_addresses`)).rejects.toThrow(
      /one row of one column/,
    );
    await db.execute(sql`DELETE FROM tracked_addresses WHERE account_id = ${accountId}`);
  });

  it('sums 78-digit balances exactly', async () => {
    const big = '9'.repeat(77);
    await db.execute(raw(`CREATE TABLE amounts (amount ${columnTypes(db.dialect).bigDecimal} NOT NULL)`));
    await db.execute(sql`INSERT INTO amounts (amount) VALUES ${rows([[big], [big], ['1']])}`);
    const found = await db.query<{ total: string }>(
      sql`SELECT ${bigSum(db.dialect, raw('a.amount'))} AS total FROM amounts a`,
    );
    expect(String(found[0]!.total)).toBe((2n * BigInt(big) + 1n).toString());
  });

  it('pages a scope by the time its addresses joined it, then by address, leaving tagged ones out of 0', async () => {
    // Joined in an order that is neither address order nor insertion order.
    const joined: [address: string, minute: number][] = [
      ['0xd', 5],
      ['0xa', 7],
      ['0xc', 5],
      ['0xb', 1],
      ['0xe', 3],
      ['0x0', 5],
    ];
    await db.execute(
      sql`INSERT INTO tracked_addresses (account_id, address, created_at) VALUES ${rows(
        joined.map(([address, minute]) => [accountId, address, at(minute)]),
      )}`,
    );
    await db.execute(
      sql`INSERT INTO tags (account_id, name, created_at, updated_at) VALUES (${accountId}, ${'watch'}, ${at(0)}, ${at(0)})`,
    );
    const tagId = await idOf(sql`SELECT id FROM tags WHERE account_id = ${accountId} AND name = ${'watch'}`);
    await db.execute(
      sql`INSERT INTO address_tags (tag_id, account_id, address, created_at) VALUES ${rows([
        [tagId, accountId, '0xe', at(20)],
        [tagId, accountId, '0xa', at(20)],
        [tagId, accountId, '0xc', at(9)],
      ])}`,
    );
    // Written by hand here: the flag a membership change keeps (the kept aggregate trackedTagged).
    await db.execute(
      sql`UPDATE tracked_addresses SET tagged = 1 WHERE account_id = ${accountId} AND address IN (${list(['0xe', '0xa', '0xc'])})`,
    );
    const tag = { kind: 'tag', accountId, tagId, revision: 1 } as const;
    const untagged = { kind: 'untagged', accountId } as const;
    const page = async (scope: typeof tag | typeof untagged, offset: number, limit: number) =>
      (await db.query<{ address: string }>(sql`${addressSetInJoinOrder(scope)} LIMIT ${limit} OFFSET ${offset}`)).map(
        (row) => row.address,
      );

    expect(await page(tag, 0, 10)).toEqual(['0xc', '0xa', '0xe']);
    expect(await page(tag, 1, 1)).toEqual(['0xa']);
    expect(await page(untagged, 0, 10)).toEqual(['0xb', '0x0', '0xd']);
    expect(await page(untagged, 2, 5)).toEqual(['0xd']);
    expect(await db.count(sql`SELECT COUNT(*) FROM (${addressSet(untagged)}) m`)).toBe(3);
    expect(await db.count(sql`SELECT COUNT(*) FROM (${addressSet(tag)}) m`)).toBe(3);
  });
});

describe('migrations on postgres', () => {
  it('are applied once by processes that start together on an empty database, and each of them opens', async () => {
    const database = await emptyDatabase('postgres');
    try {
      const options = dataSourceOptions(parseDatabaseUrl(database.url));
      // Four processes' worth of connections (each kept small): every one reads the same pending list.
      const small = { ...options, extra: { ...(options.extra as object), min: 0, max: 3 } } as typeof options;
      const opened = await Promise.allSettled(Array.from({ length: 4 }, () => openDataSource(small)));
      const sources = opened.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
      try {
        expect(opened.map((result) => (result.status === 'rejected' ? String(result.reason) : 'opened'))).toEqual(
          Array(4).fill('opened'),
        );
        const applied = await sources[0]!.query<{ name: string }[]>('SELECT name FROM migrations ORDER BY id');
        expect(applied.map((row) => row.name)).toEqual(MIGRATIONS.map((migration) => new migration().name));
      } finally {
        await Promise.all(sources.map((source) => source.destroy()));
      }
    } finally {
      await database.drop();
    }
  });
});
