/**
 * Writes a deterministic benchmark dataset for chaintags (bench/dataset/build.ts says what it holds)
 * and prints the folder it wrote. The same options and seed give byte-identical files. Usage:
 *
 *   node -r @swc-node/register bench/generate.ts [--addresses 100000] [--transactions 1000000]
 *     [--holdings 300000] [--tags 1000] [--seed chaintags-bench-v1] [--out <folder>]
 */
import { Command } from 'commander';
import { generateDataset } from './dataset/build';
import { addDatasetOptions, datasetOptionsOf, DatasetOptions, defaultDatasetDir } from './dataset/options';
import { parseCommandLine } from './lib/options';

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

try {
  main();
} catch (error) {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
