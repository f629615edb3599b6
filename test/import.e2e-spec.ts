import { Client } from 'pg';
import { Db } from '../src/database/db.service';
import { IngestService, MAX_LISTED_INVALID } from '../src/modules/ingest/ingest.service';
import { runCli } from './support/cli';
import { startCluster, stopCluster } from './support/pg-cluster';
import {
  addressOn,
  bitcoinLegacyAddress,
  deployment,
  evmAddress,
  holdingLine,
  ndjson,
  priceLine,
  tokenLine,
  transaction,
  transactionLine,
} from './support/factories';
import { DATABASES, startOnFreshDatabase, TestApp } from './support/test-app';
import { eventually } from './support/follow-client';
import { importLines } from './support/fixtures';
import { raw } from '../src/database/sql';

const TABLES: Record<string, string> = {
  chains: 'SELECT chain, chain_id, name, icon_url, explorers FROM chains ORDER BY chain',
  tokens: 'SELECT id, name, symbol, icon_url FROM tokens ORDER BY id',
  token_deployments: 'SELECT chain, address, token_id, decimals FROM token_deployments ORDER BY chain, address',
  prices: 'SELECT token_id, at, CAST(usd AS TEXT) AS usd FROM prices ORDER BY token_id, at',
  holdings:
    'SELECT chain, token_address, address, CAST(balance AS TEXT) AS balance, updated_at FROM holdings ORDER BY chain, token_address, address',
  transactions: `SELECT id, chain, token_address, from_address, to_address, CAST(value AS TEXT) AS value, tx_hash,
      CAST(block_number AS TEXT) AS block_number, block_hash, block_time FROM transactions ORDER BY id`,
};

/** Every table an import writes, with values in one comparable form on both databases. */
async function snapshot(t: TestApp): Promise<Record<string, unknown[]>> {
  const db = t.app.get(Db);
  const result: Record<string, unknown[]> = {};
  for (const [table, sql] of Object.entries(TABLES)) {
    const rows = await db.query(raw(sql));
    result[table] = rows.map((row) =>
      Object.fromEntries(
        Object.entries(row).map(([key, value]) => [
          key,
          value instanceof Date ? value.toISOString() : typeof value === 'number' ? String(value) : value,
        ]),
      ),
    );
  }
  return result;
}

function summaryOf(stdout: string): Record<string, unknown> {
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

describe.each(DATABASES)('import on %s', (kind) => {
  let t: TestApp;
  const usdtEthereum = deployment('tether', 'ethereum');

  beforeAll(async () => {
    t = await startOnFreshDatabase(kind);
  });

  afterAll(async () => {
    await t.close();
  });

  const get = (path: string) => t.http().get(path).set('X-API-Key', t.keys.alice);

  it('imports every line type from stdin and prints a one-line JSON summary', async () => {
    const holder = evmAddress('import-1');
    const newToken = evmAddress('import-token-1').canonical;
    const tx = transaction({ chain: 'ethereum', from: '0', to: holder });
    const input = ndjson([
      {
        type: 'chain',
        chain: 'base',
        chainId: 8453,
        name: 'Base Mainnet',
        icon_url: 'https://example.com/base.png',
        explorers: [
          {
            name: 'Blockscout',
            url: 'https://base.blockscout.com',
            tx_url: 'https://base.blockscout.com/tx/{{tx_id}}',
            address_url: 'https://base.blockscout.com/address/{{address}}',
          },
        ],
      },
      tokenLine('import-token-one', [
        { chain: 'ethereum', address: newToken.toUpperCase().replace('0X', '0x'), decimals: 9 },
      ]),
      priceLine('import-token-one', 0.25, '2024-03-01T00:00:00Z'),
      '',
      holdingLine({
        chain: 'ethereum',
        address: holder,
        token_address: newToken,
        balance: '0000500',
        updated_at: '2024-03-01T00:00:00Z',
      }),
      transactionLine(tx),
    ]);
    const result = await runCli(t.databaseUrl, ['import', '-'], input);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(summaryOf(result.stdout)).toEqual({
      committed: true,
      lines: 6,
      valid: { chain: 1, token: 1, price: 1, holding: 1, transaction: 1 },
      invalid: 0,
      seconds: expect.any(Number),
      rows_per_second: expect.any(Number),
    });

    const chains = (await get('/v2/chains').expect(200)).body as { chain: string; name: string }[];
    expect(chains.find((chain) => chain.chain === 'base')).toMatchObject({
      name: 'Base Mainnet',
      chainId: 8453,
      explorers: [expect.objectContaining({ name: 'Blockscout' })],
    });
    const holdings = (await get(`/v2/token-holdings?address=${holder.input}`).expect(200)).body;
    expect(holdings).toEqual([
      expect.objectContaining({
        chain: 'ethereum',
        token_address: newToken,
        token_name: 'Token import-token-one',
        token_decimals: 9,
        token_price: 0.25,
        balance: '500',
        updated_at: '2024-03-01T00:00:00.000Z',
      }),
    ]);
    const transactions = (await get(`/v2/transactions?address=${holder.canonical}`).expect(200)).body;
    expect(transactions.map((row: { id: string }) => row.id)).toEqual([tx.id]);
  });

  it('imports nothing when any line is invalid, and lists every bad line number with its reason', async () => {
    const before = await snapshot(t);
    const holder = evmAddress('atomic-1');
    const good = holdingLine({
      chain: 'ethereum',
      address: holder,
      token_address: usdtEthereum.address,
      balance: '1',
      updated_at: '2024-03-01T00:00:00Z',
    });
    const input = ndjson([
      good,
      transactionLine(transaction({ chain: 'bitcoin' })),
      { ...good, balance: '12.5' },
      priceLine('tether', 1, '2024-03-01T00:00:00Z'),
      '{"type":"holding"',
      { ...good, chain: 'solana' },
      { ...good, colour: 'blue' },
      transactionLine(transaction({ chain: 'bitcoin' })),
      { ...good, chain: 'bitcoin', address: bitcoinLegacyAddress('atomic').input, token_address: '0' },
    ]);
    const result = await runCli(t.databaseUrl, ['import', '-'], input);
    expect(result.code).toBe(1);
    expect(summaryOf(result.stdout)).toMatchObject({
      committed: false,
      lines: 9,
      invalid: 4,
      valid: { holding: 2, transaction: 2, price: 1 },
    });
    const reported = result.stderr.split('\n').filter((line) => line.startsWith('line '));
    expect(reported).toEqual([
      expect.stringMatching(/^line 3: holding: balance must be a string of 1 to 78 digits, got "12.5"$/),
      expect.stringMatching(/^line 5: not valid JSON/),
      expect.stringMatching(/^line 6: holding: address "0x.*" is not a solana address/),
      'line 7: holding: unknown field "colour"',
    ]);
    expect(result.stderr).toMatch(/nothing was imported: 4 invalid lines/);
    expect(await snapshot(t)).toEqual(before);
  });

  it('imports the valid lines with --skip-invalid and still lists the bad ones', async () => {
    const holder = evmAddress('skip-1');
    const good = holdingLine({
      chain: 'ethereum',
      address: holder,
      token_address: usdtEthereum.address,
      balance: '77',
      updated_at: '2024-03-02T00:00:00Z',
    });
    const input = ndjson([
      { ...good, balance: '-77' },
      good,
      { ...good, updated_at: '2024-03-02' },
      holdingLine({
        chain: 'ethereum',
        address: holder,
        token_address: evmAddress('no-such-token').canonical,
        balance: '1',
        updated_at: '2024-03-02T00:00:00Z',
      }),
    ]);
    const result = await runCli(t.databaseUrl, ['import', '-', '--skip-invalid'], input);
    expect(result.code).toBe(0);
    expect(summaryOf(result.stdout)).toMatchObject({ committed: true, invalid: 3, valid: { holding: 1 } });
    expect(
      result.stderr
        .split('\n')
        .filter((line) => line.startsWith('line '))
        .map((line) => line.split(':')[0]),
    ).toEqual(['line 1', 'line 3', 'line 4']);
    expect(result.stderr).toMatch(/line 4: holding: no token is deployed at token_address 0x/);
    const { body } = await get(`/v2/token-holdings?address=${holder.canonical}`).expect(200);
    expect(body.map((row: { balance: string }) => row.balance)).toEqual(['77']);
  });

  it('refuses a text holding U+0000 as a bad line on both databases (PostgreSQL cannot store one)', async () => {
    const good = transaction({ chain: 'base' });
    const input = ndjson([
      tokenLine('nul-token', [{ chain: 'base', address: evmAddress('nul-token').canonical, decimals: 6 }], {
        name: 'Nul\u0000Coin',
      }),
      transactionLine({ ...transaction({ chain: 'base' }), id: 'nul\u0000id' }),
      transactionLine(good),
    ]);
    const result = await runCli(t.databaseUrl, ['import', '-', '--skip-invalid'], input);
    expect(result.code).toBe(0);
    expect(summaryOf(result.stdout)).toMatchObject({ committed: true, invalid: 2, valid: { transaction: 1 } });
    expect(result.stderr).toMatch(/line 1: token: name must not contain the character U\+0000/);
    expect(result.stderr).toMatch(/line 2: transaction: id must not contain the character U\+0000/);
    await get(`/v2/transactions/${encodeURIComponent(good.id)}`).expect(200);
    const refused = await get(`/v2/transactions/${encodeURIComponent('nul\u0000id')}`).expect(404);
    expect(refused.body.code).toBe('TRANSACTION_NOT_FOUND');
  });

  it('changes nothing when the same file is imported twice', async () => {
    const chain = 'polygon';
    const holders = [0, 1, 2].map((index) => addressOn(chain, `twice-${index}`));
    const lines = [
      tokenLine('twice-token', [{ chain, address: evmAddress('twice-token').canonical, decimals: 18 }]),
      priceLine('twice-token', '0.000000012345', '2024-04-01T00:00:00Z'),
      ...holders.map((address, index) =>
        holdingLine({
          chain,
          address,
          token_address: evmAddress('twice-token').canonical,
          balance: `${index + 1}${'0'.repeat(70)}`,
          updated_at: '2024-04-01T00:00:00.250Z',
        }),
      ),
      ...holders.map((address) => transactionLine(transaction({ chain, to: address }))),
    ];
    const file = ndjson(lines);
    const first = await runCli(t.databaseUrl, ['import', '-'], file);
    expect(first.code).toBe(0);
    const once = await snapshot(t);
    const second = await runCli(t.databaseUrl, ['import', '-'], file);
    expect(second.code).toBe(0);
    expect(summaryOf(second.stdout)).toEqual({
      ...summaryOf(first.stdout),
      seconds: expect.any(Number),
      rows_per_second: expect.any(Number),
    });
    expect(await snapshot(t)).toEqual(once);
    expect(once.prices).toContainEqual({
      token_id: 'twice-token',
      at: '2024-04-01T00:00:00.000Z',
      usd: '0.000000012345',
    });
  });

  it('reads a file by path and fails clearly on a missing one', async () => {
    const { writeFileSync, mkdtempSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'chaintags-import-'));
    try {
      const path = join(dir, 'prices.ndjson');
      writeFileSync(path, ndjson([priceLine('bitcoin', 65000.5, '2024-05-01T00:00:00Z')]));
      const ok = await runCli(t.databaseUrl, ['import', path]);
      expect(ok.code).toBe(0);
      expect(summaryOf(ok.stdout)).toMatchObject({ committed: true, valid: { price: 1 } });
      const missing = await runCli(t.databaseUrl, ['import', `${path}.missing`]);
      expect(missing.code).toBe(1);
      expect(missing.stdout).toBe('');
      expect(missing.stderr).toMatch(/cannot read .*prices\.ndjson\.missing/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('checks references against the database and earlier lines of the file', async () => {
    const ingest = t.app.get(IngestService);
    const usdc = deployment('usd-coin', 'ethereum');
    const report = await ingest.import(
      [
        ndjson([
          tokenLine('fake-usdc', [{ chain: 'ethereum', address: usdc.address, decimals: 6 }]),
          priceLine('fake-usdc', 1),
          { ...tokenLine('base', [{ chain: 'base', address: '0', decimals: 18 }]) },
          {
            type: 'chain',
            chain: 'ethereum',
            chainId: 5,
            name: 'Goerli',
            icon_url: 'https://example.com/e.png',
            explorers: [
              {
                name: 'x',
                url: 'https://x.io',
                tx_url: 'https://x.io/{{tx_id}}',
                address_url: 'https://x.io/{{address}}',
              },
            ],
          },
        ]),
      ],
      {},
    );
    expect(report.committed).toBe(false);
    expect(report.invalidLines).toEqual([
      { line: 1, reason: `token: ethereum ${usdc.address} already belongs to the token "usd-coin"` },
      { line: 2, reason: expect.stringMatching(/unknown token_id "fake-usdc"/) },
      { line: 3, reason: 'token: base 0 already belongs to the token "ethereum"' },
      { line: 4, reason: 'chain: chainId of ethereum is 1, not 5' },
    ]);
  });

  it('writes in batches, merges repeated keys, and never lets an older balance replace a newer one', async () => {
    const ingest = t.app.get(IngestService);
    const chain = 'arbitrum';
    const tether = deployment('tether', chain);
    const count = 1234;
    const line = (index: number, balance: string, updatedAt: string) =>
      holdingLine({
        chain,
        address: addressOn(chain, `batch-${index}`),
        token_address: tether.address,
        balance,
        updated_at: updatedAt,
      });
    const lines = Array.from({ length: count }, (_v, index) => line(index, String(index + 1), '2024-05-01T00:00:00Z'));
    // Within one batch: a newer value, then an older one for the same holding.
    lines.push(line(7, '999', '2024-05-02T00:00:00Z'), line(7, '1', '2024-04-01T00:00:00Z'));
    const report = await ingest.import([ndjson(lines)]);
    expect(report).toMatchObject({ committed: true, invalid: 0, valid: { holding: count + 2 } });
    const { headers } = await get(`/v2/token-holdings?chain=${chain}&per_page=1`).expect(200);
    expect(headers.link).toContain(`page=${count}>; rel="last"`);
    const older = await ingest.import([ndjson([line(8, '5', '2024-04-30T00:00:00Z')])]);
    expect(older.committed).toBe(true);
    const seven = addressOn(chain, 'batch-7').canonical;
    const eight = addressOn(chain, 'batch-8').canonical;
    for (const [address, balance] of [
      [seven, '999'],
      [eight, '9'],
    ] as const) {
      const { body } = await get(`/v2/token-holdings?address=${address}&chain=${chain}`).expect(200);
      expect(body.map((row: { balance: string }) => row.balance)).toEqual([balance]);
    }
  });

  it('lists the first 1000 invalid lines and counts the rest', async () => {
    const lines = Array.from({ length: MAX_LISTED_INVALID + 5 }, () => '{"type":"nothing"}');
    const result = await runCli(t.databaseUrl, ['import', '-'], ndjson(lines));
    expect(result.code).toBe(1);
    expect(summaryOf(result.stdout)).toMatchObject({ invalid: MAX_LISTED_INVALID + 5 });
    const listed = result.stderr.split('\n').filter((line) => line.startsWith('line '));
    expect(listed).toHaveLength(MAX_LISTED_INVALID);
    expect(listed[MAX_LISTED_INVALID - 1]).toMatch(new RegExp(`^line ${MAX_LISTED_INVALID}: unknown type "nothing"`));
    expect(result.stderr).toContain('... and 5 more invalid lines');
  });

  it('vacuums and analyses the tables after a large import on PostgreSQL, not after a small one', async () => {
    if (kind !== 'postgres') return;
    const db = t.app.get(Db);
    const settled = async () => {
      const [row] = await db.query<{ analysed: number | string; vacuumed: number | string }>(
        raw(
          `SELECT analyze_count AS analysed, vacuum_count AS vacuumed FROM pg_stat_user_tables WHERE relname = 'holdings'`,
        ),
      );
      return { analysed: Number(row?.analysed ?? 0), vacuumed: Number(row?.vacuumed ?? 0) };
    };
    const holdings = (from: number, count: number) =>
      Array.from({ length: count }, (_v, index) =>
        holdingLine({
          chain: 'base',
          address: addressOn('base', `planned-${from + index}`),
          token_address: '0',
          balance: String(index + 1),
          updated_at: '2024-05-01T00:00:00Z',
        }),
      );
    const before = await settled();
    await importLines(t, holdings(0, 10));
    // The statistics collector reports with a delay of its own; a small import's absence is read
    // together with the large one's presence below.
    await importLines(t, holdings(10, 10_000));
    const after = await eventually('the statistics to show the VACUUM and the ANALYZE', async () => {
      const counts = await settled();
      return counts.analysed > before.analysed && counts.vacuumed > before.vacuumed ? counts : undefined;
    });
    expect(after).toEqual({ analysed: before.analysed + 1, vacuumed: before.vacuumed + 1 });
  });

  it('leaves the pages a large import wrote all-visible on PostgreSQL, though the server commits asynchronously', async () => {
    if (kind !== 'postgres') return;
    // A cluster of its own, with no service on it: nothing else commits while the import's vacuum
    // runs. In the suites' shared cluster, another suite's asynchronous commit of a transaction id
    // near the import's (PostgreSQL tracks 32 together) could hold its pages back. The test
    // clusters commit asynchronously (synchronous_commit off).
    const cluster = await startCluster();
    const database = { url: cluster.url };
    try {
      const lines = Array.from({ length: 10_000 }, (_v, index) =>
        holdingLine({
          chain: 'base',
          address: addressOn('base', `visible-${index}`),
          token_address: '0',
          balance: String(index + 1),
          updated_at: '2024-05-01T00:00:00Z',
        }),
      );
      const result = await runCli(database.url, ['import', '-'], ndjson(lines));
      expect(result.code).toBe(0);
      const client = new Client({ connectionString: database.url });
      await client.connect();
      try {
        // Index-only scans visit the table for every entry on a page not marked all-visible.
        const found = await client.query<{ pages: number; visible: number }>(
          `SELECT relpages AS pages, relallvisible AS visible FROM pg_class WHERE relname = 'holdings'`,
        );
        expect(found.rows[0]!.pages).toBeGreaterThan(10);
        expect(found.rows[0]!.visible).toBe(found.rows[0]!.pages);
      } finally {
        await client.end();
      }
    } finally {
      stopCluster(cluster);
    }
  }, 60_000);

  it('reports progress at most once a second on a long import', async () => {
    const ingest = t.app.get(IngestService);
    const progress: number[] = [];
    async function* slowly() {
      for (let index = 0; index < 3; index += 1) {
        yield `${JSON.stringify(priceLine('bitcoin', 60000 + index, `2024-06-0${index + 1}T00:00:00Z`))}\n`;
        await new Promise((resolve) => setTimeout(resolve, 600));
      }
    }
    const report = await ingest.import(slowly(), { onProgress: (p) => progress.push(p.rows) });
    expect(report.committed).toBe(true);
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress.length).toBeLessThanOrEqual(2);
  });
});
