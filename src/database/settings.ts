import type { Sql } from './db.service';
import { sql } from './sql';

/**
 * A setting that is written once and then only read (a server secret): `candidate` is stored
 * unless a value is there already, and the stored value is answered. When several servers start
 * on one database at once, the first insert wins and every one of them reads that value back.
 */
export async function settingOnce(db: Sql, key: string, candidate: string): Promise<string> {
  await db.execute(sql`INSERT INTO settings (key, value) VALUES (${key}, ${candidate}) ON CONFLICT (key) DO NOTHING`);
  const rows = await db.query<{ value: string }>(sql`SELECT value FROM settings WHERE key = ${key}`);
  const value = rows[0]?.value;
  if (value === undefined) throw new Error(`the setting ${key} could not be stored`);
  return value;
}
