import { CHAIN_IDS, ChainId, isChainId } from '../../../core/chains/chain-ids';
import { isTokenId } from '../../../core/tokens/token-id';
import { plainDecimal } from '../../../core/money/plain-decimal';
import { INSTANT_RULE } from '../../../core/time/instant';
import type { CanonicalAddress, CanonicalTokenAddress, Instant } from '../../../core/records/brands';
import type { RecordInput } from '../../../core/records/record-input';
import {
  ChainRecord,
  DataRecord,
  DeploymentRecord,
  ExplorerRecord,
  HoldingRecord,
  NO_SENDER,
  PriceRecord,
  RECORD_TYPES,
  RecordType,
  TokenRecord,
  TransactionRecord,
} from '../../../core/records/records';
import { MAX_ID_LENGTH, TRANSACTION_FIELDS } from '../../../core/records/transaction-fields';
import { PARSE_EACH, ValueChecks } from './checked-values';

/**
 * The field rules every record passes, whatever its source, as pure functions: a record as a source
 * hands it over becomes a normalised record (every address canonical, every number an exact decimal
 * string, every timestamp an Instant) or a reason a person can act on. Nothing about the input is
 * trusted, not even the JavaScript types its declaration promises: a file's lines arrive here
 * straight from JSON.parse. Rules that depend on other records or on the database (known tokens,
 * who owns a deployment, a chain's id) live in catalog.ts.
 */

export type RuleResult = { ok: true; record: DataRecord } | { ok: false; reason: string };

export const MAX_DIGITS = 78;
export const MAX_BLOCK_NUMBER_DIGITS = 18;
export const MAX_DECIMALS = 78;
const MAX_NAME_LENGTH = 200;
const MAX_SYMBOL_LENGTH = 50;
const MAX_URL_LENGTH = 2048;
const MAX_EXPLORERS = 10;
const MAX_DEPLOYMENTS = 100;
const MAX_PRICE_LENGTH = 100;
const DIGITS = /^[0-9]+$/;
const DECIMAL = /^([0-9]+)(?:\.([0-9]+))?$/;
const HTTP_URL = /^https?:\/\//;

/** The fields each record type takes; `type` is on every record. Any other field makes the record invalid. */
const FIELDS: Record<RecordType, readonly string[]> = {
  chain: ['chain', 'chainId', 'name', 'icon_url', 'explorers'],
  token: ['id', 'name', 'symbol', 'icon_url', 'deployments'],
  price: ['token_id', 'usd', 'at'],
  holding: ['chain', 'address', 'token_address', 'balance', 'updated_at'],
  transaction: TRANSACTION_FIELDS,
};
const OPTIONAL_FIELDS: ReadonlySet<string> = new Set(['price.at']);
const EXPLORER_FIELDS = ['name', 'url', 'tx_url', 'address_url'] as const;
const DEPLOYMENT_FIELDS = ['chain', 'address', 'decimals'] as const;

/** Thrown inside this module only, to stop at a record's first problem; checkRecord turns it into a reason. */
class RecordProblem extends Error {}

function problem(message: string): never {
  throw new RecordProblem(message);
}

/**
 * Checks and normalises one record. `pricedAt` is the time of a price that comes without `at`;
 * `checks`: how addresses and timestamps are checked, each parsed or looked up when seen before
 * (checked-values.ts).
 */
export function checkRecord(input: RecordInput, pricedAt: Instant, checks: ValueChecks = PARSE_EACH): RuleResult {
  try {
    return { ok: true, record: toRecord(input, pricedAt, checks) };
  } catch (error) {
    if (error instanceof RecordProblem) return { ok: false, reason: error.message };
    throw error;
  }
}

function toRecord(value: unknown, pricedAt: Instant, checks: ValueChecks): DataRecord {
  const line = asObject(value, 'a line');
  const type = line.type;
  if (type === undefined) problem('missing "type" (one of chain, token, price, holding, transaction)');
  if (typeof type !== 'string' || !(RECORD_TYPES as readonly string[]).includes(type)) {
    problem(`unknown type ${show(type)} (expected one of chain, token, price, holding, transaction)`);
  }
  const recordType = type as RecordType;
  try {
    checkFields(line, ['type', ...FIELDS[recordType]], undefined, (field) =>
      OPTIONAL_FIELDS.has(`${recordType}.${field}`),
    );
    return toTypedRecord(recordType, line, pricedAt, checks);
  } catch (error) {
    if (error instanceof RecordProblem) problem(`${recordType}: ${error.message}`);
    throw error;
  }
}

function toTypedRecord(
  type: RecordType,
  line: Record<string, unknown>,
  pricedAt: Instant,
  checks: ValueChecks,
): DataRecord {
  switch (type) {
    case 'chain':
      return toChain(line);
    case 'token':
      return toToken(line, checks);
    case 'price':
      return toPrice(line, pricedAt, checks);
    case 'holding':
      return toHolding(line, checks);
    case 'transaction':
      return toTransaction(line, checks);
  }
}

function toChain(line: Record<string, unknown>): ChainRecord {
  const chain = chainField(line, 'chain');
  const chainId = line.chainId;
  if (typeof chainId !== 'number' || !Number.isSafeInteger(chainId)) {
    problem(`chainId must be a whole number (-1 for chains that are not EVM-based), got ${show(chainId)}`);
  }
  const explorers = line.explorers;
  if (!Array.isArray(explorers) || explorers.length === 0 || explorers.length > MAX_EXPLORERS) {
    problem(`explorers must be an array of 1 to ${MAX_EXPLORERS} explorers`);
  }
  return {
    type: 'chain',
    chain,
    chainId,
    name: textField(line, 'name', MAX_NAME_LENGTH),
    icon_url: urlField(line, 'icon_url'),
    explorers: explorers.map((item, index) => toExplorer(item, `explorers[${index}]`)),
  };
}

function toExplorer(value: unknown, where: string): ExplorerRecord {
  const explorer = asObject(value, where);
  checkFields(explorer, EXPLORER_FIELDS, where);
  const txUrl = urlField(explorer, 'tx_url', where);
  const addressUrl = urlField(explorer, 'address_url', where);
  if (!txUrl.includes('{{tx_id}}')) problem(`${where}.tx_url must contain the placeholder {{tx_id}}`);
  if (!addressUrl.includes('{{address}}')) problem(`${where}.address_url must contain the placeholder {{address}}`);
  return {
    name: textField(explorer, 'name', MAX_NAME_LENGTH, where),
    url: urlField(explorer, 'url', where),
    tx_url: txUrl,
    address_url: addressUrl,
  };
}

function toToken(line: Record<string, unknown>, checks: ValueChecks): TokenRecord {
  const id = tokenIdField(line, 'id');
  const deployments = line.deployments;
  if (!Array.isArray(deployments) || deployments.length === 0 || deployments.length > MAX_DEPLOYMENTS) {
    problem(`deployments must be an array of 1 to ${MAX_DEPLOYMENTS} deployments`);
  }
  const parsed = deployments.map((item, index) => toDeployment(item, `deployments[${index}]`, checks));
  const seen = new Set<string>();
  for (const deployment of parsed) {
    const key = `${deployment.chain}:${deployment.address}`;
    if (seen.has(key)) problem(`deployments lists ${deployment.chain} ${deployment.address} twice`);
    seen.add(key);
  }
  return {
    type: 'token',
    id,
    name: textField(line, 'name', MAX_NAME_LENGTH),
    symbol: textField(line, 'symbol', MAX_SYMBOL_LENGTH),
    icon_url: urlField(line, 'icon_url'),
    deployments: parsed,
  };
}

function toDeployment(value: unknown, where: string, checks: ValueChecks): DeploymentRecord {
  const deployment = asObject(value, where);
  checkFields(deployment, DEPLOYMENT_FIELDS, where);
  const chain = chainField(deployment, 'chain', where);
  const decimals = deployment.decimals;
  if (typeof decimals !== 'number' || !Number.isInteger(decimals) || decimals < 0 || decimals > MAX_DECIMALS) {
    problem(`${where}.decimals must be a whole number from 0 to ${MAX_DECIMALS}, got ${show(decimals)}`);
  }
  return { chain, address: tokenAddressField(deployment, 'address', chain, checks, where), decimals };
}

function toPrice(line: Record<string, unknown>, pricedAt: Instant, checks: ValueChecks): PriceRecord {
  return {
    type: 'price',
    token_id: tokenIdField(line, 'token_id'),
    usd: usdField(line.usd),
    at: line.at === undefined ? pricedAt : instantField(line, 'at', checks),
  };
}

function toHolding(line: Record<string, unknown>, checks: ValueChecks): HoldingRecord {
  const chain = chainField(line, 'chain');
  return {
    type: 'holding',
    chain,
    address: addressField(line, 'address', chain, checks),
    token_address: tokenAddressField(line, 'token_address', chain, checks),
    balance: digitsField(line, 'balance', MAX_DIGITS),
    updated_at: instantField(line, 'updated_at', checks),
  };
}

function toTransaction(line: Record<string, unknown>, checks: ValueChecks): TransactionRecord {
  const chain = chainField(line, 'chain');
  return {
    type: 'transaction',
    id: textField(line, 'id', MAX_ID_LENGTH),
    chain,
    token_address: tokenAddressField(line, 'token_address', chain, checks),
    from_address: line.from_address === NO_SENDER ? NO_SENDER : addressField(line, 'from_address', chain, checks),
    to_address: addressField(line, 'to_address', chain, checks),
    value: digitsField(line, 'value', MAX_DIGITS),
    tx_hash: textField(line, 'tx_hash', MAX_ID_LENGTH),
    block_number: blockNumberField(line.block_number),
    block_hash: textField(line, 'block_hash', MAX_ID_LENGTH),
    block_time: instantField(line, 'block_time', checks),
  };
}

function asObject(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) problem(`${what} must be a JSON object`);
  return value as Record<string, unknown>;
}

/** Unknown fields first (a typo must not pass unnoticed), then missing ones, each named. */
function checkFields(
  object: Record<string, unknown>,
  allowed: readonly string[],
  where?: string,
  optional: (field: string) => boolean = () => false,
): void {
  const prefix = where === undefined ? '' : `${where}: `;
  const unknown = Object.keys(object).filter((field) => !allowed.includes(field));
  if (unknown.length > 0) problem(`${prefix}${plural('unknown field', unknown)}`);
  const missing = allowed.filter((field) => object[field] === undefined && !optional(field));
  if (missing.length > 0) problem(`${prefix}${plural('missing field', missing)}`);
}

function plural(what: string, fields: string[]): string {
  return `${what}${fields.length > 1 ? 's' : ''} ${fields.map(show).join(', ')}`;
}

function label(field: string, where?: string): string {
  return where === undefined ? field : `${where}.${field}`;
}

function textField(object: Record<string, unknown>, field: string, max: number, where?: string): string {
  const value = object[field];
  if (typeof value !== 'string' || value.length === 0 || value.length > max) {
    problem(`${label(field, where)} must be a non-empty string of at most ${max} characters, got ${show(value)}`);
  }
  // PostgreSQL's text cannot hold U+0000: refused on both databases alike, as a bad line.
  if (value.includes('\u0000')) problem(`${label(field, where)} must not contain the character U+0000`);
  return value;
}

function urlField(object: Record<string, unknown>, field: string, where?: string): string {
  const value = object[field];
  if (typeof value !== 'string' || value.length > MAX_URL_LENGTH || !HTTP_URL.test(value) || !URL.canParse(value)) {
    problem(`${label(field, where)} must be an http(s) URL, got ${show(value)}`);
  }
  return value;
}

function chainField(object: Record<string, unknown>, field: string, where?: string): ChainId {
  const value = object[field];
  if (typeof value !== 'string' || !isChainId(value)) {
    problem(`${label(field, where)}: unknown chain ${show(value)} (one of ${CHAIN_IDS.join(', ')})`);
  }
  return value;
}

function tokenIdField(object: Record<string, unknown>, field: string): string {
  const value = object[field];
  if (!isTokenId(value)) {
    problem(`${field} must be a token id slug (a-z, 0-9 and inner "-", like "usd-coin"), got ${show(value)}`);
  }
  return value;
}

function addressField(
  object: Record<string, unknown>,
  field: string,
  chain: ChainId,
  checks: ValueChecks,
): CanonicalAddress {
  const value = object[field];
  if (typeof value !== 'string') problem(`${field} must be an address string, got ${show(value)}`);
  const parsed = checks.address(value, chain);
  if (!parsed.ok) problem(`${field} ${show(value)} is not a ${chain} address: ${parsed.reason}`);
  return parsed.address.canonical as CanonicalAddress;
}

function tokenAddressField(
  object: Record<string, unknown>,
  field: string,
  chain: ChainId,
  checks: ValueChecks,
  where?: string,
): CanonicalTokenAddress {
  const value = object[field];
  if (typeof value !== 'string') problem(`${label(field, where)} must be a string ("0" for the native coin)`);
  const parsed = checks.tokenAddress(value, chain);
  if (!parsed.ok) problem(`${label(field, where)} ${show(value)} is not a token address on ${chain}: ${parsed.reason}`);
  return parsed.canonical as CanonicalTokenAddress;
}

/** Amounts come as strings: a JSON number cannot carry 78 digits exactly. */
function digitsField(object: Record<string, unknown>, field: string, max: number): string {
  const value = object[field];
  if (typeof value !== 'string' || !DIGITS.test(value) || value.length > max) {
    problem(`${field} must be a string of 1 to ${max} digits, got ${show(value)}`);
  }
  return stripLeadingZeros(value);
}

function blockNumberField(value: unknown): string {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  if (typeof value === 'string' && DIGITS.test(value) && value.length <= MAX_BLOCK_NUMBER_DIGITS) {
    return stripLeadingZeros(value);
  }
  problem(
    `block_number must be a string of 1 to ${MAX_BLOCK_NUMBER_DIGITS} digits or a non-negative whole number, got ${show(value)}`,
  );
}

function instantField(object: Record<string, unknown>, field: string, checks: ValueChecks): Instant {
  const value = object[field];
  const instant = checks.instant(value);
  if (instant === undefined) problem(`${field} must be ${INSTANT_RULE}, got ${show(value)}`);
  return instant as Instant;
}

/**
 * A JSON number (finite, not negative) or a decimal string such as "0.000000012", for prices beyond
 * double precision. Either is at most MAX_PRICE_LENGTH characters written out, so the value stored
 * reads back as a valid line: 1e100 written out is 101 characters and is refused like its string.
 */
function usdField(value: unknown): string {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) {
    const decimal = plainDecimal(value);
    if (decimal.length <= MAX_PRICE_LENGTH) return decimal;
  }
  if (typeof value === 'string' && value.length <= MAX_PRICE_LENGTH && DECIMAL.test(value)) {
    return normaliseDecimal(value);
  }
  problem(
    `usd must be a number of at least 0 or a decimal string like "0.05", at most ${MAX_PRICE_LENGTH} characters written out, got ${show(value)}`,
  );
}

export function stripLeadingZeros(digits: string): string {
  return digits.replace(/^0+(?=\d)/, '');
}

/** "007.50" → "7.5", "2.0" → "2": one spelling per value. */
export function normaliseDecimal(decimal: string): string {
  const [, whole = '0', fraction = ''] = DECIMAL.exec(decimal) ?? [];
  const trimmed = fraction.replace(/0+$/, '');
  return trimmed === '' ? stripLeadingZeros(whole) : `${stripLeadingZeros(whole)}.${trimmed}`;
}

/** A value quoted for a message, cut short so a huge field cannot flood the report. */
function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? typeof value;
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
