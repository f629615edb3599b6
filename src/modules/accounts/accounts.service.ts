import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ACCOUNT_NAME, APP_CONFIG, AppConfig } from '../../config/config';
import type { ApiKeyVerifier, KeyOwner } from '../../http/auth/auth';
import { AccountsRepository, KeyAccess, KeyListing } from './accounts.repository';
import { generateApiKey, hashApiKey, KEY_PREFIX_LENGTH, keyPrefix } from './api-key';

export class AccountsError extends Error {}

@Injectable()
export class AccountsService implements ApiKeyVerifier {
  constructor(private readonly accounts: AccountsRepository) {}

  /** The owner of an active key; keys are looked up by hash on every request, so a revocation counts at once. */
  authenticate(key: string): Promise<KeyOwner | undefined> {
    return this.accounts.findActiveKey(hashApiKey(key));
  }

  /** A new key for the account (created when new); `read`: a key that may only read (GET and HEAD). */
  async createKey(account: string, access: KeyAccess = 'full'): Promise<string> {
    if (!ACCOUNT_NAME.test(account)) {
      throw new AccountsError(
        'account names are 1-64 characters of a-z, 0-9, "_" and "-", starting with a letter or digit',
      );
    }
    const key = generateApiKey();
    await this.accounts.insertKey(account, keyPrefix(key), hashApiKey(key), new Date().toISOString(), access);
    return key;
  }

  /** Stores a given key (API_KEYS) unless it is stored already, whatever access it was stored with. */
  async addKey(account: string, key: string, access: KeyAccess = 'full'): Promise<void> {
    await this.accounts.insertKey(account, keyPrefix(key), hashApiKey(key), new Date().toISOString(), access);
  }

  listKeys(): Promise<KeyListing[]> {
    return this.accounts.listKeys();
  }

  async revokeKey(prefix: string): Promise<void> {
    if (prefix.length < 5 || prefix.length > KEY_PREFIX_LENGTH) {
      throw new AccountsError(
        `give between 5 and ${KEY_PREFIX_LENGTH} leading characters of the key, as "keys list" shows them`,
      );
    }
    const matches = await this.accounts.findKeysByPrefix(prefix);
    if (matches.length === 0) throw new AccountsError(`no key starts with ${prefix}`);
    if (matches.length > 1)
      throw new AccountsError(`${matches.length} keys start with ${prefix}; give more characters`);
    if (matches[0]!.revoked) throw new AccountsError(`the key starting with ${prefix} is already revoked`);
    await this.accounts.revokeKey(matches[0]!.id, new Date().toISOString());
  }

  /** The id of the account with that name (accounts come into being with their first key). */
  async accountId(name: string): Promise<number> {
    const id = await this.accounts.findAccountId(name);
    if (id === undefined) throw new AccountsError(`no account ${name}: "keys create ${name}" creates it`);
    return id;
  }

  hasAnyKey(): Promise<boolean> {
    return this.accounts.countKeys().then((count) => count > 0);
  }
}

/**
 * At server start: creates the keys named in API_KEYS, then, when no key exists at all, creates one
 * for account `default` and prints it once, so a fresh install can be used straight away.
 */
@Injectable()
export class KeyBootstrap implements OnApplicationBootstrap {
  private readonly logger = new Logger('Keys');

  constructor(
    private readonly accounts: AccountsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const { account, key, access } of this.config.bootstrapKeys) await this.accounts.addKey(account, key, access);
    if (await this.accounts.hasAnyKey()) return;
    const key = await this.accounts.createKey('default');
    // Written straight to stdout, never through the logger: the key must not end up in log storage.
    process.stdout.write(
      `\nchaintags: no API key existed, so one was created for account "default".\n` +
        `It is shown only this once; store it now:\n\n    ${key}\n\n` +
        `Use it as ?api_key=<key> or the X-API-Key header. Manage keys with: npm run --silent cli -- keys --help\n\n`,
    );
    this.logger.log(`created the first API key ${keyPrefix(key)}… for account "default"`);
  }
}
