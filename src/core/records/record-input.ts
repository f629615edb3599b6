import type { ChainRecord, HoldingRecord, PriceRecord, TokenRecord, TransactionRecord } from './records';

/**
 * A record as a source hands it over, before validation: the fields of the checked record with
 * plain strings where the record has branded or narrowed ones, so any spelling the rules accept
 * will do (a checksummed address, a chain name read from a file). Validation trusts none of it.
 */
export type Unchecked<T> = T extends string
  ? string
  : T extends readonly (infer Item)[]
    ? Unchecked<Item>[]
    : T extends object
      ? { [K in keyof T]: K extends 'type' ? T[K] : Unchecked<T[K]> }
      : T;

export type ChainInput = Unchecked<ChainRecord>;
export type TokenInput = Unchecked<TokenRecord>;
export type HoldingInput = Unchecked<HoldingRecord>;

/** `usd` may also be a JSON number; without `at`, the price is dated when the run started. */
export type PriceInput = Omit<Unchecked<PriceRecord>, 'usd' | 'at'> & { usd: number | string; at?: string };

/** `block_number` may also be a non-negative whole number. */
export type TransactionInput = Omit<Unchecked<TransactionRecord>, 'block_number'> & { block_number: number | string };

export type RecordInput = ChainInput | TokenInput | PriceInput | HoldingInput | TransactionInput;
