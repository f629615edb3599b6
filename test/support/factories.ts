import { createHash } from 'node:crypto';
import { encodeCashAddress } from '@bitauth/libauth/build/lib/address/cash-address.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base58, bech32, createBase58check, hex } from '@scure/base';
import { Address } from '@ton/core';
import { getAddress } from 'viem';
import { parseAddress, type AddressFamily } from '../../src/core/addresses';
import { chainFacts, type ChainId } from '../../src/core/chains/chain-registry';
import { TOKENS } from '../../src/database/reference-data';

/**
 * Test data built from seeds: addresses are real encodings (checksums and all) of bytes derived
 * from the seed, so every test gets fresh, valid addresses without copied literals. Each address
 * comes as `input` (a spelling a wallet might print, often not the canonical one) and `canonical`
 * (what chaintags stores and answers).
 */
export interface TestAddress {
  input: string;
  canonical: string;
}

const base58check = createBase58check(sha256);

export function seedBytes(seed: string, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let block = 0; block * 32 < length; block += 1) {
    const digest = createHash('sha256').update(`${seed}#${block}`).digest();
    out.set(digest.subarray(0, Math.min(32, length - block * 32)), block * 32);
  }
  return out;
}

function checked(address: TestAddress): TestAddress {
  const parsed = parseAddress(address.input);
  if (!parsed.ok || parsed.address.canonical !== address.canonical) {
    throw new Error(`factory built an address chaintags does not read back: ${address.input}`);
  }
  return address;
}

/** EIP-55 mixed case in, lowercase stored. */
export function evmAddress(seed: string): TestAddress {
  const canonical = `0x${hex.encode(seedBytes(`evm:${seed}`, 20))}`;
  return checked({ input: getAddress(canonical), canonical });
}

/** P2PKH: valid on bitcoin and bitcoincash alike. */
export function bitcoinLegacyAddress(seed: string): TestAddress {
  const address = base58check.encode(Uint8Array.from([0x00, ...seedBytes(`btc:${seed}`, 20)]));
  return checked({ input: address, canonical: address });
}

/** bech32 P2WPKH, given in upper case. */
export function segwitAddress(seed: string): TestAddress {
  const canonical = bech32.encode('bc', [0, ...bech32.toWords(seedBytes(`segwit:${seed}`, 20))]);
  return checked({ input: canonical.toUpperCase(), canonical });
}

/** CashAddr given without its prefix; stored with it. */
export function cashAddress(seed: string): TestAddress {
  const canonical = encodeCashAddress({ payload: seedBytes(`bch:${seed}`, 20), type: 'p2pkh' }).address;
  return checked({ input: canonical.slice('bitcoincash:'.length), canonical });
}

export function dogecoinAddress(seed: string): TestAddress {
  const address = base58check.encode(Uint8Array.from([0x1e, ...seedBytes(`doge:${seed}`, 20)]));
  return checked({ input: address, canonical: address });
}

export function solanaAddress(seed: string): TestAddress {
  const address = base58.encode(seedBytes(`sol:${seed}`, 32));
  return checked({ input: address, canonical: address });
}

/** User-friendly bounceable form in, raw `0:<hex>` stored. */
export function tonAddress(seed: string): TestAddress {
  const address = new Address(0, Buffer.from(seedBytes(`ton:${seed}`, 32)));
  return checked({ input: address.toString({ bounceable: true, urlSafe: true }), canonical: address.toRawString() });
}

/** Sui and Aptos share the form; given in upper case. */
export function moveAddress(seed: string): TestAddress {
  const canonical = `0x${hex.encode(seedBytes(`move:${seed}`, 32))}`;
  return checked({ input: `0x${canonical.slice(2).toUpperCase()}`, canonical });
}

const BUILDERS: Record<AddressFamily, (seed: string) => TestAddress> = {
  evm: evmAddress,
  bitcoin_legacy: bitcoinLegacyAddress,
  bitcoin_segwit: segwitAddress,
  bitcoin_cash: cashAddress,
  dogecoin: dogecoinAddress,
  solana: solanaAddress,
  ton: tonAddress,
  move: moveAddress,
};

/**
 * An address in the chain's usual family (the first its registry entry lists); the same seed gives
 * the same address on every chain of a family.
 */
export function addressOn(chain: ChainId, seed: string): TestAddress {
  return BUILDERS[chainFacts(chain).families[0]](seed);
}

/** The shipped deployment of a token on a chain (address canonical, decimals as shipped). */
export function deployment(tokenId: string, chain: ChainId): { address: string; decimals: number } {
  const found = TOKENS.find((token) => token.id === tokenId)?.deployments.find((d) => d.chain === chain);
  if (!found) throw new Error(`no shipped deployment of ${tokenId} on ${chain}`);
  return { address: found.address, decimals: found.decimals };
}

export interface HoldingFixture {
  chain: ChainId;
  address: TestAddress;
  token_address: string;
  balance: string;
  updated_at: string;
}

export function holdingLine(holding: HoldingFixture): Record<string, unknown> {
  return {
    type: 'holding',
    chain: holding.chain,
    address: holding.address.input,
    token_address: holding.token_address,
    balance: holding.balance,
    updated_at: holding.updated_at,
  };
}

export interface TransactionFixture {
  id: string;
  chain: ChainId;
  token_address: string;
  from: TestAddress | '0';
  to: TestAddress;
  value: string;
  block_number: string;
  block_time: string;
}

let transactionCounter = 0;

/** A transfer with hashes derived from its id; override any field. */
export function transaction(overrides: Partial<TransactionFixture> & { chain: ChainId }): TransactionFixture {
  transactionCounter += 1;
  const id = overrides.id ?? `tx-${transactionCounter}`;
  return {
    id,
    token_address: '0',
    from: addressOn(overrides.chain, `${id}:from`),
    to: addressOn(overrides.chain, `${id}:to`),
    value: String(transactionCounter * 1000),
    block_number: String(1_000_000 + transactionCounter),
    block_time: new Date(Date.UTC(2024, 0, 1) + transactionCounter * 60_000).toISOString(),
    ...overrides,
  };
}

export function transactionLine(fixture: TransactionFixture): Record<string, unknown> {
  return {
    type: 'transaction',
    id: fixture.id,
    chain: fixture.chain,
    token_address: fixture.token_address,
    from_address: fixture.from === '0' ? '0' : fixture.from.input,
    to_address: fixture.to.input,
    value: fixture.value,
    tx_hash: `0x${hex.encode(seedBytes(`hash:${fixture.id}`, 32))}`,
    block_number: fixture.block_number,
    block_hash: `0x${hex.encode(seedBytes(`block:${fixture.block_number}`, 32))}`,
    block_time: fixture.block_time,
  };
}

/** The API's view of a transaction fixture. */
export function expectedTransaction(fixture: TransactionFixture): Record<string, unknown> {
  const line = transactionLine(fixture);
  return {
    id: fixture.id,
    chain: fixture.chain,
    token_address: fixture.token_address,
    from_address: fixture.from === '0' ? '0' : fixture.from.canonical,
    to_address: fixture.to.canonical,
    value: fixture.value,
    tx_hash: line.tx_hash,
    block_number: fixture.block_number,
    block_hash: line.block_hash,
    block_time: new Date(fixture.block_time).toISOString(),
  };
}

export function priceLine(tokenId: string, usd: number | string, at?: string): Record<string, unknown> {
  return { type: 'price', token_id: tokenId, usd, ...(at === undefined ? {} : { at }) };
}

export function tokenLine(
  id: string,
  deployments: { chain: ChainId; address: string; decimals: number }[],
  names: { name?: string; symbol?: string } = {},
): Record<string, unknown> {
  return {
    type: 'token',
    id,
    name: names.name ?? `Token ${id}`,
    symbol: names.symbol ?? id.slice(0, 5).toUpperCase(),
    icon_url: `https://example.com/icons/${id}.png`,
    deployments,
  };
}

/** A `chain` line giving a supported chain display data of the test's own. */
export function chainLine(chain: ChainId, label: string): Record<string, unknown> {
  const site = `https://${label}.example.com`;
  return {
    type: 'chain',
    chain,
    chainId: chainFacts(chain).chainId,
    name: `${label} name`,
    icon_url: `${site}/icon.png`,
    explorers: [
      { name: `${label} explorer`, url: site, tx_url: `${site}/tx/{{tx_id}}`, address_url: `${site}/a/{{address}}` },
    ],
  };
}

/** NDJSON text of the given lines (objects are serialised; strings are taken as they are). */
export function ndjson(lines: (Record<string, unknown> | string)[]): string {
  return `${lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n')}\n`;
}

/** Binary (code unit) order, as the API sorts strings on both databases. */
export function compareBinary(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
