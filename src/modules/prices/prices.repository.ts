import { Injectable } from '@nestjs/common';
import { parseDecimal } from '../../core/money/valuation';
import { Db, Sql } from '../../database/db.service';
import { toIso } from '../../database/dialect';
import { chunks, list, rows, sql } from '../../database/sql';
import type { KnownToken, Quote } from './price-quotes';

/** A token as the poller reads it: what to ask for, and when the source last knew nothing of it. */
export interface PolledToken extends KnownToken {
  missedAtMs: number | null;
}

export interface StoreResult {
  /** False when another process holds the lease now: nothing was written. */
  held: boolean;
  /** New price rows. */
  stored: number;
  /** Quotes equal to the newest stored price, or not newer than it. */
  unchanged: number;
}

/**
 * The prices table as the poller sees it, the tokens the source did not know (`price_misses`,
 * migration 1763700000250) and the `price_poller` lease (migration 1763700000020).
 * Lease times are this process's clock: clocks of hosts sharing a database differ by far less than
 * a lease lasts.
 */
@Injectable()
export class PricesRepository {
  constructor(private readonly db: Db) {}

  /**
   * Every token, with its deployment where it has exactly one (what priceTarget reads), and when
   * the source last answered nothing for it.
   */
  async tokens(): Promise<PolledToken[]> {
    const found = await this.db.query<{
      id: string;
      chain: string | null;
      address: string | null;
      deployments: number | string;
      missed_at: Date | string | null;
    }>(
      sql`SELECT t.id, MIN(d.chain) AS chain, MIN(d.address) AS address, COUNT(d.address) AS deployments,
                 MIN(m.missed_at) AS missed_at
          FROM tokens t
          LEFT JOIN token_deployments d ON d.token_id = t.id
          LEFT JOIN price_misses m ON m.token_id = t.id
          GROUP BY t.id ORDER BY t.id`,
    );
    return found.map((row) => {
      const missedAtMs = row.missed_at === null ? null : Date.parse(toIso(row.missed_at));
      return Number(row.deployments) === 1 && row.chain !== null && row.address !== null
        ? { id: row.id, deployment: { chain: row.chain, address: row.address }, missedAtMs }
        : { id: row.id, missedAtMs };
    });
  }

  /** When a poll last got an answer from the source and stored it (ms since the epoch), if ever. */
  async polledAt(): Promise<number | undefined> {
    const [row] = await this.db.query<{ polled_at: Date | string | null }>(
      sql`SELECT polled_at FROM price_poller WHERE id = 1`,
    );
    return row?.polled_at === null || row?.polled_at === undefined ? undefined : Date.parse(toIso(row.polled_at));
  }

  /** Takes the lease when it is free or lapsed, or extends it when `holder` has it already. */
  async claim(holder: string, now: Date, until: Date): Promise<boolean> {
    const changed = await this.db.execute(
      sql`UPDATE price_poller SET holder = ${holder}, lease_until = ${until.toISOString()}
          WHERE id = 1 AND (holder = ${holder} OR holder IS NULL OR lease_until < ${now.toISOString()})`,
    );
    return changed === 1;
  }

  /** Lets another process take over at once. */
  async release(holder: string): Promise<void> {
    await this.db.execute(
      sql`UPDATE price_poller SET holder = NULL, lease_until = NULL WHERE id = 1 AND holder = ${holder}`,
    );
  }

  /**
   * Stores the quotes that change something, and which tokens the source did not know (`missed`),
   * in one transaction that first makes sure `holder` still holds the lease (its row lock also
   * queues a concurrent claim behind the write). A quote is stored when it is newer than the
   * token's newest price and differs from it; a quoted token is no longer missed. Nothing kept
   * depends on prices: USD values are computed at read time from kept balance sums and the latest
   * price.
   */
  store(holder: string, quotes: readonly Quote[], missed: readonly string[], now: Date): Promise<StoreResult> {
    return this.db.transaction(async (tx) => {
      const held = await tx.execute(
        sql`UPDATE price_poller SET polled_at = ${now.toISOString()} WHERE id = 1 AND holder = ${holder}`,
      );
      if (held !== 1) return { held: false, stored: 0, unchanged: 0 };
      const quoted = [...new Set(quotes.map((quote) => quote.tokenId))];
      const newest = await newestPrices(tx, quoted);
      const changes = quotes.filter((quote) => {
        const current = newest.get(quote.tokenId);
        return current === undefined || (quote.at > current.at && !sameDecimal(quote.usd, current.usd));
      });
      for (const batch of chunks(changes)) {
        await tx.execute(
          sql`INSERT INTO prices (token_id, at, usd) VALUES ${rows(batch.map((quote) => [quote.tokenId, quote.at, quote.usd]))}
              ON CONFLICT (token_id, at) DO NOTHING`,
        );
      }
      for (const batch of chunks(quoted)) {
        await tx.execute(sql`DELETE FROM price_misses WHERE token_id IN (${list(batch)})`);
      }
      for (const batch of chunks([...new Set(missed)])) {
        await tx.execute(
          sql`INSERT INTO price_misses (token_id, missed_at) VALUES ${rows(batch.map((tokenId) => [tokenId, now.toISOString()]))}
              ON CONFLICT (token_id) DO UPDATE SET missed_at = excluded.missed_at`,
        );
      }
      return { held: true, stored: changes.length, unchanged: quotes.length - changes.length };
    });
  }
}

async function newestPrices(tx: Sql, tokenIds: readonly string[]): Promise<Map<string, { at: string; usd: string }>> {
  const newest = new Map<string, { at: string; usd: string }>();
  for (const batch of chunks(tokenIds)) {
    const found = await tx.query<{ token_id: string; at: Date | string; usd: string | number }>(
      sql`SELECT p.token_id, p.at, p.usd FROM prices p
          WHERE p.token_id IN (${list(batch)})
            AND p.at = (SELECT MAX(q.at) FROM prices q WHERE q.token_id = p.token_id)`,
    );
    for (const row of found) newest.set(row.token_id, { at: toIso(row.at), usd: String(row.usd) });
  }
  return newest;
}

/** "3120.5" and "3120.50" are one price. */
function sameDecimal(a: string, b: string): boolean {
  const x = parseDecimal(a);
  const y = parseDecimal(b);
  return x.units === y.units && x.scale === y.scale;
}
