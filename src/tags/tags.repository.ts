import { Injectable } from '@nestjs/common';
import { Db } from '../database/db.service';

@Injectable()
export class TagsRepository {
  constructor(private readonly db: Db) {}

  async findTagId(accountId: number, name: string): Promise<number | undefined> {
    const rows = await this.db.query<{ id: number | string }>('SELECT id FROM tags WHERE account_id = $1 AND name = $2', [
      accountId,
      name,
    ]);
    return rows[0] === undefined ? undefined : Number(rows[0].id);
  }
}
