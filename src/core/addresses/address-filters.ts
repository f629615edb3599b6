import { NATIVE_TOKEN, parseAddress, parseTokenAddress, type ParsedAddress } from '.';
import { twinsOf } from './output-script';
import { MOVE_CHAINS } from './token-address';
import { ChainId } from '../chains/chain-ids';
import { ApiError } from '../errors';

/**
 * The `address` and `token_address` query filters of the holdings and transactions lists. Any
 * accepted spelling becomes the canonical form the rows are stored in; anything that is not an
 * address is 400 INVALID_ADDRESS naming the parameter and the value.
 */

/** The chain, address and token filters the holdings and transactions lists share, as given in the query. */
export interface ListQuery {
  chain?: ChainId;
  address?: string;
  token_address?: string;
}

/**
 * Those filters canonicalised (INVALID_ADDRESS for an address that is none). `address` lists every
 * canonical spelling of the address: one, or on bitcoincash a legacy address and its CashAddr twin,
 * which are one address there (contract §3, §13), so that either form finds what is recorded under
 * the other.
 */
export function listFilters(query: ListQuery): { chain?: ChainId; address?: string[]; tokenAddress?: string } {
  return {
    chain: query.chain,
    address: query.address === undefined ? undefined : twinsOf(parsedFilter(query.address)),
    tokenAddress: query.token_address === undefined ? undefined : tokenAddressFilter(query.token_address, query.chain),
  };
}

/** Any address of a supported chain, canonical; a valid address that matches no row simply gives an empty list. */
export function addressFilter(input: string): string {
  return parsedFilter(input).canonical;
}

function parsedFilter(input: string): ParsedAddress {
  const parsed = parseAddress(input);
  if (parsed.ok) return parsed.address;
  throw invalid('address', `Not an address of any supported chain`, input, parsed.reason);
}

/**
 * `0` (the native coin) or a token address, given as the query's `parameter`. With a chain the
 * address must be valid there; without one any supported address is accepted, and a Move coin
 * type (`0x2::sui::SUI`) in the canonical form Sui and Aptos share.
 */
export function tokenAddressFilter(input: string, chain?: ChainId, parameter = 'token_address'): string {
  if (input === NATIVE_TOKEN) return NATIVE_TOKEN;
  const what = `${parameter} is not a token address${chain === undefined ? '' : ` on ${chain}`}`;
  if (chain !== undefined || input.includes('::')) {
    // The Move chains spell coin types alike, so any of them canonicalises one when no chain is given.
    const parsed = parseTokenAddress(chain ?? MOVE_CHAINS[0]!, input);
    if (parsed.ok) return parsed.canonical;
    throw invalid(parameter, what, input, parsed.reason);
  }
  const parsed = parseAddress(input);
  if (parsed.ok) return parsed.address.canonical;
  throw invalid(parameter, what, input, parsed.reason);
}

function invalid(parameter: string, what: string, value: string, reason: string): ApiError {
  const shown = value.slice(0, 128);
  return new ApiError('INVALID_ADDRESS', `${what}: "${shown}" (${reason})`, [{ parameter, address: shown, reason }]);
}
