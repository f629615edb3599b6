import { Injectable } from '@nestjs/common';
import { Db, Sql } from '../../database/db.service';
import { toIso } from '../../database/dialect';
import type { KeyOwner } from '../../http/auth/auth';

export interface KeyListing {
  prefix: string;
  account: string;
  created_at: string;
  revoked_at: string | null;
}

interface KeyRow {
  prefix: string;
  account: string;
  created_at: Date | string;
  revoked_at: Date | string | null;
}

@Injectable()
export class AccountsRepository {
  constructor(private readonly db: Db) {}

  async findActiveKey(keyHash: string): Promise<KeyOwner | undefined> {
    const rows = await this.db.query<{ id: number | string; account_id: number | string; prefix: string }>(
      'SELECT id, account_id, prefix FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL',
      [keyHash],
    );
    const row = rows[0];
    return row && { keyId: Number(row.id), accountId: Number(row.account_id), prefix: row.prefix };
  }

  async countKeys(): Promise<number> {
    const rows = await this.db.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM api_keys');
    return Number(rows[0]?.n ?? 0);
  }

  /** Adds a key (and its account when new); an already stored key hash is left alone. */
  insertKey(account: string, prefix: string, keyHash: string, now: string): Promise<void> {
    return this.db.transaction(async (tx) => {
      const accountId = await ensureAccount(tx, account, now);
      await tx.execute(
        `INSERT INTO api_keys (account_id, prefix, key_hash, created_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (key_hash) DO NOTHING`,
        [accountId, prefix, keyHash, now],
      );
    });
  }

  async listKeys(): Promise<KeyListing[]> {
    const rows = await this.db.query<KeyRow>(
      `SELECT k.prefix, a.name AS account, k.created_at, k.revoked_at
       FROM api_keys k JOIN accounts a ON a.id = k.account_id ORDER BY k.created_at, k.id`,
    );
    return rows.map((row) => ({
      prefix: row.prefix,
      account: row.account,
      created_at: toIso(row.created_at),
      revoked_at: row.revoked_at === null ? null : toIso(row.revoked_at),
    }));
  }

  async findKeysByPrefix(prefix: string): Promise<{ id: number; revoked: boolean }[]> {
    const rows = await this.db.query<{ id: number | string; revoked_at: unknown }>(
      'SELECT id, revoked_at FROM api_keys WHERE substr(prefix, 1, $1) = $2',
      [prefix.length, prefix],
    );
    return rows.map((row) => ({ id: Number(row.id), revoked: row.revoked_at !== null }));
  }

  async revokeKey(id: number, now: string): Promise<void> {
    await this.db.execute('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [now, id]);
  }
}

async function ensureAccount(tx: Sql, name: string, now: string): Promise<number> {
  await tx.execute('INSERT INTO accounts (name, created_at) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
    name,
    now,
  ]);
  const rows = await tx.query<{ id: number | string }>('SELECT id FROM accounts WHERE name = $1', [name]);
  return Number(rows[0]!.id);
}
