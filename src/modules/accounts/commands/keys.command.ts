import type { ModuleCommands } from '../../../cli/command';

/** `keys create|list|revoke`: API keys are managed from the command line only, never over HTTP. */
export const keysCommands: ModuleCommands = {
  register(program, inContext) {
    const keys = program.command('keys').description('create, list and revoke API keys');
    keys
      .command('create <account>')
      .description('create a key for the account (created when new) and print only the key')
      .option('--read-only', 'a key that may only read (GET and HEAD): any other request is 403 READ_ONLY_KEY')
      .action((account: string, options: { readOnly?: boolean }) =>
        inContext(load, async (context, { AccountsService }) => {
          const key = await context
            .get(AccountsService)
            .createKey(account, options.readOnly === true ? 'read' : 'full');
          process.stdout.write(`${key}\n`);
        }),
      );
    keys
      .command('list')
      .description(
        'one line per key: prefix, account, created, revoked, access (full or read; tab-separated; never the whole key)',
      )
      .action(() =>
        inContext(load, async (context, { AccountsService }) => {
          for (const key of await context.get(AccountsService).listKeys()) {
            process.stdout.write(
              `${key.prefix}\t${key.account}\t${key.created_at}\t${key.revoked_at ?? '-'}\t${key.access}\n`,
            );
          }
        }),
      );
    keys
      .command('revoke <prefix>')
      .description('revoke the one key that starts with the prefix shown by "keys list"')
      .action((prefix: string) =>
        inContext(load, async (context, { AccountsService }) => {
          await context.get(AccountsService).revokeKey(prefix);
          process.stderr.write(`revoked the key ${prefix}…\n`);
        }),
      );
  },
};

/** What the commands run, required when one runs (src/cli/command.ts). */
function load() {
  /* eslint-disable @typescript-eslint/no-require-imports -- required when a command runs (src/cli/command.ts) */
  const { AccountsModule } = require('../accounts.module') as typeof import('../accounts.module');
  const { AccountsService } = require('../accounts.service') as typeof import('../accounts.service');
  /* eslint-enable @typescript-eslint/no-require-imports */
  return { modules: [AccountsModule], AccountsService };
}
