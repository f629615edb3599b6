import {
  AddressParseResult,
  canonicalAddressOnChain,
  parseTokenAddress,
  TokenAddressParseResult,
} from '../../../core/addresses';
import type { ChainId } from '../../../core/chains/chain-ids';
import { parseInstant } from '../../../core/time/instant';

/** How the field rules check an address, a token address and a timestamp (record-rules.ts). */
export interface ValueChecks {
  address(input: string, chain: ChainId): AddressParseResult;
  tokenAddress(input: string, chain: ChainId): TokenAddressParseResult;
  instant(input: unknown): string | undefined;
}

/** Every value parsed where it comes: a file's records, whose values recur too seldom to remember. */
export const PARSE_EACH: ValueChecks = {
  address: (input, chain) => canonicalAddressOnChain(input, chain),
  tokenAddress: (input, chain) => parseTokenAddress(chain, input),
  instant: (input) => parseInstant(input),
};

/**
 * The addresses, token addresses and timestamps a batch of a live source has already checked,
 * with what their check gave. A follower's block range names the same values again and again: the
 * tracked addresses it pays, every record of a block with the block's time. Checking an address
 * decodes it and verifies its checksum (several microseconds for a legacy Bitcoin or a mixed-case
 * EVM address, most of what checking a follower's record costs), a timestamp builds a `Date`; a
 * value seen before is looked up instead. The answers are the parsers' own, refusals included, so
 * a record reads the same with or without the memory. Each chain keeps at most `MAX_REMEMBERED`
 * values and forgets them all when it reaches that (a backfill's batch can be large).
 *
 * An import does without: in the bench's dataset, the 500,000 addresses of 400,000 records are
 * 232,544 distinct ones (counted per chain), and remembering them cost more than it saved
 * (bench/README.md, change 67).
 */
export class CheckedValues implements ValueChecks {
  private readonly addresses = new Map<ChainId, Map<string, AddressParseResult>>();
  private readonly tokens = new Map<ChainId, Map<string, TokenAddressParseResult>>();
  private lastInstant: { input: string; instant: string | undefined } | undefined;

  address(input: string, chain: ChainId): AddressParseResult {
    return remembered(this.addresses, chain, input, () => canonicalAddressOnChain(input, chain));
  }

  tokenAddress(input: string, chain: ChainId): TokenAddressParseResult {
    return remembered(this.tokens, chain, input, () => parseTokenAddress(chain, input));
  }

  /** Records come in time order more often than not, so the last timestamp is the one remembered. */
  instant(input: unknown): string | undefined {
    if (typeof input !== 'string') return parseInstant(input);
    if (this.lastInstant?.input === input) return this.lastInstant.instant;
    const instant = parseInstant(input);
    this.lastInstant = { input, instant };
    return instant;
  }
}

export const MAX_REMEMBERED = 20_000;

function remembered<T>(byChain: Map<ChainId, Map<string, T>>, chain: ChainId, input: string, check: () => T): T {
  let values = byChain.get(chain);
  if (values === undefined) {
    values = new Map();
    byChain.set(chain, values);
  }
  const known = values.get(input);
  if (known !== undefined) return known;
  const result = check();
  if (values.size >= MAX_REMEMBERED) values.clear();
  values.set(input, result);
  return result;
}
