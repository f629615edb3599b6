/**
 * The dataset's tokens: the shipped deployments plus EXTRA_TOKENS made-up tokens on EVM chains and
 * Solana, their daily prices, and amounts in a token's smallest unit.
 */
import { base58 } from '@scure/base';
import { ChainId } from '../../src/core/chains/chain-ids';
import { TOKENS } from '../../src/database/reference-data';
import { SHIPPED_USD } from '../../scripts/lib/usd-prices';
import type { Random } from '../lib/random';
import { EVM_CHAINS } from './addresses';
import type { DatasetOutput } from './output';
import { DAY_MS, SPAN_MS, START } from './year';

const PRICE_DAYS = 30;
const EXTRA_TOKENS = 30;

export interface Deployment {
  tokenId: string;
  chain: ChainId;
  /** Canonical. */
  address: string;
  decimals: number;
}

type TokenLine = {
  type: 'token';
  id: string;
  name: string;
  symbol: string;
  icon_url: string;
  deployments: { chain: ChainId; address: string; decimals: number }[];
};

export interface Deployments {
  all: Deployment[];
  extraTokens: TokenLine[];
  prices: Map<string, number>;
}

/** The shipped deployments plus EXTRA_TOKENS made-up tokens on EVM chains and Solana, with their prices (made up for the made-up ones). */
export function buildDeployments(random: Random): Deployments {
  const all: Deployment[] = TOKENS.flatMap((token) =>
    token.deployments.map((d) => ({ tokenId: token.id, chain: d.chain, address: d.address, decimals: d.decimals })),
  );
  const prices = new Map(TOKENS.map((token) => [token.id, SHIPPED_USD[token.id] ?? 1]));
  const extraTokens: TokenLine[] = [];
  const hosts: ChainId[] = [...EVM_CHAINS, 'solana'];
  for (let index = 1; index <= EXTRA_TOKENS; index += 1) {
    const id = `bench-token-${String(index).padStart(3, '0')}`;
    const chains = random.shuffle([...hosts]).slice(0, 1 + random.below(4));
    const decimals = random.pick([6, 8, 9, 18, 18]);
    const token: TokenLine = {
      type: 'token',
      id,
      name: `Bench Token ${index}`,
      symbol: `BT${index}`,
      icon_url: `https://example.com/icons/${id}.png`,
      deployments: chains.map((chain) => ({
        chain,
        address: chain === 'solana' ? base58.encode(random.bytes(32)) : `0x${random.hex(20)}`,
        decimals,
      })),
    };
    extraTokens.push(token);
    for (const d of token.deployments) all.push({ tokenId: id, chain: d.chain, address: d.address, decimals });
    prices.set(id, 0.01 * 10 ** (random.below(500) / 100));
  }
  return { all, extraTokens, prices };
}

/** The made-up tokens (NDJSON token lines; tokens and token_deployments rows). */
export function writeTokens(deployments: Deployments, out: DatasetOutput): void {
  for (const token of deployments.extraTokens) {
    out.line('token', token);
    out.row('tokens', [token.id, token.name, token.symbol, token.icon_url]);
    for (const d of token.deployments) out.row('token_deployments', [d.chain, d.address, token.id, d.decimals]);
  }
}

/** PRICE_DAYS daily prices per token up to the end of the year, drifting around its price; the last is the price. */
export function writePrices(random: Random, deployments: Deployments, out: DatasetOutput): void {
  for (const [tokenId, usd] of deployments.prices) {
    for (let day = 0; day < PRICE_DAYS; day += 1) {
      const drift = day === PRICE_DAYS - 1 ? 1 : 1 + (random.below(801) - 400) / 10_000;
      const price = decimalText(usd * drift);
      const at = new Date(START + SPAN_MS - (PRICE_DAYS - 1 - day) * DAY_MS).toISOString();
      out.line('price', { type: 'price', token_id: tokenId, usd: price, at });
      out.row('prices', [tokenId, at, price]);
    }
  }
}

/** The deployments of each chain. */
export function deploymentsByChain(deployments: Deployments, chains: readonly ChainId[]): Map<ChainId, Deployment[]> {
  return new Map(chains.map((chain) => [chain, deployments.all.filter((d) => d.chain === chain)]));
}

/** The chain's native coin (address `0`) with probability `nativeShare`, otherwise any of its deployments. */
export function drawDeployment(random: Random, candidates: readonly Deployment[], nativeShare: number): Deployment {
  return random.chance(nativeShare) ? candidates.find((d) => d.address === '0')! : random.pick(candidates);
}

/** Plain decimal text without exponent or trailing zeros, as chaintags stores prices. */
function decimalText(value: number): string {
  return value
    .toFixed(6)
    .replace(/(\.\d*?)0+$/, '$1')
    .replace(/\.$/, '');
}

/** A random amount of up to about 10^maxWholeDigits whole tokens, in the smallest unit: digits without leading zeros. */
export function amount(random: Random, decimals: number, maxWholeDigits: number): string {
  const length = Math.max(1, decimals - 4 + random.below(maxWholeDigits + 5));
  let digits = String(1 + random.below(9));
  while (digits.length < length) digits += String(random.below(10));
  return digits.slice(0, 78);
}
