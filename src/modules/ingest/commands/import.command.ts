import { CliFailure, type ModuleCommands } from '../../../cli/command';
import type { ImportOptions, ImportReport, IngestService } from '../ingest.service';

/** `import <file>`: NDJSON from a file or standard input, with the report split between stdout and stderr. */
export const importCommands: ModuleCommands = {
  register(program, inContext) {
    program
      .command('import <file>')
      .description(
        'import an NDJSON file ("-" reads standard input). Any invalid line imports nothing unless --skip-invalid; ' +
          'bad lines and progress go to stderr, a one-line JSON summary to stdout. Exit code 0 when the import was ' +
          'committed, 1 when nothing was imported.',
      )
      .option('--skip-invalid', 'import the valid lines even if some are invalid (they are still listed)')
      .action((file: string, flags: { skipInvalid?: boolean }) =>
        inContext(load, async (context, { IngestService }) => {
          const options: ImportOptions = {
            skipInvalid: flags.skipInvalid === true,
            onInvalid: ({ line, reason }) => process.stderr.write(`line ${line}: ${reason}\n`),
            onProgress: ({ lines, rows, rowsPerSecond }) =>
              process.stderr.write(`progress: ${lines} lines read, ${rows} valid rows, ${rowsPerSecond} rows/s\n`),
          };
          const ingest = context.get(IngestService);
          const report =
            file === '-' ? await ingest.import(process.stdin, options) : await importFile(ingest, file, options);
          process.stdout.write(`${JSON.stringify(summary(report))}\n`);
          if (report.invalid > report.invalidLines.length) {
            process.stderr.write(
              `... and ${report.invalid - report.invalidLines.length} more invalid lines (only the first ${report.invalidLines.length} are listed)\n`,
            );
          }
          if (!report.committed) {
            throw new CliFailure(
              `nothing was imported: ${report.invalid} invalid line${report.invalid === 1 ? '' : 's'} ` +
                '(fix them, or pass --skip-invalid to import the valid lines)',
            );
          }
        }),
      );
  },
};

async function importFile(ingest: IngestService, file: string, options: ImportOptions): Promise<ImportReport> {
  try {
    return await ingest.importFile(file, options);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') {
      throw new CliFailure(`cannot read ${file}: ${(error as Error).message}`);
    }
    throw error;
  }
}

/** The stdout line of `import`: one JSON object with snake_case keys, like the API's. */
function summary(report: ImportReport): Record<string, unknown> {
  return {
    committed: report.committed,
    lines: report.lines,
    valid: report.valid,
    invalid: report.invalid,
    seconds: report.seconds,
    rows_per_second: report.rowsPerSecond,
  };
}

/** What the command runs, required when it runs (src/cli/command.ts). */
function load() {
  /* eslint-disable @typescript-eslint/no-require-imports -- required when a command runs (src/cli/command.ts) */
  const { IngestModule } = require('../ingest.module') as typeof import('../ingest.module');
  const { IngestService } = require('../ingest.service') as typeof import('../ingest.service');
  /* eslint-enable @typescript-eslint/no-require-imports */
  return { modules: [IngestModule], IngestService };
}
