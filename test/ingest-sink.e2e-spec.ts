import type { HoldingInput, RecordInput } from '../src/core/records/record-input';
import { Db, Sql } from '../src/database/db.service';
import { findDrift } from '../src/modules/aggregates/aggregates.service';
import { list, sql } from '../src/database/sql';
import { rowsPerLoad } from '../src/database/dialect';
import { IngestService } from '../src/modules/ingest/ingest.service';
import type { WrittenRecords } from '../src/modules/ingest/sink/pending-writes';
import { CommitPolicy, RecordSink } from '../src/modules/ingest/sink/record-sink';
import type { WriteHook } from '../src/modules/ingest/sink/write-hook';
import type { SourceBatch } from '../src/modules/ingest/sources/record-source';
import { deployment, evmAddress, ndjson, TestAddress } from './support/factories';
import { DATABASES, startOnFreshDatabase, TestApp } from './support/test-app';

/**
 * Service tests of the ingest pipeline on a real database: the sink (taken from the Nest app) with
 * its commit policies and write hooks, fed by in-memory sources rather than files.
 */

const TETHER = deployment('tether', 'ethereum').address;

function holders(group: string, count: number): TestAddress[] {
  return Array.from({ length: count }, (_v, index) => evmAddress(`${group}-${index}`));
}

function holding(holder: TestAddress): HoldingInput {
  return {
    type: 'holding',
    chain: 'ethereum',
    address: holder.input,
    token_address: TETHER,
    balance: '1',
    updated_at: '2024-07-01T00:00:00Z',
  };
}

/** One batch per group of holders, positions numbered on from one batch to the next. */
function batchesOf(groups: readonly (readonly RecordInput[])[]): SourceBatch[] {
  let position = 0;
  return groups.map((records) => ({ items: records.map((record) => ({ position: ++position, record })) }));
}

/** An in-memory source that counts the batches taken from it and can fail after the given ones. */
function inMemory(batches: readonly SourceBatch[], failure?: Error): AsyncIterable<SourceBatch> & { taken: number } {
  const source = {
    taken: 0,
    async *[Symbol.asyncIterator]() {
      for (const batch of batches) {
        source.taken += 1;
        // A source answers later, as a node or a file does.
        await new Promise((resolve) => setImmediate(resolve));
        yield batch;
      }
      if (failure !== undefined) throw failure;
    },
  };
  return source;
}

/** A hook that throws once the written records include the given holder: after that batch's rows are written. */
function failingAt(holder: TestAddress, message: string): WriteHook {
  return {
    afterBatch: (_tx: Sql, records: WrittenRecords) => {
      if (records.holdings.some((row) => row.address === holder.canonical)) throw new Error(message);
      return Promise.resolve();
    },
  };
}

describe.each(DATABASES)('ingest sink on %s', (kind) => {
  let t: TestApp;
  let db: Db;
  let sink: RecordSink;

  beforeAll(async () => {
    t = await startOnFreshDatabase(kind);
    db = t.app.get(Db);
    sink = t.app.get(RecordSink);
  });

  afterAll(async () => {
    await t.close();
  });

  /** How many of the holders hold tether on ethereum in the database. */
  async function stored(addresses: readonly TestAddress[]): Promise<number> {
    const rows = await db.query<{ n: number | string }>(
      sql`SELECT COUNT(*) AS n FROM holdings WHERE chain = 'ethereum' AND token_address = ${TETHER}
          AND address IN (${list(addresses.map((address) => address.canonical))})`,
    );
    return Number(rows[0]?.n);
  }

  /** Tether's holders on ethereum as the kept aggregates count them (token_holders). */
  async function keptHolders(): Promise<number> {
    const rows = await db.query<{ holders: number | string }>(
      sql`SELECT holders FROM token_holders WHERE chain = 'ethereum' AND token_address = ${TETHER}`,
    );
    return Number(rows[0]?.holders ?? 0);
  }

  async function hookRows(prefix: string): Promise<{ name: string; value: string }[]> {
    const rows = await db.query<{ name: string; value: number | string }>(
      sql`SELECT name, value FROM revisions WHERE name LIKE ${`${prefix}%`} ORDER BY name`,
    );
    return rows.map((row) => ({ name: row.name, value: String(row.value) }));
  }

  describe('per-batch policy', () => {
    it('commits each batch on its own: when batch 3 fails, batches 1 and 2 stay and batch 3 is absent', async () => {
      const groups = [1, 2, 3, 4].map((index) => holders(`per-batch-fail-${index}`, 5));
      const source = inMemory(batchesOf(groups.map((group) => group.map(holding))));
      const holdersBefore = await keptHolders();

      await expect(
        sink.write(source, { policy: 'per-batch', hooks: [failingAt(groups[2]![0]!, 'batch 3 failed')] }),
      ).rejects.toThrow('batch 3 failed');

      expect(await Promise.all(groups.map(stored))).toEqual([5, 5, 0, 0]);
      expect(source.taken).toBe(3);
      expect(await keptHolders()).toBe(holdersBefore + 10);
    });

    it('stops at a batch with an invalid record: the batches before it stay, none of that batch is written', async () => {
      const groups = [1, 2, 3, 4].map((index) => holders(`per-batch-invalid-${index}`, 4));
      const records = groups.map((group) => group.map(holding));
      records[2]![1] = { ...records[2]![1]!, balance: '-5' };
      const source = inMemory(batchesOf(records));
      const holdersBefore = await keptHolders();

      const report = await sink.write(source, { policy: 'per-batch' });

      expect(report).toMatchObject({
        committed: false,
        commits: 2,
        read: 12,
        invalid: 1,
        invalidItems: [{ position: 10, reason: 'holding: balance must be a string of 1 to 78 digits, got "-5"' }],
      });
      expect(await Promise.all(groups.map(stored))).toEqual([4, 4, 0, 0]);
      expect(source.taken).toBe(3);
      expect(await keptHolders()).toBe(holdersBefore + 8);
    });

    it('writes the valid records of every batch with skipInvalid', async () => {
      const groups = [1, 2].map((index) => holders(`per-batch-skip-${index}`, 3));
      const records = groups.map((group) => group.map(holding));
      records[0]![0] = { ...records[0]![0]!, updated_at: '2024-07-01' };
      const report = await sink.write(inMemory(batchesOf(records)), { policy: 'per-batch', skipInvalid: true });
      expect(report).toMatchObject({ committed: true, commits: 2, invalid: 1, valid: { holding: 5 } });
      expect(await Promise.all(groups.map(stored))).toEqual([2, 3]);
    });

    it('keeps the batches committed before the source fails', async () => {
      const groups = [1, 2].map((index) => holders(`per-batch-source-${index}`, 3));
      const source = inMemory(batchesOf(groups.map((group) => group.map(holding))), new Error('node went away'));
      await expect(sink.write(source, { policy: 'per-batch' })).rejects.toThrow('node went away');
      expect(await Promise.all(groups.map(stored))).toEqual([3, 3]);
    });
  });

  describe('whole-input policy', () => {
    it('commits everything in one transaction, writing up to rowsPerLoad records at a time', async () => {
      // 500 records at a time on SQLite, 5,000 on PostgreSQL: two and a fifth batches' worth either way.
      const size = rowsPerLoad(kind);
      const group = holders('whole-ok', size * 2 + size / 5);
      const third = Math.ceil(group.length / 3);
      const sizes: number[] = [];
      const holdersBefore = await keptHolders();
      const report = await sink.write(
        inMemory(
          batchesOf(
            [group.slice(0, third), group.slice(third, 2 * third), group.slice(2 * third)].map((g) => g.map(holding)),
          ),
        ),
        {
          policy: 'whole-input',
          hooks: [{ afterBatch: (_tx, records) => Promise.resolve(void sizes.push(records.holdings.length)) }],
        },
      );
      expect(report).toMatchObject({
        committed: true,
        commits: 1,
        read: group.length,
        valid: { holding: group.length },
      });
      expect(sizes).toEqual([size, size, size / 5]);
      expect(await stored(group)).toBe(group.length);
      expect(await keptHolders()).toBe(holdersBefore + group.length);
    });

    it('writes nothing when any record is invalid, and still reports every one', async () => {
      const groups = [1, 2, 3].map((index) => holders(`whole-invalid-${index}`, 300));
      const records = groups.map((group) => group.map(holding));
      records[0]![5] = { ...records[0]![5]!, chain: 'tron' };
      records[2]![299] = { ...records[2]![299]!, balance: '1.5' };
      const holdersBefore = await keptHolders();

      const report = await sink.write(inMemory(batchesOf(records)), { policy: 'whole-input' });

      expect(report).toMatchObject({ committed: false, commits: 0, read: 900, invalid: 2, valid: { holding: 898 } });
      expect(report.invalidItems.map((item) => item.position)).toEqual([6, 900]);
      expect(await Promise.all(groups.map(stored))).toEqual([0, 0, 0]);
      expect(await keptHolders()).toBe(holdersBefore);
    });

    it('writes nothing when a write fails after earlier records were written', async () => {
      const group = holders('whole-write-fails', 1200);
      const source = inMemory(batchesOf([group.slice(0, 600), group.slice(600)].map((g) => g.map(holding))));
      const holdersBefore = await keptHolders();
      // The first 500 are written as a batch of their own; the failure comes with the second.
      await expect(
        sink.write(source, { policy: 'whole-input', rowsPerBatch: 500, hooks: [failingAt(group[700]!, 'disk full')] }),
      ).rejects.toThrow('disk full');
      expect(await stored(group)).toBe(0);
      expect(await keptHolders()).toBe(holdersBefore);
    });

    it('writes nothing when the source fails part-way', async () => {
      const group = holders('whole-source-fails', 700);
      const source = inMemory(batchesOf([group.map(holding)]), new Error('unexpected end of file'));
      await expect(sink.write(source, { policy: 'whole-input' })).rejects.toThrow('unexpected end of file');
      expect(await stored(group)).toBe(0);
    });
  });

  describe('write hooks', () => {
    /** Writes, in the transaction, how many of the batch's holdings that transaction can already read. */
    function recordingHook(prefix: string): WriteHook {
      let calls = 0;
      return {
        afterBatch: async (tx, records) => {
          calls += 1;
          const visible = await tx.query<{ n: number | string }>(
            sql`SELECT COUNT(*) AS n FROM holdings WHERE chain = 'ethereum' AND token_address = ${TETHER}
                AND address IN (${list(records.holdings.map((row) => row.address))})`,
          );
          await tx.execute(
            sql`INSERT INTO revisions (name, value) VALUES (${`${prefix}${calls}`}, ${Number(visible[0]?.n)})`,
          );
        },
      };
    }

    it.each<CommitPolicy>(['per-batch', 'whole-input'])(
      'run inside the write transaction under %s: they see its rows, and what they write commits with them',
      async (policy) => {
        const prefix = `hook-ok-${policy}:`;
        const groups = [1, 2].map((index) => holders(`hook-ok-${policy}-${index}`, 3));
        await sink.write(inMemory(batchesOf(groups.map((group) => group.map(holding)))), {
          policy,
          hooks: [recordingHook(prefix)],
        });
        const expected =
          policy === 'per-batch'
            ? [
                { name: `${prefix}1`, value: '3' },
                { name: `${prefix}2`, value: '3' },
              ]
            : [{ name: `${prefix}1`, value: '6' }];
        expect(await hookRows(prefix)).toEqual(expected);
      },
    );

    it('roll back with the batch that fails after them (per-batch)', async () => {
      const prefix = 'hook-rollback-per-batch:';
      const groups = [1, 2].map((index) => holders(`hook-rollback-per-batch-${index}`, 3));
      let commits = 0;
      const failOnSecondCommit: WriteHook = {
        beforeCommit: () => (++commits === 2 ? Promise.reject(new Error('commit refused')) : Promise.resolve()),
      };
      await expect(
        sink.write(inMemory(batchesOf(groups.map((group) => group.map(holding)))), {
          policy: 'per-batch',
          hooks: [recordingHook(prefix), failOnSecondCommit],
        }),
      ).rejects.toThrow('commit refused');
      expect(await hookRows(prefix)).toEqual([{ name: `${prefix}1`, value: '3' }]);
      expect(await Promise.all(groups.map(stored))).toEqual([3, 0]);
    });

    it('roll back with the input when a later record is invalid (whole-input)', async () => {
      const prefix = 'hook-rollback-whole:';
      const group = holders('hook-rollback-whole', 600);
      const records = group.map(holding);
      records[599] = { ...records[599]!, token_address: 'not-a-token' };
      const report = await sink.write(inMemory(batchesOf([records.slice(0, 550), records.slice(550)])), {
        policy: 'whole-input',
        hooks: [recordingHook(prefix)],
      });
      expect(report).toMatchObject({ committed: false, invalid: 1 });
      expect(await hookRows(prefix)).toEqual([]);
      expect(await stored(group)).toBe(0);
    });
  });

  describe('loading rows that are new, stored already, or repeated', () => {
    const TIMES = ['2024-07-01T00:00:00Z', '2024-07-02T00:00:00Z', '2024-07-03T00:00:00Z'];

    function transfer(id: string, from: TestAddress, to: TestAddress, value: string): RecordInput {
      return {
        type: 'transaction',
        id,
        chain: 'ethereum',
        token_address: '0',
        from_address: from.input,
        to_address: to.input,
        value,
        tx_hash: `0x${id}`,
        block_number: 7,
        block_hash: '0xb7',
        block_time: '2024-07-01T00:00:00.25Z',
      };
    }

    function heldAt(holder: TestAddress, balance: string, time: string): RecordInput {
      return { ...holding(holder), balance, updated_at: time };
    }

    /**
     * What the rows must be after the records are written in turn, one by one: a transaction id
     * takes its last record; a holding takes a record at least as recent as what it has.
     */
    function model(
      records: readonly RecordInput[],
      people: readonly TestAddress[],
    ): {
      transactions: Map<string, { from_address: string; to_address: string; value: string }>;
      holdings: Map<string, { balance: string; updated_at: string }>;
    } {
      const canonical = new Map(people.map((address) => [address.input, address.canonical]));
      const transactions = new Map<string, { from_address: string; to_address: string; value: string }>();
      const holdings = new Map<string, { balance: string; updated_at: string }>();
      for (const record of records) {
        if (record.type === 'transaction') {
          transactions.set(record.id, {
            from_address: canonical.get(record.from_address)!,
            to_address: canonical.get(record.to_address)!,
            value: record.value,
          });
        } else if (record.type === 'holding') {
          const key = canonical.get(record.address)!;
          const stored = holdings.get(key);
          const at = new Date(record.updated_at).toISOString();
          if (stored === undefined || stored.updated_at <= at)
            holdings.set(key, { balance: record.balance, updated_at: at });
        }
      }
      return { transactions, holdings };
    }

    it.each<CommitPolicy>(['per-batch', 'whole-input'])(
      'stores exactly what writing them one by one would under %s, across loads, and keeps the aggregates exact',
      async (policy) => {
        const prefix = `load-${policy}`;
        const people = holders(prefix, 60);
        const seed: RecordInput[] = [];
        for (let index = 0; index < 300; index += 1) {
          seed.push(transfer(`${prefix}-${index}`, people[index % 60]!, people[(index + 1) % 60]!, '1'));
        }
        for (let index = 0; index < 40; index += 1) seed.push(heldAt(people[index]!, String(index + 1), TIMES[1]!));
        expect((await sink.write(inMemory(batchesOf([seed])), { policy: 'per-batch' })).committed).toBe(true);

        // More new transactions than one load takes on either database, in random-looking id order,
        // with stored ids (other ends and values), ids repeated within the input, and holdings
        // newer, older and as old as the stored ones, new ones, and repeated ones.
        const load = rowsPerLoad(kind);
        const records: RecordInput[] = [];
        for (let index = 0; index < load + 700; index += 1) {
          const id = `${prefix}-n${(index * 7919) % (load + 700)}`;
          records.push(transfer(id, people[(index * 3) % 60]!, people[(index * 11 + 5) % 60]!, String(index + 2)));
          if (index % 97 === 0) records.push(transfer(id, people[(index + 7) % 60]!, people[index % 60]!, '99'));
          if (index % 25 === 0) {
            const stored = index % 300;
            records.push(transfer(`${prefix}-${stored}`, people[(stored + 13) % 60]!, people[(stored * 7) % 60]!, '5'));
          }
          if (index % 100 === 0) {
            const holder = people[(index / 100) % 60]!;
            records.push(heldAt(holder, String(index % 3 === 0 ? 0 : index), TIMES[(index / 100) % 3]!));
          }
        }
        const expected = model([...seed, ...records], people);

        const report = await sink.write(inMemory(batchesOf([records])), { policy });

        expect(report.committed).toBe(true);
        const stored = await db.query<{ id: string; from_address: string; to_address: string; value: string }>(
          sql`SELECT id, from_address, to_address, CAST(value AS TEXT) AS value FROM transactions
              WHERE id LIKE ${`${prefix}-%`}`,
        );
        expect(new Map(stored.map(({ id, ...ends }) => [id, ends]))).toEqual(expected.transactions);
        const balances = await db.query<{ address: string; balance: string; updated_at: Date | string }>(
          sql`SELECT address, CAST(balance AS TEXT) AS balance, updated_at FROM holdings
              WHERE chain = 'ethereum' AND token_address = ${TETHER}
              AND address IN (${list(people.map((address) => address.canonical))})`,
        );
        expect(
          new Map(
            balances.map((row) => [
              row.address,
              { balance: row.balance, updated_at: new Date(row.updated_at).toISOString() },
            ]),
          ),
        ).toEqual(expected.holdings);
        expect(await findDrift(db)).toEqual([]);
        // The same records again change nothing.
        await sink.write(inMemory(batchesOf([records])), { policy });
        expect(await findDrift(db)).toEqual([]);
        expect(await db.count(sql`SELECT COUNT(*) FROM transactions WHERE id LIKE ${`${prefix}-%`}`)).toBe(
          expected.transactions.size,
        );
      },
      120_000,
    );
  });

  describe('a source other than NDJSON', () => {
    /** Typed records, as a live source would build them; the third and the fifth are invalid. */
    const records = (id: string, token: TestAddress, holder: TestAddress): RecordInput[] => [
      {
        type: 'token',
        id,
        name: 'Memory Token',
        symbol: 'MEM',
        icon_url: 'https://example.com/mem.png',
        deployments: [{ chain: 'base', address: token.input, decimals: 6 }],
      },
      { type: 'price', token_id: id, usd: 1e-7, at: '2024-07-01T00:00:00Z' },
      {
        type: 'holding',
        chain: 'base',
        // One letter in the wrong case: the EIP-55 checksum fails.
        address: holder.input.replace(/[a-f]/, (letter) => letter.toUpperCase()),
        token_address: token.input,
        balance: '7',
        updated_at: '2024-07-01T00:00:00Z',
      },
      {
        type: 'holding',
        chain: 'base',
        address: holder.input,
        token_address: token.input,
        balance: '007',
        updated_at: '2024-07-01T00:00:00Z',
      },
      { type: 'price', token_id: `${id}-unknown`, usd: '2' },
      {
        type: 'transaction',
        id: `${id}:tx`,
        chain: 'base',
        token_address: token.input,
        from_address: '0',
        to_address: holder.input,
        value: '7',
        tx_hash: '0xabc',
        block_number: 19,
        block_hash: '0xdef',
        block_time: '2024-07-01T00:00:00.5Z',
      },
    ];

    it.each<CommitPolicy>(['whole-input', 'per-batch'])(
      'goes through the same validation as a file under %s: an invalid record is reported, not written',
      async (policy) => {
        const id = `memory-${policy}`;
        const token = evmAddress(`${id}-token`);
        const holder = evmAddress(`${id}-holder`);
        const input = records(id, token, holder);
        const fromFile = await t.app.get(IngestService).import([ndjson(input)]);
        expect(fromFile.committed).toBe(false);

        const report = await sink.write(inMemory(batchesOf([input.slice(0, 3), input.slice(3)])), {
          policy,
          skipInvalid: true,
        });

        expect(report).toMatchObject({
          committed: true,
          commits: policy === 'per-batch' ? 2 : 1,
          valid: { token: 1, price: 1, holding: 1, transaction: 1 },
          invalid: 2,
        });
        expect(report.invalidItems).toEqual(
          fromFile.invalidLines.map(({ line, reason }) => ({ position: line, reason })),
        );
        expect(report.invalidItems.map((item) => item.reason)).toEqual([
          expect.stringMatching(/^holding: address .* is not a base address: .*EIP-55/),
          `price: unknown token_id "${id}-unknown" (not in the database, nor in an earlier token line)`,
        ]);
        expect(
          await db.query(sql`SELECT address, CAST(balance AS TEXT) AS balance FROM holdings WHERE chain = 'base'
            AND token_address = ${token.canonical}`),
        ).toEqual([{ address: holder.canonical, balance: '7' }]);
        const [price] = await db.query<{ usd: string }>(
          sql`SELECT CAST(usd AS TEXT) AS usd FROM prices WHERE token_id = ${id}`,
        );
        expect(price?.usd).toBe('0.0000001');
        const [transfer] = await db.query<{ block_number: number | string }>(
          sql`SELECT block_number FROM transactions WHERE id = ${`${id}:tx`}`,
        );
        expect(String(transfer?.block_number)).toBe('19');
      },
    );
  });
});
