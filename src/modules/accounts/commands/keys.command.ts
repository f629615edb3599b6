import type { ModuleCommands } from '../../../cli/command';
import { AccountsModule } from '../accounts.module';
import { AccountsService } from '../accounts.service';

/** `keys create|list|revoke`: API keys are managed from the command line only, never over HTTP. */
export const keysCommands: ModuleCommands = {
  modules: [AccountsModule],
  register(program, inContext) {
    const keys = program.command('keys').description('create, list and revoke API keys');
    keys
      .command('create <account>')
      .description('create a key for the account (created when new) and print only the key')
      .action((account: string) =>
        inContext(async (context) => {
          process.stdout.write(`${await context.get(AccountsService).createKey(account)}\n`);
        }),
      );
    keys
      .command('list')
      .description('one line per key: prefix, account, created, revoked (tab-separated; never the whole key)')
      .action(() =>
        inContext(async (context) => {
          for (const key of await context.get(AccountsService).listKeys()) {
            process.stdout.write(`${key.prefix}\t${key.account}\t${key.created_at}\t${key.revoked_at ?? '-'}\n`);
          }
        }),
      );
    keys
      .command('revoke <prefix>')
      .description('revoke the one key that starts with the prefix shown by "keys list"')
      .action((prefix: string) =>
        inContext(async (context) => {
          await context.get(AccountsService).revokeKey(prefix);
          process.stderr.write(`revoked the key ${prefix}…\n`);
        }),
      );
  },
};
