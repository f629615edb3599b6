/**
 * Exact USD valuation of token amounts. Balances reach 78 digits and prices are decimals, so both
 * are kept as integers (a price as an integer and a power of ten) and the sum is rounded to cents
 * only once, at the end.
 */
export interface Position {
  /** Decimal integer string in the token's smallest unit. */
  balance: string;
  decimals: number;
  /** Decimal string (e.g. "0.99985"); undefined or "0" when the price is unknown. */
  usd: string | undefined;
}

interface ScaledDecimal {
  units: bigint;
  scale: number;
}

export function parseDecimal(text: string): ScaledDecimal {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!match) throw new Error(`not a plain non-negative decimal: ${text}`);
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  return { units: BigInt(`${match[1]}${fraction}`), scale: fraction.length };
}

/** Sum of balance / 10^decimals × price over the positions, in USD, rounded half-up to cents. */
export function totalUsd(positions: readonly Position[]): number {
  const terms = positions
    .filter((position) => position.usd !== undefined)
    .map((position) => {
      const price = parseDecimal(position.usd!);
      return { numerator: BigInt(position.balance) * price.units, scale: position.decimals + price.scale };
    })
    .filter((term) => term.numerator > 0n);
  if (terms.length === 0) return 0;
  const scale = Math.max(...terms.map((term) => term.scale));
  const numerator = terms.reduce((sum, term) => sum + term.numerator * 10n ** BigInt(scale - term.scale), 0n);
  const cents = scale >= 2 ? roundHalfUp(numerator, 10n ** BigInt(scale - 2)) : numerator * 10n ** BigInt(2 - scale);
  return Number(cents) / 100;
}

function roundHalfUp(numerator: bigint, denominator: bigint): bigint {
  return (numerator * 2n + denominator) / (denominator * 2n);
}

/**
 * Whether `amount` (in the token's smallest unit) at `usd` a whole token is worth at least
 * `minimum` USD, exactly: amount × price ≥ minimum × 10^decimals. An amount without a price
 * (`usd` undefined) is worth 0.
 */
export function worthAtLeast(amount: string, decimals: number, usd: string | undefined, minimum: string): boolean {
  const floor = parseDecimal(minimum);
  if (usd === undefined) return floor.units === 0n;
  const price = parseDecimal(usd);
  const worth = BigInt(amount) * price.units * 10n ** BigInt(floor.scale);
  return worth >= floor.units * 10n ** BigInt(decimals + price.scale);
}
