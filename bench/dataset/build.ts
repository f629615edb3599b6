/**
 * Deterministic benchmark datasets for chaintags: the generator's steps in order, each in its own
 * file of this folder. The same options and seed give byte-identical files.
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
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHAIN_IDS } from '../../src/core/chains/chain-ids';
import { Random } from '../lib/random';
import { buildPopulation } from './addresses';
import { activeAddressDraw } from './draws';
import { writeHoldings } from './holdings';
import { DatasetMeta, GENERATOR_VERSION, readMeta } from './meta';
import { datasetName, DatasetOptions, sameOptions } from './options';
import { DatasetOutput } from './output';
import { drawSamples, skewOf } from './samples';
import { planTags } from './tags';
import { buildDeployments, deploymentsByChain, writePrices, writeTokens } from './tokens';
import { writeTransactions } from './transactions';

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
  const byChain = deploymentsByChain(deployments, CHAIN_IDS);
  const activeAddress = activeAddressDraw(random, population);

  const out = new DatasetOutput(dir);
  writeTokens(deployments, out);
  writePrices(random, deployments, out);
  writeHoldings(random, options.holdings, population, byChain, activeAddress, out);
  const perAddress = writeTransactions(random, options.transactions, population, byChain, out);
  out.close();

  const tags = planTags(random, options, population, activeAddress);
  const samples = drawSamples(random, population, perAddress, activeAddress, tags);
  const { files, lines, copyRows } = out;
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
