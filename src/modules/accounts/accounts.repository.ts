import { Injectable } from '@nestjs/common';
import { Db, Sql } from '../../database/db.service';
import { toIso } from '../../database/dialect';
import { prepared, sql } from '../../database/sql';
import type { KeyOwner } from '../../http/auth/auth';

/** What a key may do: every route, or GET and HEAD only. */
export type KeyAccess = 'full' | 'read';

export interface KeyListing {
  prefix: string;
  account: string;
  created_at: string;
  revoked_at: string | null;
  access: KeyAccess;
  expires_at: string | null;
  /** When the key last authenticated a request, to the hour; null: not since migration 280. */
  last_used_at: string | null;
}

interface KeyRow {
  prefix: string;
  account: string;
  created_at: Date | string;
  revoked_at: Date | string | null;
  access: KeyAccess;
  expires_at: Date | string | null;
  last_used_at: Date | string | null;
}

/** An active key's owner, and when the key was last stamped as used (ms; null: never). */
export interface ActiveKey {
  owner: KeyOwner;
  lastUsedMs: number | null;
}

@Injectable()
export class AccountsRepository {
  constructor(private readonly db: Db) {}

  /** The owner of the key with that hash, unless it is revoked or expired at `now`. */
  async findActiveKey(keyHash: string, now: string): Promise<ActiveKey | undefined> {
    const rows = await this.db.query<{
      id: number | string;
      account_id: number | string;
      prefix: string;
      access: KeyAccess;
      last_used_at: Date | string | null;
    }>(
      prepared(
        sql`SELECT id, account_id, prefix, access, last_used_at FROM api_keys
         WHERE key_hash = ${keyHash} AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ${now})`,
      ),
    );
    const row = rows[0];
    return (
      row && {
        owner: {
          keyId: Number(row.id),
          accountId: Number(row.account_id),
          prefix: row.prefix,
          readOnly: row.access === 'read',
        },
        lastUsedMs: row.last_used_at === null ? null : Date.parse(toIso(row.last_used_at)),
      }
    );
  }

  /** Stamps the key as used at `now`, unless a stamp after `staleBefore` is there already. */
  async stampUse(keyId: number, now: string, staleBefore: string): Promise<void> {
    await this.db.execute(
      sql`UPDATE api_keys SET last_used_at = ${now}
          WHERE id = ${keyId} AND (last_used_at IS NULL OR last_used_at < ${staleBefore})`,
    );
  }

  countKeys(): Promise<number> {
    return this.db.count(sql`SELECT COUNT(*) FROM api_keys`);
  }

  /**
   * Adds a key (and its account when new), expiring at `expiresAt` (never when undefined); an
   * already stored key hash is left alone.
   */
  insertKey(
    account: string,
    prefix: string,
    keyHash: string,
    now: string,
    access: KeyAccess = 'full',
    expiresAt?: string,
  ): Promise<void> {
    return this.db.transaction(async (tx) => {
      const accountId = await ensureAccount(tx, account, now);
      await tx.execute(
        sql`INSERT INTO api_keys (account_id, prefix, key_hash, created_at, access, expires_at)
         VALUES (${accountId}, ${prefix}, ${keyHash}, ${now}, ${access}, ${expiresAt ?? null})
         ON CONFLICT (key_hash) DO NOTHING`,
      );
    });
  }

  async listKeys(): Promise<KeyListing[]> {
    const rows = await this.db.query<KeyRow>(
      sql`SELECT k.prefix, a.name AS account, k.created_at, k.revoked_at, k.access, k.expires_at, k.last_used_at
       FROM api_keys k JOIN accounts a ON a.id = k.account_id ORDER BY k.created_at, k.id`,
    );
    return rows.map((row) => ({
      prefix: row.prefix,
      account: row.account,
      created_at: toIso(row.created_at),
      revoked_at: row.revoked_at === null ? null : toIso(row.revoked_at),
      access: row.access,
      expires_at: row.expires_at === null ? null : toIso(row.expires_at),
      last_used_at: row.last_used_at === null ? null : toIso(row.last_used_at),
    }));
  }

  async findKeysByPrefix(prefix: string): Promise<{ id: number; revoked: boolean }[]> {
    const rows = await this.db.query<{ id: number | string; revoked_at: unknown }>(
      sql`SELECT id, revoked_at FROM api_keys WHERE substr(prefix, 1, ${prefix.length}) = ${prefix}`,
    );
    return rows.map((row) => ({ id: Number(row.id), revoked: row.revoked_at !== null }));
  }

  /** The account's id, or undefined when no account has that name. */
  async findAccountId(name: string): Promise<number | undefined> {
    const rows = await this.db.query<{ id: number | string }>(sql`SELECT id FROM accounts WHERE name = ${name}`);
    return rows[0] === undefined ? undefined : Number(rows[0].id);
  }

  async revokeKey(id: number, now: string): Promise<void> {
    await this.db.execute(sql`UPDATE api_keys SET revoked_at = ${now} WHERE id = ${id} AND revoked_at IS NULL`);
  }

  /** Sets when the key expires (null: never), whatever it was set to before. */
  async setExpiry(id: number, expiresAt: string | null): Promise<void> {
    await this.db.execute(sql`UPDATE api_keys SET expires_at = ${expiresAt} WHERE id = ${id}`);
  }
}

async function ensureAccount(tx: Sql, name: string, now: string): Promise<number> {
  await tx.execute(sql`INSERT INTO accounts (name, created_at) VALUES (${name}, ${now}) ON CONFLICT (name) DO NOTHING`);
  const rows = await tx.query<{ id: number | string }>(sql`SELECT id FROM accounts WHERE name = ${name}`);
  return Number(rows[0]!.id);
}
