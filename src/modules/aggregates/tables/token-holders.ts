import type { Sql } from '../../../database/db.service';
import { chunks, list, rows, sql } from '../../../database/sql';
import { binaryOrder } from '../../../core/text/binary-order';
import { positive } from '../changes';
import type { DataDelta, KeptAggregate, WriteRound } from '../kept-aggregate';

/** token_holders (chain, token_address): addresses with a balance above zero; rows at zero go. */
export const tokenHolders: KeptAggregate = {
  table: 'token_holders',
  key: ['chain', 'token_address'],
  kept: () => sql`SELECT chain, token_address, holders FROM token_holders WHERE holders <> 0`,
  reference: () =>
    sql`SELECT chain, token_address, COUNT(*) AS holders FROM holdings WHERE balance <> '0' GROUP BY chain, token_address`,
  dataWrite: () => new TokenHoldersDelta(),
};

interface HoldersDelta {
  chain: string;
  token_address: string;
  holders: number;
}

/** Gathers each token's change in holders; writes them once, at the end, in key order. */
class TokenHoldersDelta implements DataDelta {
  private readonly tokens = new Map<string, HoldersDelta>();

  round(_tx: Sql, round: WriteRound): Promise<void> {
    for (const change of round.holdings) {
      const step = positive(change.after) - positive(change.before);
      if (step === 0) continue;
      const key = `${change.chain} ${change.token_address}`;
      const token = this.tokens.get(key) ?? { chain: change.chain, token_address: change.token_address, holders: 0 };
      token.holders += step;
      this.tokens.set(key, token);
    }
    return Promise.resolve();
  }

  async finish(tx: Sql): Promise<void> {
    const ordered = [...this.tokens.values()]
      .filter((token) => token.holders !== 0)
      .sort((a, b) => binaryOrder(a.chain, b.chain) || binaryOrder(a.token_address, b.token_address));
    this.tokens.clear();
    for (const chunk of chunks(ordered)) {
      await tx.execute(
        sql`INSERT INTO token_holders (chain, token_address, holders)
            VALUES ${rows(chunk.map((token) => [token.chain, token.token_address, token.holders]))}
            ON CONFLICT (chain, token_address) DO UPDATE SET holders = token_holders.holders + excluded.holders`,
      );
      await tx.execute(
        sql`DELETE FROM token_holders WHERE holders = 0
            AND token_address IN (${list([...new Set(chunk.map((token) => token.token_address))])})`,
      );
    }
  }
}
