/**
 * Writes examples/demo.ndjson, the data `npm run demo` imports: a deterministic, made-up but
 * realistic-looking set across all 13 chains. Every address is a real encoding (checksums
 * included) of seeded random bytes, written in the spelling a wallet or explorer would show
 * (EIP-55 mixed case, TON user-friendly, CashAddr without prefix), so the import's
 * canonicalisation is part of the demo. Regenerate with:
 *
 *   node -r @swc-node/register examples/generate-demo.ts
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeCashAddress } from '@bitauth/libauth/build/lib/address/cash-address.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base58, bech32, createBase58check, hex } from '@scure/base';
import { Address } from '@ton/core';
import { getAddress } from 'viem';
import { canonicalAddressOnChain } from '../src/core/addresses';
import { CHAIN_IDS, ChainId } from '../src/core/chains/chain-ids';
import { TOKENS } from '../src/database/reference-data';
import { syntheticTxHash } from '../scripts/lib/tx-hash';
import { SHIPPED_USD } from '../scripts/lib/usd-prices';

const OUTPUT = join(__dirname, 'demo.ndjson');
const HOLDERS_PER_CHAIN = 6;
const TRANSACTIONS = 320;
const START = Date.UTC(2024, 5, 1);

/** A deterministic byte source: SHA-256 of a seed and a counter. */
class Random {
  private counter = 0;
  constructor(private readonly seed: string) {}

  bytes(length: number): Uint8Array {
    const out = new Uint8Array(length);
    for (let filled = 0; filled < length; filled += 32) {
      const digest = createHash('sha256').update(`${this.seed}/${this.counter++}`).digest();
      out.set(digest.subarray(0, Math.min(32, length - filled)), filled);
    }
    return out;
  }

  /** Uniform enough for demo data: an integer in [0, n). */
  below(n: number): number {
    return Buffer.from(this.bytes(6)).readUIntBE(0, 6) % n;
  }

  hex(length: number): string {
    return hex.encode(this.bytes(length));
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)]!;
  }
}

const random = new Random('chaintags demo v1');
const base58check = createBase58check(sha256);

/** One address of the chain's usual family, as a wallet would print it. */
function newAddress(chain: ChainId): string {
  switch (chain) {
    case 'ethereum':
    case 'bnb':
    case 'polygon':
    case 'arbitrum':
    case 'optimism':
    case 'base':
      return getAddress(`0x${hex.encode(random.bytes(20))}`);
    case 'bitcoin':
      // Alternate native SegWit and legacy P2PKH, as a real address population mixes them.
      return random.below(2) === 0
        ? bech32.encode('bc', [0, ...bech32.toWords(random.bytes(20))])
        : base58check.encode(Uint8Array.from([0x00, ...random.bytes(20)]));
    case 'bitcoincash':
      return encodeCashAddress({ payload: random.bytes(20), type: 'p2pkh' }).address.slice('bitcoincash:'.length);
    case 'dogecoin':
      return base58check.encode(Uint8Array.from([0x1e, ...random.bytes(20)]));
    case 'solana':
      return base58.encode(random.bytes(32));
    case 'ton':
      return new Address(0, Buffer.from(random.bytes(32))).toString({ bounceable: false, urlSafe: true });
    case 'sui':
    case 'aptos':
      return `0x${hex.encode(random.bytes(32))}`;
  }
}

function verified(chain: ChainId, address: string): string {
  const parsed = canonicalAddressOnChain(address, chain);
  if (!parsed.ok) throw new Error(`generated an address chaintags rejects on ${chain}: ${address} (${parsed.reason})`);
  return address;
}

/** Roughly where each chain's block height (Solana: slot, Sui: checkpoint) stood in June 2024, and its block interval. */
const BLOCKS: Record<ChainId, { height: number; seconds: number }> = {
  bitcoin: { height: 846_000, seconds: 600 },
  ethereum: { height: 20_000_000, seconds: 12 },
  bnb: { height: 39_200_000, seconds: 3 },
  solana: { height: 270_000_000, seconds: 0.4 },
  dogecoin: { height: 5_250_000, seconds: 60 },
  bitcoincash: { height: 849_000, seconds: 600 },
  ton: { height: 38_000_000, seconds: 5 },
  polygon: { height: 57_900_000, seconds: 2 },
  arbitrum: { height: 218_000_000, seconds: 0.25 },
  optimism: { height: 121_000_000, seconds: 2 },
  base: { height: 15_500_000, seconds: 2 },
  sui: { height: 34_000_000, seconds: 0.3 },
  aptos: { height: 180_000_000, seconds: 0.25 },
};

/** Demo USD prices (three daily snapshots each); only the latest shows in the API. */
const USD: Record<string, number> = { ...SHIPPED_USD, chainlink: 17.08 };

/** A token the shipped list lacks, defined by the file itself. */
const EXTRA_TOKEN = {
  type: 'token',
  id: 'chainlink',
  name: 'Chainlink',
  symbol: 'LINK',
  icon_url: 'https://assets.coingecko.com/coins/images/877/large/chainlink-new-logo.png',
  deployments: [{ chain: 'ethereum', address: getAddress('0x514910771af9ca656af840dff83e8264ecf986ca'), decimals: 18 }],
};

interface Deployment {
  tokenId: string;
  chain: ChainId;
  address: string;
  decimals: number;
}

const deployments: Deployment[] = [
  ...TOKENS.flatMap((token) => token.deployments.map((d) => ({ tokenId: token.id, ...d }))),
  ...EXTRA_TOKEN.deployments.map((d) => ({
    tokenId: EXTRA_TOKEN.id,
    chain: d.chain as ChainId,
    address: d.address,
    decimals: d.decimals,
  })),
];

/** An amount of `whole` tokens with some fraction, in the smallest unit, as exact decimal digits. */
function amount(whole: number, decimals: number): string {
  const fractionDigits = Math.min(decimals, 6);
  const units = BigInt(whole) * 10n ** BigInt(decimals);
  const fraction = BigInt(random.below(10 ** fractionDigits)) * 10n ** BigInt(decimals - fractionDigits);
  return (units + fraction).toString();
}

/** Typical holding sizes in whole tokens, from the token's price: a few hundred to a few hundred thousand USD. */
function wholeTokens(tokenId: string): number {
  const usd = 200 * 10 ** random.below(4) * (1 + random.below(9));
  return Math.max(1, Math.round(usd / (USD[tokenId] ?? 1)));
}

const iso = (ms: number) => new Date(ms).toISOString();
const lines: Record<string, unknown>[] = [EXTRA_TOKEN];

for (const tokenId of Object.keys(USD).sort()) {
  for (let day = 0; day < 3; day += 1) {
    const drift = 1 + (random.below(401) - 200) / 10_000;
    lines.push({
      type: 'price',
      token_id: tokenId,
      usd: Number((USD[tokenId]! * (day === 2 ? 1 : drift)).toPrecision(6)),
      at: iso(START + day * 86_400_000),
    });
  }
}

// One pool of holders per chain; the EVM chains share theirs, as one EVM key is one address on all six.
const evmPool = Array.from({ length: HOLDERS_PER_CHAIN }, () => verified('ethereum', newAddress('ethereum')));
const pools = new Map<ChainId, string[]>(
  CHAIN_IDS.map((chain) => [
    chain,
    canonicalAddressOnChain(evmPool[0]!, chain).ok
      ? evmPool
      : Array.from({ length: HOLDERS_PER_CHAIN }, () => verified(chain, newAddress(chain))),
  ]),
);
// Legacy Bitcoin addresses are valid on Bitcoin Cash too: the same key holds coins on both.
const bitcoinLegacy = pools.get('bitcoin')!.filter((address) => /^1/.test(address));
pools.set('bitcoincash', [...pools.get('bitcoincash')!.slice(0, HOLDERS_PER_CHAIN - 1), ...bitcoinLegacy.slice(0, 1)]);

for (const deployment of deployments) {
  const pool = pools.get(deployment.chain)!;
  const holders = 2 + random.below(pool.length - 1);
  for (const address of pool.slice(0, holders)) {
    lines.push({
      type: 'holding',
      chain: deployment.chain,
      address,
      token_address: deployment.address,
      balance: amount(wholeTokens(deployment.tokenId), deployment.decimals),
      updated_at: iso(START + 2 * 86_400_000 + random.below(86_400) * 1000),
    });
  }
}

const clock = new Map(CHAIN_IDS.map((chain) => [chain, { height: BLOCKS[chain].height, time: START }]));
for (let index = 0; index < TRANSACTIONS; index += 1) {
  const chain = CHAIN_IDS[index % CHAIN_IDS.length]!;
  const deployment = random.pick(deployments.filter((d) => d.chain === chain));
  const pool = pools.get(chain)!;
  const from = random.pick(pool);
  const to = random.pick(pool.filter((address) => address !== from));
  const position = clock.get(chain)!;
  const blocks = 1 + random.below(400);
  position.height += blocks;
  position.time += Math.round(blocks * BLOCKS[chain].seconds * 1000);
  const hash = syntheticTxHash(chain, random);
  // Block rewards and mints have no sender; chaintags records them with from_address "0".
  const minted = deployment.address === '0' && random.below(12) === 0;
  lines.push({
    type: 'transaction',
    id: `${hash}:${random.below(4)}`,
    chain,
    token_address: deployment.address,
    from_address: minted ? '0' : from,
    to_address: to,
    value: amount(Math.max(1, Math.round(wholeTokens(deployment.tokenId) / 20)), deployment.decimals),
    tx_hash: hash,
    block_number: String(position.height),
    block_hash: syntheticTxHash(chain, random),
    block_time: iso(position.time),
  });
}

writeFileSync(OUTPUT, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
process.stderr.write(`wrote ${lines.length} lines to ${OUTPUT}\n`);
