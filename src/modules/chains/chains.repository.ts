import { Injectable } from '@nestjs/common';
import { Db } from '../../database/db.service';
import { sql } from '../../database/sql';

export interface ChainRow {
  chain: string;
  chain_id: number | string;
  name: string;
  icon_url: string;
  explorers: string;
}

@Injectable()
export class ChainsRepository {
  constructor(private readonly db: Db) {}

  list(): Promise<ChainRow[]> {
    return this.db.query<ChainRow>(
      sql`SELECT chain, chain_id, name, icon_url, explorers FROM chains ORDER BY position`,
    );
  }
}
