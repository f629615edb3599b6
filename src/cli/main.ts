import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Command, CommanderError } from 'commander';
import { AccountsError, AccountsService } from '../modules/accounts/accounts.service';
import { ConfigError, parseConfig } from '../config/config';
import { ImportOptions, ImportReport, IngestService } from '../modules/ingest/ingest.service';
import { CliModule } from './cli.module';

/**
 * The chaintags command line. Machine-readable results go to stdout, messages to stderr. Every
 * command opens the database through the same Nest modules as the server, which applies pending
 * migrations and reference data first, so it works on a fresh database.
 */
export class CliFailure extends Error {}

async function withContext<T>(work: (context: INestApplicationContext) => Promise<T>): Promise<T> {
  const config = parseConfig(process.env);
  const context = await NestFactory.createApplicationContext(CliModule.forRoot(config), { logger: ['error', 'fatal'] });
  try {
    return await work(context);
  } finally {
    await context.close();
  }
}

export function buildProgram(): Command {
  const program = new Command('chaintags')
    .description('Manage chaintags API keys and import data. Uses DATABASE_URL like the server.')
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });

  const keys = program.command('keys').description('create, list and revoke API keys');
  keys
    .command('create <account>')
    .description('create a key for the account (created when new) and print only the key')
    .action((account: string) =>
      withContext(async (context) => {
        process.stdout.write(`${await context.get(AccountsService).createKey(account)}\n`);
      }),
    );
  keys
    .command('list')
    .description('one line per key: prefix, account, created, revoked (tab-separated; never the whole key)')
    .action(() =>
      withContext(async (context) => {
        for (const key of await context.get(AccountsService).listKeys()) {
          process.stdout.write(`${key.prefix}\t${key.account}\t${key.created_at}\t${key.revoked_at ?? '-'}\n`);
        }
      }),
    );
  keys
    .command('revoke <prefix>')
    .description('revoke the one key that starts with the prefix shown by "keys list"')
    .action((prefix: string) =>
      withContext(async (context) => {
        await context.get(AccountsService).revokeKey(prefix);
        process.stderr.write(`revoked the key ${prefix}…\n`);
      }),
    );
  program
    .command('import <file>')
    .description(
      'import an NDJSON file ("-" reads standard input). Any invalid line imports nothing unless --skip-invalid; ' +
        'bad lines and progress go to stderr, a one-line JSON summary to stdout. Exit code 0 when the import was ' +
        'committed, 1 when nothing was imported.',
    )
    .option('--skip-invalid', 'import the valid lines even if some are invalid (they are still listed)')
    .action((file: string, flags: { skipInvalid?: boolean }) =>
      withContext(async (context) => {
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
  return program;
}

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

async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof AccountsError || error instanceof ConfigError || error instanceof CliFailure) {
      process.stderr.write(`error: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

if (require.main === module) {
  void main(process.argv).then((code) => process.exit(code));
}
