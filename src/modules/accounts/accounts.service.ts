import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ACCOUNT_NAME, APP_CONFIG, AppConfig } from '../../config/config';
import type { ApiKeyVerifier, KeyOwner } from '../../http/auth/auth';
import { AccountsRepository, KeyAccess, KeyListing } from './accounts.repository';
import { generateApiKey, hashApiKey, KEY_PREFIX_LENGTH, keyPrefix } from './api-key';
import { EXPIRY_RULE, parseExpiry } from './key-expiry';

export class AccountsError extends Error {}

/** How often a key's `last_used_at` is stamped at most: `keys list` shows use to the hour. */
const KEY_USE_STAMP_MS = 3_600_000;

@Injectable()
export class AccountsService implements ApiKeyVerifier, BeforeApplicationShutdown {
  private readonly logger = new Logger('Accounts');
  /** Stamps of use being written, by key id: one at a time per key, awaited before shutdown. */
  private readonly stamping = new Map<number, Promise<void>>();

  constructor(private readonly accounts: AccountsRepository) {}

  /**
   * The owner of an active key (neither revoked nor expired); keys are looked up by hash on every
   * request, so a revocation or an expiry counts at once. A key not stamped as used within the hour
   * is stamped now, beside the request rather than before its answer: on SQLite a write waits for
   * any other writer, which a read must not.
   */
  async authenticate(key: string): Promise<KeyOwner | undefined> {
    const now = new Date();
    const found = await this.accounts.findActiveKey(hashApiKey(key), now.toISOString());
    if (found === undefined) return undefined;
    const { owner, lastUsedMs } = found;
    if ((lastUsedMs === null || now.getTime() - lastUsedMs >= KEY_USE_STAMP_MS) && !this.stamping.has(owner.keyId)) {
      const staleBefore = new Date(now.getTime() - KEY_USE_STAMP_MS).toISOString();
      const stamp = this.accounts
        .stampUse(owner.keyId, now.toISOString(), staleBefore)
        .catch((error: unknown) =>
          this.logger.warn(`could not record that key ${owner.prefix}… was used: ${String(error)}`),
        )
        .finally(() => this.stamping.delete(owner.keyId));
      this.stamping.set(owner.keyId, stamp);
    }
    return owner;
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.stamping.values());
  }

  /**
   * A new key for the account (created when new); `read`: a key that may only read (GET and HEAD);
   * `expires`: when it stops being accepted (EXPIRY_RULE; a time to come), never when undefined.
   */
  async createKey(account: string, access: KeyAccess = 'full', expires?: string): Promise<string> {
    if (!ACCOUNT_NAME.test(account)) {
      throw new AccountsError(
        'account names are 1-64 characters of a-z, 0-9, "_" and "-", starting with a letter or digit',
      );
    }
    const now = new Date();
    const expiresAt = expires === undefined ? undefined : expiryOf(expires, now);
    if (expiresAt !== undefined && expiresAt <= now.toISOString()) {
      throw new AccountsError(`--expires must be a time to come, not ${expiresAt}`);
    }
    const key = generateApiKey();
    await this.accounts.insertKey(account, keyPrefix(key), hashApiKey(key), now.toISOString(), access, expiresAt);
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
    const key = await this.unrevokedKey(prefix);
    await this.accounts.revokeKey(key.id, new Date().toISOString());
  }

  /**
   * Sets when the key stops being accepted (EXPIRY_RULE, or `never`), replacing any expiry it had:
   * to move clients to a new key, give the old one a few hours or days. Answers the instant (null:
   * never). A time gone by expires it at once, as a revocation would, but `keys list` shows when.
   */
  async expireKey(prefix: string, when: string): Promise<string | null> {
    const expiresAt = when === 'never' ? null : expiryOf(when, new Date());
    const key = await this.unrevokedKey(prefix);
    await this.accounts.setExpiry(key.id, expiresAt);
    return expiresAt;
  }

  /** The one key that starts with the prefix, and is not revoked. */
  private async unrevokedKey(prefix: string): Promise<{ id: number }> {
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
    return matches[0]!;
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

function expiryOf(when: string, now: Date): string {
  const at = parseExpiry(when, now);
  if (at === undefined) throw new AccountsError(`the expiry must be ${EXPIRY_RULE}; got "${when.slice(0, 64)}"`);
  return at;
}
