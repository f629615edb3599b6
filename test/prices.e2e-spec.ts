import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Db } from '../src/database/db.service';
import { IngestService } from '../src/modules/ingest/ingest.service';
import { PollReport, PricesService } from '../src/modules/prices/prices.service';
import { nodeArgs } from './support/build';
import { CoinGeckoStub } from './support/coingecko-stub';
import { ChainId } from '../src/core/chains/chain-ids';
import { discoveredTokenId } from '../src/core/tokens/discovered-token-id';
import {
  deployment,
  evmAddress,
  holdingLine,
  moveAddress,
  ndjson,
  solanaAddress,
  tokenLine,
  tonAddress,
} from './support/factories';
import { freePort } from './support/pg-cluster';
import { DATABASES, freshDatabase, newKey, startOnFreshDatabase, startTestApp, TestApp } from './support/test-app';
import { sql } from '../src/database/sql';
import Database from 'better-sqlite3';
import { runCli } from './support/cli';

/**
 * The price poller against a local CoinGecko-compatible server (test/support/coingecko-stub.ts),
 * on real timers kept short through the poller's settings. Tests wait for what they can observe
 * (a poll reported, a request received, a log line written), never for a fixed time.
 */

const NOW_S = Math.floor(Date.now() / 1000);
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
const CONTRACT = `0x${'1f'.repeat(20)}`;
const DISCOVERED = `ethereum-${CONTRACT}`;
const WHALE = evmAddress('prices-whale');
const USDT = deployment('tether', 'ethereum').address;

interface LogLine {
  level: number;
  msg: string;
  context?: string;
}

/** Resolves with the reports of the next `count` polls. Two polls: one of them began after the call. */
function nextPolls(prices: PricesService, count: number): Promise<PollReport[]> {
  return new Promise((resolve) => {
    const reports: PollReport[] = [];
    const listener = (report: PollReport) => {
      reports.push(report);
      if (reports.length < count) return;
      prices.events.off('poll', listener);
      resolve(reports);
    };
    prices.events.on('poll', listener);
  });
}

/** Resolves with the first report, from now on, that matches. */
function pollWhere(prices: PricesService, matches: (report: PollReport) => boolean): Promise<PollReport> {
  return new Promise((resolve) => {
    const listener = (report: PollReport) => {
      if (!matches(report)) return;
      prices.events.off('poll', listener);
      resolve(report);
    };
    prices.events.on('poll', listener);
  });
}

/** `chaintags_price_polled_timestamp_seconds` on the app's `/metrics`, or undefined without one. */
async function polledAt(t: TestApp): Promise<number | undefined> {
  const text = (await t.http().get('/metrics').expect(200)).text;
  const sample = /^chaintags_price_polled_timestamp_seconds (\S+)$/m.exec(text)?.[1];
  return sample === undefined ? undefined : Number(sample);
}

/** Log lines collected from a test app, parsed. */
class Logs {
  readonly lines: LogLine[] = [];
  readonly destination = { write: (line: string) => void this.lines.push(JSON.parse(line) as LogLine) };

  ofPrices(level?: 'warn' | 'info'): LogLine[] {
    const wanted = level === undefined ? undefined : level === 'warn' ? 40 : 30;
    return this.lines.filter((line) => line.context === 'Prices' && (wanted === undefined || line.level === wanted));
  }
}

describe.each(DATABASES)('price poller on %s', (kind) => {
  let stub: CoinGeckoStub;

  beforeAll(async () => {
    stub = await CoinGeckoStub.start();
  });

  afterAll(async () => {
    await stub.close();
  });

  /**
   * The settings of a poller pointed at the stub, with short timers; a token the source does not
   * know is asked about every poll unless `unknownRetryMs` says otherwise.
   */
  const pollerSettings = (refreshMs: number, unknownRetryMs = 0) => ({
    url: stub.url,
    refreshMs,
    requestGapMs: 5,
    timeoutMs: 2_000,
    maxBackoffMs: 60_000,
    unknownRetryMs,
  });

  describe('a source that answers', () => {
    let t: TestApp;
    let prices: PricesService;
    let db: Db;

    const get = (path: string) => t.http().get(path).set('X-API-Key', t.keys.alice).expect(200);
    const holdings = async () =>
      Object.fromEntries(
        (
          (await get(`/v2/token-holdings?address=${WHALE.canonical}`)).body as {
            token_address: string;
            token_price: number;
          }[]
        ).map((row) => [row.token_address, row.token_price]),
      );
    const addressValue = async () =>
      ((await get(`/v2/addresses/${WHALE.canonical}`)).body as { stats: { total_value_usd: number } }).stats
        .total_value_usd;
    const tagValue = async () =>
      ((await get('/v2/tags/price_whales')).body as { stats: { total_value_usd: number } }).stats.total_value_usd;
    const storedPrices = (tokenId: string) =>
      db.query<{ at: Date | string; usd: string | number }>(
        sql`SELECT at, usd FROM prices WHERE token_id = ${tokenId} ORDER BY at`,
      );

    beforeAll(async () => {
      stub.setPrice('ethereum', { usd: 3000.5, last_updated_at: NOW_S - 3600 });
      stub.setPrice('tether', { usd: 0.999, last_updated_at: NOW_S - 3600 });
      stub.setContractPrice('ethereum', CONTRACT, { usd: 2.5, last_updated_at: NOW_S - 3590 });
      t = await startOnFreshDatabase(kind, { prices: pollerSettings(100) });
      prices = t.app.get(PricesService);
      db = t.app.get(Db);
      const updated_at = '2026-01-01T00:00:00.000Z';
      const report = await t.app.get(IngestService).import([
        ndjson([
          tokenLine(DISCOVERED, [{ chain: 'ethereum', address: CONTRACT, decimals: 6 }], { symbol: 'DISC' }),
          holdingLine({
            chain: 'ethereum',
            address: WHALE,
            token_address: '0',
            balance: '2000000000000000000',
            updated_at,
          }),
          holdingLine({ chain: 'ethereum', address: WHALE, token_address: USDT, balance: '1500000000', updated_at }),
          holdingLine({
            chain: 'ethereum',
            address: WHALE,
            token_address: CONTRACT,
            balance: '10000000',
            updated_at,
          }),
        ]),
      ]);
      expect(report.committed).toBe(true);
      await t
        .http()
        .post('/v2/tags/price_whales')
        .set('X-API-Key', t.keys.alice)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify([WHALE.input]))
        .expect(200);
      await nextPolls(prices, 2);
    });

    afterAll(async () => {
      await t.close();
    });

    it('asks by id and by contract in CoinGecko’s shapes, and serves the prices in holdings and stats', async () => {
      const byId = stub.requests.find((request) => request.path === '/simple/price')!;
      expect(byId.query.get('vs_currencies')).toBe('usd');
      expect(byId.query.get('include_last_updated_at')).toBe('true');
      expect(byId.query.get('ids')!.split(',')).toEqual(expect.arrayContaining(['bitcoin', 'ethereum', 'tether']));
      expect(byId.query.get('ids')).not.toContain(CONTRACT);
      const byContract = stub.requests.find((request) => request.path === '/simple/token_price/ethereum')!;
      expect(byContract.query.get('contract_addresses')).toBe(CONTRACT);
      expect(byContract.query.get('vs_currencies')).toBe('usd');
      expect(byContract.headers['x-cg-demo-api-key']).toBeUndefined();

      expect(await holdings()).toEqual({ '0': 3000.5, [USDT]: 0.999, [CONTRACT]: 2.5 });
      // 2 ETH × 3000.5 + 1500 USDT × 0.999 + 10 × 2.5
      expect(await addressValue()).toBe(7524.5);
      expect(await tagValue()).toBe(7524.5);
      expect((await storedPrices('ethereum')).map((row) => new Date(row.at).toISOString())).toEqual([
        iso(NOW_S - 3600),
      ]);
      // GET /v2/tokens shows each token's newest price and its time; a token without one, null.
      const token = async (query: string) =>
        ((await get(`/v2/tokens?${query}`)).body as { price_usd: number | null; price_updated_at: string | null }[])[0];
      expect(await token('chain=ethereum&address=0')).toMatchObject({
        price_usd: 3000.5,
        price_updated_at: iso(NOW_S - 3600),
      });
      expect(await token(`chain=ethereum&address=${CONTRACT}`)).toMatchObject({
        price_usd: 2.5,
        price_updated_at: iso(NOW_S - 3590),
      });
      expect(await token('chain=solana&address=0')).toMatchObject({ price_usd: null, price_updated_at: null });
    });

    it('shows a new price in holdings, address stats and tag stats on the next request after the poll', async () => {
      // Both stats are kept by now; the new price must reach them all the same.
      expect(await addressValue()).toBe(7524.5);
      expect(await tagValue()).toBe(7524.5);
      stub.setPrice('ethereum', { usd: 4000, last_updated_at: NOW_S - 1800 });
      await pollWhere(prices, (report) => report.stored === 1);

      expect((await holdings())['0']).toBe(4000);
      expect(await addressValue()).toBe(9523.5);
      expect(await tagValue()).toBe(9523.5);
      const rows = await storedPrices('ethereum');
      expect(rows.map((row) => [new Date(row.at).toISOString(), Number(row.usd)])).toEqual([
        [iso(NOW_S - 3600), 3000.5],
        [iso(NOW_S - 1800), 4000],
      ]);
    });

    it('adds no row for an unchanged price, ignores one older than the newest, and keeps the stats', async () => {
      stub.setPrice('ethereum', { usd: 4000, last_updated_at: NOW_S - 600 });
      stub.setPrice('tether', { usd: 0.5, last_updated_at: NOW_S - 7200 });
      const [, report] = await nextPolls(prices, 2);
      expect(report).toMatchObject({ role: 'holder', stored: 0 });
      expect(report!.unchanged).toBeGreaterThanOrEqual(3);
      expect(await storedPrices('ethereum')).toHaveLength(2);
      expect((await storedPrices('tether')).map((row) => Number(row.usd))).toEqual([0.999]);
      expect(await addressValue()).toBe(9523.5);
    });

    let step = 0;

    it.each([
      ['an answer that never comes', { kind: 'hang' as const }, 'timeout'],
      ['429 Too Many Requests', { kind: 'status' as const, status: 429 }, 'rate-limited'],
      ['a 503', { kind: 'status' as const, status: 503 }, 'server-error'],
      ['malformed JSON', { kind: 'body' as const, body: '{"ethereum": {"usd": 1' }, 'malformed'],
      ['a JSON array', { kind: 'body' as const, body: '[["ethereum", 1]]' }, 'malformed'],
    ])('keeps the last prices through %s, and the API answers as usual', async (_case, misbehaviour, failure) => {
      const before = await db.query(sql`SELECT token_id, at, usd FROM prices ORDER BY token_id, at`);
      const pricesBefore = await holdings();
      stub.misbehave(misbehaviour);
      const failed = await pollWhere(prices, (report) => report.failure !== undefined);
      expect(failed.failure!.kind).toBe(failure);
      expect(failed.stored).toBe(0);
      expect(await db.query(sql`SELECT token_id, at, usd FROM prices ORDER BY token_id, at`)).toEqual(before);
      expect(await holdings()).toEqual(pricesBefore);
      await t.http().get('/health').expect(200);
      expect(prices.status().failureStreak).toBe(1);

      // Then the source answers again, and its next new price arrives.
      step += 1;
      stub.setPrice('ethereum', { usd: 4000 + step, last_updated_at: NOW_S - 300 + step });
      await pollWhere(prices, (report) => report.stored === 1);
      expect((await holdings())['0']).toBe(4000 + step);
      expect(prices.status().failureStreak).toBe(0);
    });

    it('stores none of an answer’s absurd values and keeps its sensible ones', async () => {
      const body = JSON.stringify({
        ethereum: { usd: -4000, last_updated_at: NOW_S - 20 },
        tether: { usd: 'NaN', last_updated_at: NOW_S - 20 },
        bitcoin: { usd: 1e20, last_updated_at: NOW_S - 20 },
        solana: { usd: 150, last_updated_at: 'yesterday' },
        dogecoin: { usd: 0.25, last_updated_at: NOW_S - 20 },
      }).replace('1e+20', '1e999');
      const before = await holdings();
      stub.misbehave({ kind: 'body', body, path: '/simple/price' });
      const report = await pollWhere(prices, (r) => r.rejected > 0);
      expect(report).toMatchObject({ rejected: 4, stored: 1 });
      expect(report.failure).toBeUndefined();
      expect((await storedPrices('dogecoin')).map((row) => Number(row.usd))).toEqual([0.25]);
      expect(await storedPrices('bitcoin')).toEqual([]);
      expect(await storedPrices('solana')).toEqual([]);
      expect((await storedPrices('ethereum')).every((row) => Number(row.usd) > 0)).toBe(true);
      expect((await storedPrices('tether')).map((row) => Number(row.usd))).toEqual([0.999]);
      expect(await holdings()).toEqual(before);
    });

    it('leaves tokens the source does not know without a price', async () => {
      const report = await pollWhere(prices, (r) => r.role === 'holder' && r.failure === undefined);
      // Of the shipped coins the stub knows only ethereum, tether and dogecoin.
      expect(report.unknown).toBeGreaterThanOrEqual(8);
      expect(await storedPrices('sui')).toEqual([]);
    });
  });

  it('prices tokens discovered on Solana, TON, Sui and Aptos by contract on CoinGecko’s platforms, as CoinGecko spells them', async () => {
    const mint = solanaAddress('priced-mint').canonical;
    const master = tonAddress('priced-master');
    const discovered: { chain: ChainId; platform: string; address: string; listed: string; usd: number }[] = [
      { chain: 'solana', platform: 'solana', address: mint, listed: mint, usd: 1.25 },
      // CoinGecko lists a Jetton by its master's user-friendly form; chaintags stores it raw.
      { chain: 'ton', platform: 'the-open-network', address: master.canonical, listed: master.input, usd: 2.5 },
      ...[
        { chain: 'sui' as const, address: `${moveAddress('priced-coin').canonical}::usdx::USDX`, usd: 0.75 },
        { chain: 'aptos' as const, address: moveAddress('priced-asset').canonical, usd: 4 },
      ].map((token) => ({ ...token, platform: token.chain, listed: token.address })),
    ];
    for (const token of discovered)
      stub.setContractPrice(token.platform, token.listed, { usd: token.usd, last_updated_at: NOW_S - 60 });
    const holders = {
      solana: solanaAddress('priced-holder'),
      ton: tonAddress('priced-holder'),
      move: moveAddress('priced-holder'),
    };
    const holderOn = (chain: ChainId) =>
      chain === 'solana' ? holders.solana : chain === 'ton' ? holders.ton : holders.move;
    const from = stub.requests.length;
    const t = await startOnFreshDatabase(kind, { prices: pollerSettings(100) });
    try {
      const updated_at = '2026-01-01T00:00:00.000Z';
      const lines = discovered.flatMap(({ chain, address }) => [
        tokenLine(discoveredTokenId(chain, address), [{ chain, address, decimals: 0 }]),
        holdingLine({ chain, address: holderOn(chain), token_address: address, balance: '10', updated_at }),
      ]);
      expect((await t.app.get(IngestService).import([ndjson(lines)])).committed).toBe(true);
      await nextPolls(t.app.get(PricesService), 2);
      for (const token of discovered) {
        const answer = await t
          .http()
          .get(`/v2/token-holdings?chain=${token.chain}&address=${encodeURIComponent(holderOn(token.chain).input)}`)
          .set('X-API-Key', t.keys.alice)
          .expect(200);
        const rows = answer.body as { token_address: string; token_price: number | null }[];
        expect({
          chain: token.chain,
          price: rows.find((row) => row.token_address === token.address)?.token_price,
        }).toEqual({
          chain: token.chain,
          price: token.usd,
        });
      }
      const asked = stub.requests.slice(from);
      for (const token of discovered) {
        const request = asked.find((one) => one.path === `/simple/token_price/${token.platform}`);
        expect(request?.query.get('contract_addresses')?.split(',')).toContain(token.listed);
      }
      const ids = asked
        .filter((one) => one.path === '/simple/price')
        .flatMap((one) => one.query.get('ids')!.split(','));
      expect(ids.filter((id) => /^(solana|ton|sui|aptos)-/.test(id))).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('asks about a token the source does not know once, then only after unknownRetryMs, across restarts', async () => {
    const unlisted = `0x${'2e'.repeat(20)}`;
    const tokenId = `ethereum-${unlisted}`;
    const line = tokenLine(tokenId, [{ chain: 'ethereum', address: unlisted, decimals: 6 }]);
    const askedFor = (from: number) =>
      stub.requests
        .slice(from)
        .filter((request) => request.query.get('contract_addresses')?.split(',').includes(unlisted)).length;
    const database = await freshDatabase(kind);
    const start = (unknownRetryMs: number) =>
      startTestApp({ databaseUrl: database.url, prices: pollerSettings(50, unknownRetryMs) });
    const missed = (t: TestApp) =>
      t.app.get(Db).query<{ token_id: string }>(sql`SELECT token_id FROM price_misses WHERE token_id = ${tokenId}`);
    try {
      const from = stub.requests.length;
      const daily = await start(60_000);
      try {
        expect((await daily.app.get(IngestService).import([ndjson([line])])).committed).toBe(true);
        // The first of these polls may have read the tokens before the import; a later one asks.
        const reports = await nextPolls(daily.app.get(PricesService), 5);
        expect(askedFor(from)).toBe(1);
        expect(reports.at(-1)).toMatchObject({ role: 'holder', skipped: expect.any(Number) });
        expect(reports.at(-1)!.skipped).toBeGreaterThanOrEqual(1);
        expect(reports.at(-1)!.unknown).toBe(0);
        expect(await missed(daily)).toHaveLength(1);
      } finally {
        await daily.close();
      }
      // A restart (or another process taking the polls over) remembers it.
      const restarted = await start(60_000);
      try {
        const reports = await nextPolls(restarted.app.get(PricesService), 3);
        expect(reports.every((report) => report.role === 'holder' && report.skipped >= 1)).toBe(true);
        expect(askedFor(from)).toBe(1);
      } finally {
        await restarted.close();
      }
      // A day later (200 ms here) it is asked again; once listed, it is priced, no longer missed.
      const soon = await start(200);
      try {
        await stub.until(() => askedFor(from) >= 2);
        stub.setContractPrice('ethereum', unlisted, { usd: 0.25, last_updated_at: NOW_S - 60 });
        const stored = () =>
          soon.app.get(Db).query<{ usd: string | number }>(sql`SELECT usd FROM prices WHERE token_id = ${tokenId}`);
        for (let polls = 0; polls < 50 && (await stored()).length === 0; polls += 1) {
          await nextPolls(soon.app.get(PricesService), 1);
        }
        expect((await stored()).map((row) => Number(row.usd))).toEqual([0.25]);
        expect(await missed(soon)).toEqual([]);
      } finally {
        await soon.close();
      }
    } finally {
      await database.drop();
    }
  });

  it('logs one line per failure streak and backs off exponentially, honouring Retry-After', async () => {
    const logs = new Logs();
    const refreshMs = 60;
    const t = await startOnFreshDatabase(kind, { prices: pollerSettings(refreshMs), logDestination: logs.destination });
    try {
      const prices = t.app.get(PricesService);
      await pollWhere(prices, (report) => report.role === 'holder' && report.failure === undefined);
      // When the source last answered, for an alert on prices gone stale.
      const answeredAt = await polledAt(t);
      expect(Math.abs(answeredAt! * 1000 - Date.now())).toBeLessThan(10_000);
      const from = stub.requests.length;
      stub.misbehave(...Array.from({ length: 4 }, () => ({ kind: 'status' as const, status: 500 })));
      let failed = 0;
      const recovered = pollWhere(prices, (report) => {
        if (report.failure !== undefined) failed += 1;
        return failed === 4 && report.failure === undefined;
      });
      const requests = (await stub.received(from + 5)).slice(from);
      await recovered;

      // The first failed poll comes at the refresh interval or later; each wait after a failure doubles.
      const gaps = requests.slice(1).map((request, index) => request.at - requests[index]!.at);
      gaps.forEach((gap, index) => expect(gap).toBeGreaterThanOrEqual(refreshMs * 2 ** (index + 1) - 2));
      const warnings = logs.ofPrices('warn');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.msg).toContain('answered HTTP 500');
      expect(logs.ofPrices('info').some((line) => line.msg.includes('answers again, after 4 failed polls'))).toBe(true);
      expect(prices.status()).toMatchObject({ sourceErrors: 4, failureStreak: 0 });
      const scraped = await t.http().get('/metrics').expect(200);
      expect(scraped.text).toMatch(/^chaintags_price_source_errors_total 4$/m);

      // A second streak gets its own line; Retry-After holds the next request back.
      const limited = stub.requests.length;
      stub.misbehave({ kind: 'status', status: 429, retryAfter: '1' });
      const [first, second] = (await stub.received(limited + 2)).slice(limited);
      expect(second!.at - first!.at).toBeGreaterThanOrEqual(998);
      expect(logs.ofPrices('warn')).toHaveLength(2);
      expect(logs.ofPrices('warn')[1]!.msg).toContain('429 Too Many Requests, Retry-After 1 s');
    } finally {
      await t.close();
    }
  });

  it('with an unreachable source: one clear warning, and every route served normally', async () => {
    const logs = new Logs();
    const closedPort = await freePort();
    const t = await startOnFreshDatabase(kind, {
      prices: { ...pollerSettings(20), url: `http://127.0.0.1:${closedPort}/api/v3` },
      logDestination: logs.destination,
    });
    try {
      const prices = t.app.get(PricesService);
      const reports = await nextPolls(prices, 3);
      expect(reports.map((report) => report.failure?.kind)).toEqual(['unreachable', 'unreachable', 'unreachable']);
      // No answer yet: 0 on /metrics, which an alert on stale prices takes as long ago.
      expect(await polledAt(t)).toBe(0);
      const warnings = logs.ofPrices('warn');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.msg).toMatch(
        /^the price source http:\/\/127\.0\.0\.1:\d+\/api\/v3 cannot be reached \(ECONNREFUSED\)/,
      );
      expect(warnings[0]!.msg).toContain('PRICE_REFRESH_SECONDS=0');
      await t.http().get('/health').expect(200);
      await t.http().get('/v2/chains').set('X-API-Key', t.keys.alice).expect(200);
      await t.http().get('/v2/token-holdings').set('X-API-Key', t.keys.alice).expect(200);
    } finally {
      await t.close();
    }
  });

  it('is off with PRICE_REFRESH_SECONDS=0, and off unless a test points it at a source', async () => {
    const logs = new Logs();
    const from = stub.requests.length;
    const t = await startOnFreshDatabase(kind, {
      prices: { url: stub.url, refreshMs: 0 },
      logDestination: logs.destination,
    });
    try {
      expect(t.app.get(PricesService).status()).toMatchObject({ enabled: false, role: 'off', polls: 0 });
      expect(logs.ofPrices('info').map((line) => line.msg)).toEqual([
        'the price source is off (PRICE_REFRESH_SECONDS=0): prices change only by import',
      ]);
    } finally {
      await t.close();
    }
    const plain = await startOnFreshDatabase(kind);
    try {
      expect(plain.app.get(PricesService).status()).toMatchObject({ enabled: false, polls: 0 });
    } finally {
      await plain.close();
    }
    expect(stub.requests.length).toBe(from);
  });

  it('stops on close while a request is in flight: the request is aborted', async () => {
    const t = await startOnFreshDatabase(kind, { prices: { ...pollerSettings(50), timeoutMs: 60_000 } });
    let closed = false;
    try {
      const from = stub.requests.length;
      const aborted = stub.aborted;
      stub.misbehave({ kind: 'hang' });
      await stub.received(from + 1);
      await t.close();
      closed = true;
      // The client hung up: the stub never answered, and would have waited for ever.
      await stub.until(() => stub.aborted === aborted + 1);
      expect(stub.requests).toHaveLength(from + 1);
    } finally {
      if (!closed) await t.close();
    }
  });

  it('polls from one process at a time; another takes over when it stops', async () => {
    const database = await freshDatabase(kind);
    const keys = { alice: newKey(), bob: newKey() };
    const holder = await startTestApp({
      databaseUrl: database.url,
      keys,
      prices: { ...pollerSettings(100), apiKey: 'CG-first' },
    });
    const observer = await startTestApp({ databaseUrl: database.url, keys });
    let child: ChildProcess | undefined;
    try {
      await pollWhere(holder.app.get(PricesService), (report) => report.role === 'holder' && report.requests > 0);
      const from = stub.requests.length;
      const server = startServerProcess(database.url, { PRICE_API_KEY: 'CG-second' });
      child = server.child;
      await server.logged((line) => line.msg.startsWith('another process polls the price source'));
      // The holder went on polling; the second process sent nothing.
      await stub.received(stub.requests.length + 1);
      expect(stub.requests.slice(from).map((request) => request.headers['x-cg-demo-api-key'])).not.toContain(
        'CG-second',
      );

      await holder.close();
      const takenOver = await stub.receivedWhere(
        from,
        (request) => request.headers['x-cg-demo-api-key'] === 'CG-second',
      );
      expect(takenOver.path).toBe('/simple/price');
      await server.logged((line) => line.msg === 'this process polls the price source now');

      child.kill('SIGTERM');
      await new Promise((resolve) => child!.once('exit', resolve));
      child = undefined;
      const [lease] = await observer.app.get(Db).query<{ holder: string | null }>(sql`SELECT holder FROM price_poller`);
      expect(lease!.holder).toBeNull();
    } finally {
      child?.kill('SIGKILL');
      await holder.close().catch(() => undefined);
      await observer.close();
      await database.drop();
    }
  });

  /** `npm start` as a separate process, polling the stub every second; its log lines, parsed. */
  function startServerProcess(databaseUrl: string, env: Record<string, string>) {
    const child = spawn(process.execPath, nodeArgs('src/main'), {
      cwd: join(__dirname, '..'),
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        PORT: '0',
        API_KEYS: `ops:${newKey()}`,
        LOG_LEVEL: 'info',
        PRICE_SOURCE_URL: stub.url,
        PRICE_REFRESH_SECONDS: '1',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines: LogLine[] = [];
    const listeners = new Set<() => void>();
    createInterface({ input: child.stdout }).on('line', (text) => {
      if (!text.startsWith('{')) return;
      lines.push(JSON.parse(text) as LogLine);
      for (const listener of listeners) listener();
    });
    const logged = (matches: (line: LogLine) => boolean) =>
      new Promise<LogLine>((resolve) => {
        const check = () => {
          const found = lines.find((line) => line.context === 'Prices' && matches(line));
          if (found === undefined) return;
          listeners.delete(check);
          resolve(found);
        };
        listeners.add(check);
        check();
      });
    return { child, logged };
  }
});

describe('prices check', () => {
  let stub: CoinGeckoStub;
  let database: { url: string; drop: () => Promise<void> };

  beforeAll(async () => {
    [stub, database] = await Promise.all([CoinGeckoStub.start(), freshDatabase('sqlite')]);
  });

  afterAll(async () => {
    await stub?.close();
    await database?.drop();
  });

  const check = (env: Record<string, string> = {}) =>
    runCli(database.url, ['prices', 'check'], undefined, {
      env: { PRICE_SOURCE_URL: stub.url, PRICE_API_KEY: 'CG-secret-demo-key', ...env },
    });

  it('asks the source once with the plan and key, prints the price, and stores nothing', async () => {
    stub.setPrice('bitcoin', { usd: 97123.45, last_updated_at: NOW_S - 30 });
    const from = stub.requests.length;
    const passed = await check();
    expect(passed.code).toBe(0);
    expect(JSON.parse(passed.stdout)).toEqual({
      ok: true,
      source: stub.url,
      plan: 'demo',
      key: true,
      polling: true,
      token: 'bitcoin',
      usd: '97123.45',
      at: iso(NOW_S - 30),
      error: null,
    });
    expect(passed.stderr).toBe(
      `price source ${stub.url} (a demo key): ok, bitcoin 97123.45 USD at ${iso(NOW_S - 30)}\n`,
    );
    const asked = stub.requests.slice(from);
    expect(asked.map((request) => [request.path, request.query.get('ids')])).toEqual([['/simple/price', 'bitcoin']]);
    expect(asked[0]!.headers['x-cg-demo-api-key']).toBe('CG-secret-demo-key');
    expect(passed.stdout + passed.stderr).not.toContain('CG-secret-demo-key');
    expect(rowsOf(database.url)).toEqual([]);
  });

  it('fails with the reason the poller would log: a refused key, an answer without the price, no source', async () => {
    stub.misbehave({ kind: 'status', status: 401 });
    const refused = await check({ PRICE_API_PLAN: 'pro', PRICE_REFRESH_SECONDS: '0' });
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({
      ok: false,
      plan: 'pro',
      polling: false,
      usd: null,
      error: 'answered HTTP 401 (check PRICE_API_KEY and PRICE_API_PLAN)',
    });
    expect(refused.stderr).toContain('(PRICE_REFRESH_SECONDS=0: the server does not poll it)');
    expect(refused.stderr).toContain('error: the price source failed the check');

    stub.misbehave({ kind: 'body', body: '{}' });
    const unknown = await check();
    expect(JSON.parse(unknown.stdout)).toMatchObject({ ok: false, error: 'answered bitcoin with no price for it' });
    expect(unknown.code).toBe(1);

    const closed = await freePort();
    const unreachable = await check({ PRICE_SOURCE_URL: `http://127.0.0.1:${closed}/api/v3`, PRICE_API_KEY: '' });
    expect(JSON.parse(unreachable.stdout)).toMatchObject({
      ok: false,
      key: false,
      error: expect.stringMatching(/ECONNREFUSED/),
    });
    expect(unreachable.code).toBe(1);
  });
});

/** The price rows of the SQLite database at `url`. */
function rowsOf(url: string): unknown[] {
  const sqlite = new Database(url.slice('sqlite:'.length), { readonly: true });
  try {
    return sqlite.prepare('SELECT * FROM prices').all();
  } finally {
    sqlite.close();
  }
}
