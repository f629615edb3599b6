/** The dataset's options (their defaults, the folder they name, their command-line flags) and its accounts. */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, Option, OptionValues } from 'commander';
import { wholeNumber } from '../lib/options';

/** The accounts owning the tags; the benchmark's requests use the first. */
export const BENCH_ACCOUNTS = ['bench_a', 'bench_b', 'bench_c'] as const;
/** The largest tag of each account has this many addresses (fewer when the dataset has fewer). */
export const BIG_TAG_SIZE = 10_000;

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

export function datasetName(options: DatasetOptions): string {
  const seed = options.seed.replace(/[^A-Za-z0-9_-]/g, '_');
  return `a${options.addresses}-t${options.transactions}-h${options.holdings}-g${options.tags}-${seed}`;
}

export function defaultDatasetDir(options: DatasetOptions): string {
  return join(tmpdir(), 'chaintags-bench', datasetName(options));
}

export function sameOptions(a: DatasetOptions, b: DatasetOptions): boolean {
  return (
    a.addresses === b.addresses &&
    a.transactions === b.transactions &&
    a.holdings === b.holdings &&
    a.tags === b.tags &&
    a.seed === b.seed
  );
}

/**
 * `--transactions`, `--addresses`, `--holdings`, `--tags` and `--seed`, as bench/run.ts,
 * bench/migration.ts and bench/generate.ts take them, with DEFAULT_DATASET's values as defaults.
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
