/**
 * Deterministic benchmark datasets for chaintags.
 *
 * One run writes, into its own folder:
 * - `dataset.ndjson`: what `chaintags import` reads: benchmark tokens, daily prices, holdings and
 *   transactions, in that order. Addresses appear as wallets and explorers print them (half of the
 *   EVM addresses EIP-55 checksummed, TON in the user-friendly form, CashAddr without its prefix),
 *   so the import pays for canonicalisation as it would on real data.
 * - `copy/<table>.csv`: the same rows in their stored (canonical) form, for PostgreSQL's COPY, the
 *   yardstick of the import's speed.
 * - `meta.json`: what NDJSON cannot carry and what the benchmark needs: the tags of three accounts
 *   (tags belong to an account and are loaded through the API), the request keys drawn from the
 *   data, and a summary of the skew. It is written last, so a folder with a meta.json is complete.
 *
 * Realistic skew: every chain's addresses are ranked and each transaction draws its sender and
 * recipient from a Zipf distribution (s = 1) over that ranking. At the default scale a dozen
 * addresses carry 10k+ transactions each while most carry a handful. The EVM chains share one
 * ranking, as one EVM key is one address on all six chains.
 *
 * The same options and seed give byte-identical files. Usage:
 *
 *   node -r @swc-node/register bench/generate.ts [--addresses 100000] [--transactions 1000000]
 *     [--holdings 300000] [--tags 1000] [--seed chaintags-bench-v1] [--out <folder>]
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeCashAddress } from '@bitauth/libauth/build/lib/address/cash-address.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base58, bech32, createBase58check } from '@scure/base';
import { Address } from '@ton/core';
import { Command, Option, OptionValues } from 'commander';
import { getAddress } from 'viem';
import { canonicalAddressOnChain, type AddressFamily } from '../src/core/addresses';
import { chainsOfFamily } from '../src/core/addresses/address-families';
import { ADDRESS_FAMILIES } from '../src/core/addresses/families';
import { CHAIN_IDS, ChainId } from '../src/core/chains/chain-ids';
import { MAX_TAGS_PER_ADDRESS } from '../src/core/tags/tag-rules';
import { TOKENS } from '../src/database/reference-data';
import { TRANSACTION_FIELDS } from '../src/core/records/transaction-fields';
import { syntheticTxHash } from '../scripts/lib/tx-hash';
import { parseCommandLine, wholeNumber } from './lib/options';

/** Bumped whenever the output for the same options changes, so cached datasets are rebuilt. */
export const GENERATOR_VERSION = 2;

export interface DatasetOptions {
  addresses: number;
  transactions: number;
  holdings: number;
  tags: number;
  seed: string;
}

export const DEFAULT_DATASET: DatasetOptions = {
  addresses: 100_000,
  transactions: 1_000_000,
  holdings: 300_000,
  tags: 1_000,
  seed: 'chaintags-bench-v1',
};

/** The accounts owning the tags; the benchmark's requests use the first. */
export const BENCH_ACCOUNTS = ['bench_a', 'bench_b', 'bench_c'] as const;
/** The largest tag of each account has this many addresses (fewer when the dataset has fewer). */
export const BIG_TAG_SIZE = 10_000;

export interface TagPlan {
  account: string;
  name: string;
  /** As a client would send them (any accepted spelling). */
  addresses: string[];
}

export interface DatasetMeta {
  version: number;
  options: DatasetOptions;
  files: { ndjson: string; copy: Record<CopyTable, string> };
  /** NDJSON lines by type: what a committed import reports as valid. */
  lines: { token: number; price: number; holding: number; transaction: number; total: number };
  /** Rows COPY writes per table (the reference tokens are already in the database). */
  copyRows: Record<CopyTable, number>;
  tags: TagPlan[];
  samples: {
    /** Addresses for the address and transactions endpoints, in request order. */
    addresses: string[];
    /** Tags of BENCH_ACCOUNTS[0] for the tag endpoints, in request order. */
    tags: string[];
    /** The BENCH_ACCOUNTS[0] tag with BIG_TAG_SIZE addresses. */
    bigTag: string;
  };
  skew: {
    maxTransactionsPerAddress: number;
    addressesWith10kPlus: number;
    addressesWith1kPlus: number;
    medianTransactionsPerActiveAddress: number;
    activeAddresses: number;
  };
}

export const COPY_TABLES = ['tokens', 'token_deployments', 'prices', 'holdings', 'transactions'] as const;
export type CopyTable = (typeof COPY_TABLES)[number];

export const COPY_COLUMNS: Record<CopyTable, readonly string[]> = {
  tokens: ['id', 'name', 'symbol', 'icon_url'],
  token_deployments: ['chain', 'address', 'token_id', 'decimals'],
  prices: ['token_id', 'at', 'usd'],
  holdings: ['chain', 'token_address', 'address', 'balance', 'updated_at'],
  transactions: TRANSACTION_FIELDS,
};

export function datasetName(options: DatasetOptions): string {
  const seed = options.seed.replace(/[^A-Za-z0-9_-]/g, '_');
  return `a${options.addresses}-t${options.transactions}-h${options.holdings}-g${options.tags}-${seed}`;
}

export function defaultDatasetDir(options: DatasetOptions): string {
  return join(tmpdir(), 'chaintags-bench', datasetName(options));
}

/** The dataset in `dir`, generated first unless a complete one for the same options is there. */
export function ensureDataset(
  options: DatasetOptions,
  dir: string,
  log: (line: string) => void = () => undefined,
): DatasetMeta {
  const existing = readMeta(dir);
  if (existing?.version === GENERATOR_VERSION && sameOptions(existing.options, options)) {
    log(`reusing the dataset in ${dir}`);
    return existing;
  }
  return generateDataset(options, dir, log);
}

export function readMeta(dir: string): DatasetMeta | undefined {
  const file = join(dir, 'meta.json');
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as DatasetMeta;
}

function sameOptions(a: DatasetOptions, b: DatasetOptions): boolean {
  return (
    a.addresses === b.addresses &&
    a.transactions === b.transactions &&
    a.holdings === b.holdings &&
    a.tags === b.tags &&
    a.seed === b.seed
  );
}

/**
 * A small, fast, seedable generator (sfc32). Node's crypto would be deterministic too but far too
 * slow for tens of millions of draws.
 */
class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: string) {
    const digest = createHash('sha256').update(seed).digest();
    this.a = digest.readUInt32LE(0);
    this.b = digest.readUInt32LE(4);
    this.c = digest.readUInt32LE(8);
    this.d = digest.readUInt32LE(12);
    for (let index = 0; index < 16; index += 1) this.next();
  }

  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** In [0, 1), with 53 random bits. */
  float(): number {
    return (this.next() * 2 ** 21 + (this.next() >>> 11)) / 2 ** 53;
  }

  below(n: number): number {
    return Math.floor(this.float() * n);
  }

  chance(probability: number): boolean {
    return this.float() < probability;
  }

  bytes(length: number): Uint8Array {
    const out = new Uint8Array(length);
    for (let index = 0; index < length; index += 4) {
      const word = this.next();
      for (let shift = 0; shift < 4 && index + shift < length; shift += 1)
        out[index + shift] = (word >>> (8 * shift)) & 0xff;
    }
    return out;
  }

  hex(byteCount: number): string {
    let text = '';
    for (let index = 0; index < byteCount; index += 4) {
      const word = this.next();
      for (let shift = 0; shift < 4 && index + shift < byteCount; shift += 1)
        text += HEX[(word >>> (8 * shift)) & 0xff];
    }
    return text;
  }

  /** Rank in [0, n) with P(rank < k) ≈ ln(k + 1) / ln(n + 1): Zipf with s = 1. */
  zipf(n: number): number {
    return Math.min(n - 1, Math.floor((n + 1) ** this.float()) - 1);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)]!;
  }

  shuffle<T>(items: T[]): T[] {
    for (let index = items.length - 1; index > 0; index -= 1) {
      const other = this.below(index + 1);
      [items[index], items[other]] = [items[other]!, items[index]!];
    }
    return items;
  }
}

const HEX = Array.from({ length: 256 }, (_unused, byte) => byte.toString(16).padStart(2, '0'));
const base58check = createBase58check(sha256);

/** Share of the address population per family, in percent. */
const FAMILY_SHARE: readonly [AddressFamily, number][] = [
  ['evm', 55],
  ['bitcoin_segwit', 6],
  ['bitcoin_legacy', 4],
  ['bitcoin_cash', 3],
  ['dogecoin', 4],
  ['solana', 14],
  ['ton', 6],
  ['move', 8],
];

/** The chains each family's addresses are valid on, from the chain registry. */
const FAMILY_CHAINS = new Map(ADDRESS_FAMILIES.map((family) => [family, chainsOfFamily(family)]));
const chainsOf = (family: AddressFamily): readonly ChainId[] => FAMILY_CHAINS.get(family) ?? [];
const EVM_CHAINS = chainsOf('evm');

/** Share of the transactions per chain, in percent; a chain not listed gets 1. */
const CHAIN_SHARE: Partial<Record<ChainId, number>> = {
  bitcoin: 8,
  ethereum: 20,
  bnb: 12,
  solana: 15,
  dogecoin: 2,
  bitcoincash: 1,
  ton: 5,
  polygon: 8,
  arbitrum: 8,
  optimism: 4,
  base: 10,
  sui: 4,
  aptos: 3,
};

/** Round USD prices of the shipped tokens; benchmark tokens get made-up ones. */
const SHIPPED_USD: Record<string, number> = {
  aptos: 8.42,
  binancecoin: 598.3,
  bitcoin: 67512.25,
  'bitcoin-cash': 471.9,
  dogecoin: 0.1597,
  ethereum: 3781.6,
  'polygon-ecosystem-token': 0.6789,
  solana: 166.35,
  sui: 1.021,
  tether: 1.0003,
  'the-open-network': 7.18,
  'usd-coin': 0.9998,
};

const START = Date.UTC(2025, 0, 1);
const SPAN_MS = 365 * 86_400_000;
const PRICE_DAYS = 30;
const EXTRA_TOKENS = 30;

interface Deployment {
  tokenId: string;
  chain: ChainId;
  /** Canonical. */
  address: string;
  decimals: number;
}

interface Population {
  /** As a wallet prints it. */
  spelling: string[];
  canonical: string[];
  family: AddressFamily[];
  /** Address indexes by chain, most active first. */
  pools: Map<ChainId, number[]>;
}

/** Buffered synchronous writes: the generator is a batch job, and one big write beats many small ones. */
class FileWriter {
  private readonly fd: number;
  private chunks: string[] = [];
  private size = 0;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'w');
  }

  line(text: string): void {
    this.chunks.push(text, '\n');
    this.size += text.length + 1;
    if (this.size >= 1 << 20) this.flush();
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }

  private flush(): void {
    if (this.chunks.length === 0) return;
    writeSync(this.fd, this.chunks.join(''));
    this.chunks = [];
    this.size = 0;
  }
}

function csv(values: readonly (string | number)[]): string {
  return values
    .map((value) => {
      const text = String(value);
      return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
    })
    .join(',');
}

export function generateDataset(
  options: DatasetOptions,
  dir: string,
  log: (line: string) => void = () => undefined,
): DatasetMeta {
  const started = Date.now();
  mkdirSync(join(dir, 'copy'), { recursive: true });
  const random = new Random(`${options.seed}/${GENERATOR_VERSION}`);
  log(`generating ${datasetName(options)} into ${dir}`);

  const population = buildPopulation(random, options.addresses);
  const deployments = buildDeployments(random);
  const byChain = new Map<ChainId, Deployment[]>(
    CHAIN_IDS.map((chain) => [chain, deployments.all.filter((d) => d.chain === chain)]),
  );
  const chainPicker = weightedPicker(CHAIN_IDS.map((chain) => [chain, CHAIN_SHARE[chain] ?? 1] as const));
  /** An address drawn like a transaction's sender: the busier an address, the likelier. */
  const activeAddress = (): number => {
    const pool = population.pools.get(chainPicker(random))!;
    return pool[random.zipf(pool.length)]!;
  };

  const files = {
    ndjson: join(dir, 'dataset.ndjson'),
    copy: Object.fromEntries(COPY_TABLES.map((table) => [table, join(dir, 'copy', `${table}.csv`)])) as Record<
      CopyTable,
      string
    >,
  };
  const ndjson = new FileWriter(`${files.ndjson}.partial`);
  const copy = Object.fromEntries(COPY_TABLES.map((table) => [table, new FileWriter(files.copy[table])])) as Record<
    CopyTable,
    FileWriter
  >;
  const lines = { token: 0, price: 0, holding: 0, transaction: 0, total: 0 };
  const copyRows = Object.fromEntries(COPY_TABLES.map((table) => [table, 0])) as Record<CopyTable, number>;
  const emit = (type: keyof typeof lines, record: Record<string, unknown>) => {
    ndjson.line(JSON.stringify(record));
    lines[type] += 1;
    lines.total += 1;
  };
  const row = (table: CopyTable, values: readonly (string | number)[]) => {
    copy[table].line(csv(values));
    copyRows[table] += 1;
  };

  for (const token of deployments.extraTokens) {
    emit('token', token);
    row('tokens', [token.id, token.name, token.symbol, token.icon_url]);
    for (const d of token.deployments) row('token_deployments', [d.chain, d.address, token.id, d.decimals]);
  }

  for (const [tokenId, usd] of deployments.prices) {
    for (let day = 0; day < PRICE_DAYS; day += 1) {
      const drift = day === PRICE_DAYS - 1 ? 1 : 1 + (random.below(801) - 400) / 10_000;
      const price = decimalText(usd * drift);
      const at = new Date(START + SPAN_MS - (PRICE_DAYS - 1 - day) * 86_400_000).toISOString();
      emit('price', { type: 'price', token_id: tokenId, usd: price, at });
      row('prices', [tokenId, at, price]);
    }
  }

  writeHoldings(random, options.holdings, population, byChain, activeAddress, emit, row);
  const perAddress = writeTransactions(random, options.transactions, population, byChain, chainPicker, emit, row);

  ndjson.close();
  for (const writer of Object.values(copy)) writer.close();
  renameSync(`${files.ndjson}.partial`, files.ndjson);

  const tags = planTags(random, options, population, activeAddress);
  const samples = drawSamples(random, population, perAddress, activeAddress, tags);
  const meta: DatasetMeta = {
    version: GENERATOR_VERSION,
    options,
    files,
    lines,
    copyRows,
    tags,
    samples,
    skew: skewOf(perAddress),
  };
  writeFileSync(join(dir, 'meta.json'), JSON.stringify(meta));
  log(
    `wrote ${lines.total} lines (${lines.transaction} transactions, ${lines.holding} holdings) and ${tags.length} ` +
      `tags in ${((Date.now() - started) / 1000).toFixed(1)} s; busiest address: ${meta.skew.maxTransactionsPerAddress} ` +
      `transactions, ${meta.skew.addressesWith10kPlus} with 10k+, median ${meta.skew.medianTransactionsPerActiveAddress}`,
  );
  return meta;
}

function weightedPicker<T>(entries: readonly (readonly [T, number])[]): (random: Random) => T {
  const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
  return (random) => {
    let point = random.float() * total;
    for (const [value, weight] of entries) {
      point -= weight;
      if (point < 0) return value;
    }
    return entries[entries.length - 1]![0];
  };
}

function buildPopulation(random: Random, count: number): Population {
  const familyPicker = weightedPicker(FAMILY_SHARE);
  const spelling: string[] = [];
  const canonical: string[] = [];
  const family: AddressFamily[] = [];
  for (let index = 0; index < count; index += 1) {
    const chosen = familyPicker(random);
    const address = newAddress(random, chosen);
    spelling.push(address.spelling);
    canonical.push(address.canonical);
    family.push(chosen);
  }
  // Every spelling must be what chaintags reads back as the canonical form, on every chain of the family.
  for (let index = 0; index < count; index += 1) {
    for (const chain of chainsOf(family[index]!)) {
      const parsed = canonicalAddressOnChain(spelling[index]!, chain);
      if (!parsed.ok || parsed.address.canonical !== canonical[index]) {
        throw new Error(`generated an address chaintags reads differently on ${chain}: ${spelling[index]}`);
      }
    }
  }
  const pools = new Map<ChainId, number[]>();
  for (const chain of CHAIN_IDS) {
    const members: number[] = [];
    for (let index = 0; index < count; index += 1) {
      if (chainsOf(family[index]!).includes(chain)) members.push(index);
    }
    if (members.length === 0) throw new Error(`no addresses on ${chain}: the dataset needs more addresses`);
    pools.set(chain, members);
  }
  // One ranking for all EVM chains, so the same addresses are busy everywhere; others rank on their own.
  const evmRanking = random.shuffle([...pools.get(EVM_CHAINS[0]!)!]);
  for (const chain of CHAIN_IDS) {
    pools.set(chain, EVM_CHAINS.includes(chain) ? evmRanking : random.shuffle(pools.get(chain)!));
  }
  return { spelling, canonical, family, pools };
}

function newAddress(random: Random, family: AddressFamily): { spelling: string; canonical: string } {
  switch (family) {
    case 'evm': {
      const canonical = `0x${random.hex(20)}`;
      return { spelling: random.chance(0.5) ? getAddress(canonical) : canonical, canonical };
    }
    case 'bitcoin_segwit': {
      const address = bech32.encode('bc', [0, ...bech32.toWords(random.bytes(20))]);
      return { spelling: address, canonical: address };
    }
    case 'bitcoin_legacy': {
      const address = base58check.encode(Uint8Array.from([0x00, ...random.bytes(20)]));
      return { spelling: address, canonical: address };
    }
    case 'bitcoin_cash': {
      const canonical = encodeCashAddress({ payload: random.bytes(20), type: 'p2pkh' }).address;
      return { spelling: canonical.slice('bitcoincash:'.length), canonical };
    }
    case 'dogecoin': {
      const address = base58check.encode(Uint8Array.from([0x1e, ...random.bytes(20)]));
      return { spelling: address, canonical: address };
    }
    case 'solana': {
      const address = base58.encode(random.bytes(32));
      return { spelling: address, canonical: address };
    }
    case 'ton': {
      const address = new Address(0, Buffer.from(random.bytes(32)));
      return {
        spelling: address.toString({ bounceable: random.chance(0.5), urlSafe: true }),
        canonical: address.toRawString(),
      };
    }
    case 'move': {
      const canonical = `0x${random.hex(32)}`;
      return { spelling: canonical, canonical };
    }
  }
}

type TokenLine = {
  type: 'token';
  id: string;
  name: string;
  symbol: string;
  icon_url: string;
  deployments: { chain: ChainId; address: string; decimals: number }[];
};

/** The shipped deployments plus EXTRA_TOKENS made-up tokens on EVM chains and Solana, with their prices. */
function buildDeployments(random: Random): {
  all: Deployment[];
  extraTokens: TokenLine[];
  prices: Map<string, number>;
} {
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

/** Plain decimal text without exponent or trailing zeros, as chaintags stores prices. */
function decimalText(value: number): string {
  return value
    .toFixed(6)
    .replace(/(\.\d*?)0+$/, '$1')
    .replace(/\.$/, '');
}

/** A random amount of up to about 10^maxWholeDigits whole tokens, in the smallest unit: digits without leading zeros. */
function amount(random: Random, decimals: number, maxWholeDigits: number): string {
  const length = Math.max(1, decimals - 4 + random.below(maxWholeDigits + 5));
  let digits = String(1 + random.below(9));
  while (digits.length < length) digits += String(random.below(10));
  return digits.slice(0, 78);
}

type Emit = (type: 'token' | 'price' | 'holding' | 'transaction', record: Record<string, unknown>) => void;
type Row = (table: CopyTable, values: readonly (string | number)[]) => void;

/**
 * Holdings: three in four go to a uniformly drawn address (so nearly every address holds
 * something), one in four to a busy one. One in twenty balances is zero, as an emptied wallet
 * leaves behind; chaintags stores those and lists none of them.
 */
function writeHoldings(
  random: Random,
  count: number,
  population: Population,
  byChain: Map<ChainId, Deployment[]>,
  activeAddress: () => number,
  emit: Emit,
  row: Row,
): void {
  const taken = new Set<string>();
  let written = 0;
  for (let attempt = 0; written < count && attempt < count * 4; attempt += 1) {
    const index = random.chance(0.75) ? random.below(population.canonical.length) : activeAddress();
    const chain = random.pick(chainsOf(population.family[index]!));
    const candidates = byChain.get(chain)!;
    const deployment = random.chance(0.5) ? candidates.find((d) => d.address === '0')! : random.pick(candidates);
    const key = `${index} ${chain} ${deployment.address}`;
    if (taken.has(key)) continue;
    taken.add(key);
    const balance = random.chance(0.05) ? '0' : amount(random, deployment.decimals, 6);
    const updatedAt = new Date(START + SPAN_MS - random.below(30 * 86_400_000)).toISOString();
    emit('holding', {
      type: 'holding',
      chain,
      address: population.spelling[index],
      token_address: deployment.address,
      balance,
      updated_at: updatedAt,
    });
    row('holdings', [chain, deployment.address, population.canonical[index]!, balance, updatedAt]);
    written += 1;
  }
  if (written < count) throw new Error(`only ${written} distinct holdings fit; use more addresses`);
}

/**
 * Each chain's block height at the start of the dataset's year, so block numbers look like that
 * chain's; a chain not listed starts at 1,000,000.
 */
const BLOCK_HEIGHT: Partial<Record<ChainId, number>> = {
  bitcoin: 880_000,
  ethereum: 21_500_000,
  bnb: 45_000_000,
  solana: 310_000_000,
  dogecoin: 5_500_000,
  bitcoincash: 880_000,
  ton: 44_000_000,
  polygon: 66_000_000,
  arbitrum: 290_000_000,
  optimism: 130_000_000,
  base: 24_500_000,
  sui: 95_000_000,
  aptos: 250_000_000,
};

/**
 * Transactions in block-time order over one year. One in ten shares the hash of the chain's
 * previous transfer (several transfers in one transaction, ids `<hash>:<n>`); one in fifty native
 * transfers is a mint with sender `0`. Answers each address's number of transactions.
 */
function writeTransactions(
  random: Random,
  count: number,
  population: Population,
  byChain: Map<ChainId, Deployment[]>,
  chainPicker: (random: Random) => ChainId,
  emit: Emit,
  row: Row,
): Int32Array {
  const perAddress = new Int32Array(population.canonical.length);
  const height = new Map(CHAIN_IDS.map((chain) => [chain, BLOCK_HEIGHT[chain] ?? 1_000_000]));
  const previous = new Map<ChainId, { hash: string; blockHash: string; index: number }>();
  for (let index = 0; index < count; index += 1) {
    const chain = chainPicker(random);
    const pool = population.pools.get(chain)!;
    const from = pool[random.zipf(pool.length)]!;
    const to = pool[random.zipf(pool.length)]!;
    const candidates = byChain.get(chain)!;
    const deployment = random.chance(0.65) ? candidates.find((d) => d.address === '0')! : random.pick(candidates);
    const minted = deployment.address === '0' && random.chance(0.02);
    const last = previous.get(chain);
    let hash: string;
    let blockHash: string;
    let logIndex: number;
    if (last !== undefined && random.chance(0.1)) {
      hash = last.hash;
      blockHash = last.blockHash;
      logIndex = last.index + 1;
    } else {
      height.set(chain, height.get(chain)! + 1 + random.below(3));
      hash = syntheticTxHash(chain, random);
      blockHash = syntheticTxHash(chain, random);
      logIndex = 0;
    }
    previous.set(chain, { hash, blockHash, index: logIndex });
    const id = `${hash}:${logIndex}`;
    const blockNumber = String(height.get(chain));
    const blockTime = new Date(START + Math.floor((index * SPAN_MS) / count) + random.below(1000)).toISOString();
    const value = amount(random, deployment.decimals, 4);
    emit('transaction', {
      type: 'transaction',
      id,
      chain,
      token_address: deployment.address,
      from_address: minted ? '0' : population.spelling[from],
      to_address: population.spelling[to],
      value,
      tx_hash: hash,
      block_number: blockNumber,
      block_hash: blockHash,
      block_time: blockTime,
    });
    row('transactions', [
      id,
      chain,
      deployment.address,
      minted ? '0' : population.canonical[from]!,
      population.canonical[to]!,
      value,
      hash,
      blockNumber,
      blockHash,
      blockTime,
    ]);
    if (!minted) perAddress[from] = perAddress[from]! + 1;
    if (minted || to !== from) perAddress[to] = perAddress[to]! + 1;
  }
  return perAddress;
}

/**
 * `tags` tags shared out over BENCH_ACCOUNTS. Within an account tag sizes fall off as
 * BIG_TAG_SIZE / rank^1.2 (at least 5): one tag of 10k addresses, a few of some thousands, most of
 * tens. Nine in ten tags are watch lists of ordinary addresses, drawn uniformly; one in ten lists
 * busy addresses (exchanges, bridges, market makers), drawn by activity, so it holds the heaviest
 * ones. The largest tag of each account is a watch list. No address gets more than
 * MAX_TAGS_PER_ADDRESS tags in one account.
 */
function planTags(
  random: Random,
  options: DatasetOptions,
  population: Population,
  activeAddress: () => number,
): TagPlan[] {
  const plans: TagPlan[] = [];
  const biggest = Math.min(BIG_TAG_SIZE, Math.floor(population.canonical.length / 2));
  BENCH_ACCOUNTS.forEach((account, accountIndex) => {
    const count =
      Math.floor(options.tags / BENCH_ACCOUNTS.length) + (accountIndex < options.tags % BENCH_ACCOUNTS.length ? 1 : 0);
    const tagsPerAddress = new Map<number, number>();
    for (let rank = 0; rank < count; rank += 1) {
      const size = Math.max(5, Math.round(biggest / (rank + 1) ** 1.2));
      const busy = rank > 0 && random.chance(0.1);
      const members = new Set<number>();
      for (let attempt = 0; members.size < size && attempt < size * 20; attempt += 1) {
        const index = busy ? activeAddress() : random.below(population.canonical.length);
        if (members.has(index) || (tagsPerAddress.get(index) ?? 0) >= MAX_TAGS_PER_ADDRESS) continue;
        members.add(index);
      }
      for (const index of members) tagsPerAddress.set(index, (tagsPerAddress.get(index) ?? 0) + 1);
      plans.push({
        account,
        name: `${account}_tag_${String(rank).padStart(4, '0')}`,
        addresses: [...members].map((index) => population.spelling[index]!),
      });
    }
  });
  return plans;
}

/**
 * Request keys. Addresses: nine in ten drawn uniformly from the addresses that have data and one
 * in ten by activity, so the busiest addresses get the share of traffic they would in practice.
 * Tags: every tag of the first account, in random order.
 */
function drawSamples(
  random: Random,
  population: Population,
  perAddress: Int32Array,
  activeAddress: () => number,
  tags: TagPlan[],
): DatasetMeta['samples'] {
  const active: number[] = [];
  perAddress.forEach((count, index) => {
    if (count > 0) active.push(index);
  });
  const addresses: string[] = [];
  for (let index = 0; index < 1000; index += 1) {
    const chosen = random.chance(0.9) ? random.pick(active) : activeAddress();
    addresses.push(population.spelling[chosen]!);
  }
  const own = tags.filter((tag) => tag.account === BENCH_ACCOUNTS[0]);
  return {
    addresses,
    tags: random.shuffle(own.map((tag) => tag.name)),
    bigTag: own[0]!.name,
  };
}

function skewOf(perAddress: Int32Array): DatasetMeta['skew'] {
  const counts = [...perAddress].filter((count) => count > 0).sort((a, b) => a - b);
  return {
    maxTransactionsPerAddress: counts[counts.length - 1] ?? 0,
    addressesWith10kPlus: counts.filter((count) => count >= 10_000).length,
    addressesWith1kPlus: counts.filter((count) => count >= 1_000).length,
    medianTransactionsPerActiveAddress: counts[Math.floor(counts.length / 2)] ?? 0,
    activeAddresses: counts.length,
  };
}

/**
 * `--transactions`, `--addresses`, `--holdings`, `--tags` and `--seed`, as bench/run.ts,
 * bench/migration.ts and this script take them, with DEFAULT_DATASET's values as defaults.
 */
export function addDatasetOptions(command: Command): Command {
  const count = (flags: string, description: string, fallback: number, min: number) =>
    new Option(flags, description).default(fallback).argParser(wholeNumber(min));
  return command
    .addOption(count('--transactions <n>', 'transactions in the dataset', DEFAULT_DATASET.transactions, 1))
    .addOption(count('--addresses <n>', 'addresses in the dataset', DEFAULT_DATASET.addresses, 1000))
    .addOption(count('--holdings <n>', 'holdings in the dataset', DEFAULT_DATASET.holdings, 1))
    .addOption(
      count('--tags <n>', `tags, shared out among the ${BENCH_ACCOUNTS.length} accounts`, DEFAULT_DATASET.tags, 3),
    )
    .addOption(new Option('--seed <text>', "the dataset's random seed").default(DEFAULT_DATASET.seed));
}

/** The dataset options of a parsed command line (see addDatasetOptions). */
export function datasetOptionsOf(options: OptionValues): DatasetOptions {
  const { transactions, addresses, holdings, tags, seed } = options as DatasetOptions;
  return { transactions, addresses, holdings, tags, seed };
}

/** Generates the dataset the command line names, and prints its folder. */
function main(): void {
  const command = addDatasetOptions(
    new Command('node -r @swc-node/register bench/generate.ts').description(
      "Writes the benchmark's dataset and prints the folder it wrote.",
    ),
  ).option('--out <folder>', 'where to write it (default: $TMPDIR/chaintags-bench/<a name from the options>)');
  const parsed = parseCommandLine<DatasetOptions & { out?: string }>(command, process.argv.slice(2));
  if (parsed === undefined) return;
  const options = datasetOptionsOf(parsed);
  const dir = parsed.out ?? defaultDatasetDir(options);
  generateDataset(options, dir, (line) => process.stderr.write(`${line}\n`));
  process.stdout.write(`${dir}\n`);
}

if (require.main === module) {
  try {
    main();
  } catch (error) {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
