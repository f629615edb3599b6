import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Command, CommanderError } from 'commander';
import { AccountsError, AccountsService } from '../accounts/accounts.service';
import { ConfigError, parseConfig } from '../config/config';
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
  return program;
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
