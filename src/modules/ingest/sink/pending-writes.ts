import type {
  ChainRecord,
  DataRecord,
  HoldingRecord,
  PriceRecord,
  TokenRecord,
  TransactionRecord,
} from '../../../core/records/records';

/** Records the sink writes together, by type, each key once. */
export interface WrittenRecords {
  chains: readonly ChainRecord[];
  tokens: readonly TokenRecord[];
  prices: readonly PriceRecord[];
  holdings: readonly HoldingRecord[];
  transactions: readonly TransactionRecord[];
}

/**
 * Valid records waiting for the next multi-row upsert, one per key. A statement must not name a
 * key twice (PostgreSQL refuses to update one row twice in a statement), so a repeated key merges
 * with the record already waiting, the way the two statements would have left the row in turn.
 */
export class PendingWrites {
  private readonly chains = new Map<string, ChainRecord>();
  private readonly tokens = new Map<string, TokenRecord>();
  private readonly prices = new Map<string, PriceRecord>();
  private readonly holdings = new Map<string, HoldingRecord>();
  private readonly transactions = new Map<string, TransactionRecord>();

  get size(): number {
    return this.chains.size + this.tokens.size + this.prices.size + this.holdings.size + this.transactions.size;
  }

  add(record: DataRecord): void {
    switch (record.type) {
      case 'chain':
        this.chains.set(record.chain, record);
        return;
      case 'token':
        this.tokens.set(record.id, mergeToken(this.tokens.get(record.id), record));
        return;
      case 'price':
        this.prices.set(`${record.token_id} ${record.at}`, record);
        return;
      case 'holding': {
        const key = `${record.chain} ${record.token_address} ${record.address}`;
        const waiting = this.holdings.get(key);
        // The same rule as the upsert: an older balance does not replace a newer one.
        if (waiting === undefined || waiting.updated_at <= record.updated_at) this.holdings.set(key, record);
        return;
      }
      case 'transaction':
        this.transactions.set(record.id, record);
        return;
    }
  }

  clear(): void {
    this.chains.clear();
    this.tokens.clear();
    this.prices.clear();
    this.holdings.clear();
    this.transactions.clear();
  }

  records(): WrittenRecords {
    return {
      chains: [...this.chains.values()],
      tokens: [...this.tokens.values()],
      prices: [...this.prices.values()],
      holdings: [...this.holdings.values()],
      transactions: [...this.transactions.values()],
    };
  }
}

/** A later token record updates the token's names; deployments accumulate, like the database's upserts. */
function mergeToken(earlier: TokenRecord | undefined, later: TokenRecord): TokenRecord {
  if (earlier === undefined) return later;
  const deployments = new Map(earlier.deployments.map((d) => [`${d.chain} ${d.address}`, d]));
  for (const deployment of later.deployments) deployments.set(`${deployment.chain} ${deployment.address}`, deployment);
  return { ...later, deployments: [...deployments.values()] };
}
