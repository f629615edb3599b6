import type { PriceSourceConfig } from '../../config/config';
import { MalformedAnswer, planRequests, priceTarget, readAnswer } from './price-quotes';
import { PriceSourceClient, PriceSourceError } from './price-source.client';

/** The token `prices check` asks about: shipped with chaintags, and listed by every CoinGecko plan. */
const CHECKED_TOKEN = 'bitcoin';

/** What `prices check` prints: never the key, only whether one is set. */
export interface SourceCheck {
  ok: boolean;
  /** PRICE_SOURCE_URL without credentials or query. */
  source: string;
  plan: PriceSourceConfig['plan'];
  /** Whether PRICE_API_KEY is set. */
  key: boolean;
  /** Whether this configuration polls (PRICE_REFRESH_SECONDS above 0). */
  polling: boolean;
  token: string;
  /** The price answered, as a decimal, and the source's time for it. */
  usd: string | null;
  at: string | null;
  /** Why the check failed, for a person (as the poller would log it). */
  error: string | null;
}

/**
 * Asks the source once what the poller asks first (`/simple/price` for one shipped token), with the
 * configured URL, plan and key, and reads the answer as the poller does: whether the source answers,
 * takes the key and speaks CoinGecko's shape. Stores nothing.
 */
export async function checkPriceSource(
  client: PriceSourceClient,
  config: PriceSourceConfig,
  signal: AbortSignal,
): Promise<SourceCheck> {
  const base = {
    source: client.location,
    plan: config.plan,
    key: config.apiKey !== undefined,
    polling: config.refreshMs > 0,
    token: CHECKED_TOKEN,
  };
  const [request] = planRequests([priceTarget({ id: CHECKED_TOKEN })], config.url.length);
  try {
    const answer = readAnswer(await client.getJson(request!.path, signal), request!, Date.now());
    const [quote] = answer.quotes;
    if (quote === undefined) {
      const why = answer.rejected[0]?.reason ?? 'no price for it';
      return { ok: false, ...base, usd: null, at: null, error: `answered ${CHECKED_TOKEN} with ${why}` };
    }
    return { ok: true, ...base, usd: quote.usd, at: quote.at, error: null };
  } catch (error) {
    if (error instanceof PriceSourceError || error instanceof MalformedAnswer) {
      return { ok: false, ...base, usd: null, at: null, error: error.message };
    }
    throw error;
  }
}
