/**
 * What a dataset folder holds besides its rows: `meta.json` (the tags, the request keys, the skew)
 * and the tables the COPY files load. It is written last, so a folder with a meta.json is complete.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TRANSACTION_FIELDS } from '../../src/core/records/transaction-fields';
import type { DatasetOptions } from './options';

/** Bumped whenever the output for the same options changes, so cached datasets are rebuilt. */
export const GENERATOR_VERSION = 2;

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

export function readMeta(dir: string): DatasetMeta | undefined {
  const file = join(dir, 'meta.json');
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as DatasetMeta;
}
