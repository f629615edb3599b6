import type { ModuleCommands } from '../../../cli/command';

/** `keys create|list|revoke|expire`: API keys are managed from the command line only, never over HTTP. */
export const keysCommands: ModuleCommands = {
  register(program, inContext) {
    const keys = program.command('keys').description('create, list, revoke and expire API keys');
    keys
      .command('create <account>')
      .description('create a key for the account (created when new) and print only the key')
      .option('--read-only', 'a key that may only read (GET and HEAD): any other request is 403 READ_ONLY_KEY')
      .option(
        '--expires <when>',
        'when the key stops being accepted: a UTC timestamp (2027-01-31T00:00:00Z) or a time from now (90m, 12h, 30d)',
      )
      .action((account: string, options: { readOnly?: boolean; expires?: string }) =>
        inContext(load, async (context, { AccountsService }) => {
          const key = await context
            .get(AccountsService)
            .createKey(account, options.readOnly === true ? 'read' : 'full', options.expires);
          process.stdout.write(`${key}\n`);
        }),
      );
    keys
      .command('list')
      .description(
        'one line per key: prefix, account, created, revoked, access (full or read), expires, last used (to the hour) ' +
          '(tab-separated, "-" for none; never the whole key)',
      )
      .action(() =>
        inContext(load, async (context, { AccountsService }) => {
          for (const key of await context.get(AccountsService).listKeys()) {
            process.stdout.write(
              `${key.prefix}\t${key.account}\t${key.created_at}\t${key.revoked_at ?? '-'}\t${key.access}\t` +
                `${key.expires_at ?? '-'}\t${key.last_used_at ?? '-'}\n`,
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
    keys
      .command('expire <prefix> <when>')
      .description(
        'set when the key starting with the prefix stops being accepted: a UTC timestamp, a time from now ' +
          '(90m, 12h, 30d), "now", or "never" to keep it; to move clients to a new key, give the old one a day',
      )
      .action((prefix: string, when: string) =>
        inContext(load, async (context, { AccountsService }) => {
          const at = await context.get(AccountsService).expireKey(prefix, when);
          process.stderr.write(
            at === null ? `the key ${prefix}… never expires\n` : `the key ${prefix}… expires at ${at}\n`,
          );
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
