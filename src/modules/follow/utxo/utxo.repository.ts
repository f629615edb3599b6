import { Injectable } from '@nestjs/common';
import type { ChainId } from '../../../core/chains/chain-ids';
import { Db, Sql } from '../../../database/db.service';
import { rowsPerLoad, textRows } from '../../../database/dialect';
import { chunks, list, prepared, sql } from '../../../database/sql';

/** A tracked output (follower_outputs): paid to a followed address's script. */
export interface TrackedOutput {
  txid: string;
  vout: number;
  address: string;
  /** Satoshis. */
  value: bigint;
  block: bigint;
  /** The block and transaction that spent it; undefined while unspent. */
  spentBlock?: bigint;
  spentTxid?: string;
}

interface OutputRow {
  txid: string;
  vout: number | string;
  address: string;
  value: number | string;
  block_number: number | string;
  spent_block: number | string | null;
  spent_txid: string | null;
}

/** follower_outputs' columns as PostgreSQL types, for textRows. */
const OUTPUT_TYPES = ['text', 'text', 'integer', 'text', 'bigint', 'bigint', 'bigint', 'text'];

/** The key of an outpoint in maps: `<txid>:<vout>`. */
export function outpointKey(txid: string, vout: number): string {
  return `${txid}:${vout}`;
}

/**
 * The Bitcoin-family source's tracked outputs (migration 1763700000070). Written only inside the
 * follower's transactions, through the source's `write`.
 */
@Injectable()
export class UtxoRepository {
  constructor(private readonly db: Db) {}

  /** Every unspent tracked output of the chain, as committed. */
  async unspent(chain: ChainId): Promise<TrackedOutput[]> {
    const found = await this.db.query<OutputRow>(
      sql`SELECT txid, vout, address, value, block_number, spent_block, spent_txid FROM follower_outputs
          WHERE chain = ${chain} AND spent_block IS NULL`,
    );
    return found.map(toOutput);
  }

  /** The tracked outputs of `addresses` created in blocks `from`..`to`, spent or not (what a backfill has found so far). */
  async createdBetween(
    chain: ChainId,
    addresses: readonly string[],
    from: bigint,
    to: bigint,
  ): Promise<TrackedOutput[]> {
    const outputs: TrackedOutput[] = [];
    for (const chunk of chunks(addresses)) {
      const found = await this.db.query<OutputRow>(
        sql`SELECT txid, vout, address, value, block_number, spent_block, spent_txid FROM follower_outputs
            WHERE chain = ${chain} AND address IN (${list(chunk)})
              AND block_number BETWEEN ${from.toString()} AND ${to.toString()}`,
      );
      outputs.push(...found.map(toOutput));
    }
    return outputs;
  }

  /**
   * The balances of `addresses` as of block `at`: the sum of the outputs created at or below it
   * and not spent at or below it.
   */
  async balancesAt(chain: ChainId, addresses: readonly string[], at: bigint): Promise<Map<string, bigint>> {
    const balances = new Map<string, bigint>();
    const block = at.toString();
    for (const chunk of chunks(addresses)) {
      const found = await this.db.query<{
        address: string;
        value: number | string;
        spent_block: number | string | null;
      }>(
        sql`SELECT address, value, spent_block FROM follower_outputs
            WHERE chain = ${chain} AND address IN (${list(chunk)}) AND block_number <= ${block}`,
      );
      for (const row of found) {
        if (row.spent_block !== null && BigInt(row.spent_block) <= at) continue;
        balances.set(row.address, (balances.get(row.address) ?? 0n) + BigInt(row.value));
      }
    }
    return balances;
  }

  /**
   * Adds outputs, or records the spend of kept ones: an output already kept keeps its row but takes
   * the spend the new one knows.
   */
  async add(tx: Sql, chain: ChainId, outputs: readonly TrackedOutput[]): Promise<void> {
    // One array per column on PostgreSQL (textRows): one text whatever the count, kept prepared.
    for (const chunk of chunks(outputs, rowsPerLoad(tx.dialect))) {
      await tx.execute(
        prepared(sql`INSERT INTO follower_outputs (chain, txid, vout, address, value, block_number, spent_block, spent_txid)
            ${textRows(
              tx.dialect,
              [
                chunk.map(() => chain),
                chunk.map((output) => output.txid),
                chunk.map((output) => output.vout),
                chunk.map((output) => output.address),
                chunk.map((output) => output.value.toString()),
                chunk.map((output) => output.block.toString()),
                chunk.map((output) => output.spentBlock?.toString() ?? null),
                chunk.map((output) => output.spentTxid ?? null),
              ],
              OUTPUT_TYPES,
            )}
            ON CONFLICT (chain, txid, vout) DO UPDATE SET
              spent_block = COALESCE(excluded.spent_block, follower_outputs.spent_block),
              spent_txid = COALESCE(excluded.spent_txid, follower_outputs.spent_txid)`),
      );
    }
  }

  /** A reorganisation back to `ancestor`: outputs created above it go, spends above it are undone. */
  async rewind(tx: Sql, chain: ChainId, ancestor: bigint): Promise<void> {
    const block = ancestor.toString();
    await tx.execute(sql`DELETE FROM follower_outputs WHERE chain = ${chain} AND block_number > ${block}`);
    await tx.execute(
      sql`UPDATE follower_outputs SET spent_block = NULL, spent_txid = NULL WHERE chain = ${chain} AND spent_block > ${block}`,
    );
  }
}

function toOutput(row: OutputRow): TrackedOutput {
  return {
    txid: row.txid,
    vout: Number(row.vout),
    address: row.address,
    value: BigInt(row.value),
    block: BigInt(row.block_number),
    spentBlock: row.spent_block === null ? undefined : BigInt(row.spent_block),
    spentTxid: row.spent_txid ?? undefined,
  };
}
