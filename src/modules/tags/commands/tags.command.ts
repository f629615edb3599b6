import { createReadStream } from 'node:fs';
import { once } from 'node:events';
import { extname } from 'node:path';
import { CliFailure, type ModuleCommands } from '../../../cli/command';
import { ApiError } from '../../../core/errors';
import type { TagFileFormat } from '../portability/tag-files';

/** What the history records as the changer for the command line. */
const CLI_KEY = 'cli';

const FORMATS: readonly TagFileFormat[] = ['ndjson', 'csv', 'tagpack'];
const BY_EXTENSION: Record<string, TagFileFormat> = {
  '.ndjson': 'ndjson',
  '.jsonl': 'ndjson',
  '.csv': 'csv',
  '.yaml': 'tagpack',
  '.yml': 'tagpack',
};

/** `tags export` and `tags import`: GET /v2/export/tags and POST /v2/import/tags for one account. */
export const tagsCommands: ModuleCommands = {
  register(program, inContext) {
    const tags = program.command('tags').description("export and import an account's tags");
    tags
      .command('export')
      .description('print every address the account tracks with its tags: NDJSON, or CSV with --csv')
      .requiredOption('--account <account>', 'the account whose tags to export')
      .option('--csv', 'CSV with the header address,tag, one row per (address, tag)')
      .action((flags: { account: string; csv?: boolean }) =>
        inContext(load, async (context, { AccountsService, TagPortabilityService }) => {
          const accountId = await context.get(AccountsService).accountId(flags.account);
          const chunks = context.get(TagPortabilityService).export(accountId, flags.csv === true ? 'csv' : 'ndjson');
          for await (const chunk of chunks) {
            if (!process.stdout.write(chunk)) await once(process.stdout, 'drain');
          }
        }),
      );
    tags
      .command('import <file>')
      .description(
        'import an export (NDJSON or CSV) or a GraphSense TagPack into the account ("-" reads standard input), ' +
          'all or nothing, recorded in the history as "cli". Prints the JSON answer of POST /v2/import/tags; ' +
          'bad lines go to stderr and import nothing (exit code 1).',
      )
      .requiredOption('--account <account>', 'the account to import into')
      .option('--replace', "make the account's tags equal to the file (default: add the file to them)")
      .option('--dry-run', 'print what would change, and change nothing')
      .option(
        '--format <format>',
        `${FORMATS.join(', ')}; by default from the extension (.ndjson .jsonl .csv .yaml .yml)`,
      )
      .action((file: string, flags: { account: string; replace?: boolean; dryRun?: boolean; format?: string }) =>
        inContext(load, async (context, { AccountsService, TagPortabilityService }) => {
          const format = formatOf(file, flags.format);
          const accountId = await context.get(AccountsService).accountId(flags.account);
          const input = file === '-' ? process.stdin : createReadStream(file);
          try {
            const report = await context.get(TagPortabilityService).import(accountId, input, format, {
              mode: flags.replace === true ? 'replace' : 'merge',
              dryRun: flags.dryRun === true,
              key: CLI_KEY,
            });
            process.stdout.write(`${JSON.stringify(report)}\n`);
          } catch (error) {
            throw failure(error, file);
          }
        }),
      );
  },
};

function formatOf(file: string, given: string | undefined): TagFileFormat {
  if (given !== undefined) {
    if ((FORMATS as readonly string[]).includes(given)) return given as TagFileFormat;
    throw new CliFailure(`--format must be one of ${FORMATS.join(', ')}`);
  }
  const format = BY_EXTENSION[extname(file).toLowerCase()];
  if (format === undefined) throw new CliFailure(`cannot tell the format of ${file}: pass --format`);
  return format;
}

/** The service's refusals as the user needs them: each bad line or address on stderr, then the message. */
function failure(error: unknown, file: string): Error {
  if (error instanceof ApiError) {
    for (const detail of error.details ?? []) process.stderr.write(`${describe(detail)}\n`);
    return new CliFailure(error.message);
  }
  const code = (error as { code?: unknown }).code;
  if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') {
    return new CliFailure(`cannot read ${file}: ${(error as Error).message}`);
  }
  return error instanceof Error ? error : new Error(String(error));
}

function describe(detail: unknown): string {
  const { line, message, address, tag_count } = detail as Record<string, unknown>;
  if (typeof line === 'number') return `line ${line}: ${String(message)}`;
  if (typeof address === 'string') return `${address}: carries ${String(tag_count)} tags`;
  return JSON.stringify(detail);
}

/** What the commands run, required when one runs (src/cli/command.ts). */
function load() {
  /* eslint-disable @typescript-eslint/no-require-imports -- required when a command runs (src/cli/command.ts) */
  const { AccountsModule } =
    require('../../accounts/accounts.module') as typeof import('../../accounts/accounts.module');
  const { AccountsService } =
    require('../../accounts/accounts.service') as typeof import('../../accounts/accounts.service');
  const { TagPortabilityModule } = require('../tag-portability.module') as typeof import('../tag-portability.module');
  const { TagPortabilityService } =
    require('../tag-portability.service') as typeof import('../tag-portability.service');
  /* eslint-enable @typescript-eslint/no-require-imports */
  return { modules: [TagPortabilityModule, AccountsModule], AccountsService, TagPortabilityService };
}
