import { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Anvil } from './anvil';
import { parseLinks } from './fixtures';
import type { TestApp } from './test-app';

/** The follower's suites read chaintags the way a client would: through the API, as alice. */

export interface SyncRow {
  chain: string;
  status: string;
  head_block: string | null;
  indexed_block: string | null;
  confirmations: number;
  error: string | null;
  updated_at: string | null;
}

export interface TransactionRow {
  id: string;
  chain: string;
  token_address: string;
  from_address: string;
  to_address: string;
  value: string;
  tx_hash: string;
  block_number: string;
  block_hash: string;
  block_time: string;
}

export interface HoldingRow {
  chain: string;
  token_address: string;
  address: string;
  balance: string;
  token_name: string;
  token_symbol: string;
  token_decimals: number;
}

/** An address nobody has used, lowercase as chaintags stores it. */
export function randomAddress(): Address {
  return privateKeyToAccount(generatePrivateKey()).address.toLowerCase() as Address;
}

/** Polls `check` every 50 ms until it answers something other than undefined; never a fixed sleep. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export class FollowClient {
  constructor(private readonly t: TestApp) {}

  get<T>(path: string): Promise<T> {
    return this.t
      .http()
      .get(path)
      .set('X-API-Key', this.t.keys.alice)
      .expect(200)
      .then((response) => response.body as T);
  }

  async tag(tag: string, addresses: readonly string[]): Promise<void> {
    await this.t
      .http()
      .post(`/v2/tags/${tag}`)
      .set('X-API-Key', this.t.keys.alice)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(addresses))
      .expect(200);
  }

  async ethereum(): Promise<SyncRow> {
    return (await this.get<SyncRow[]>('/v2/sync')).find((row) => row.chain === 'ethereum')!;
  }

  /** Waits until the follower has committed the node's head and has no history left to read. */
  synced(anvil: Anvil, timeoutMs?: number): Promise<SyncRow> {
    return eventually(
      'the follower to reach the head',
      async () => {
        const [row, head] = await Promise.all([this.ethereum(), anvil.head()]);
        return row.status === 'synced' && row.indexed_block === head.toString() ? row : undefined;
      },
      timeoutMs,
    );
  }

  /** Waits until the committed position is the node's head, whatever the status (a process that does not follow). */
  caughtUp(anvil: Anvil, timeoutMs?: number): Promise<true> {
    return eventually(
      'the follower to reach the head',
      async () => ((await this.ethereum()).indexed_block === (await anvil.head()).toString() ? true : undefined),
      timeoutMs,
    );
  }

  /** The first page (100) of the address's ethereum transactions. */
  transactions(address: string): Promise<TransactionRow[]> {
    return this.get<TransactionRow[]>(`/v2/transactions?chain=ethereum&address=${address}&per_page=100`);
  }

  /** Every ethereum transaction hash recorded for `address`, over all pages. */
  async hashes(address: string): Promise<string[]> {
    return (await this.everyTransaction(`chain=ethereum&address=${address}`)).map((row) => row.tx_hash);
  }

  /** Every transaction `GET /v2/transactions?<query>` lists, following its `next` links. */
  async everyTransaction(query: string): Promise<TransactionRow[]> {
    const rows: TransactionRow[] = [];
    let path: string | undefined = `/v2/transactions?${query}&per_page=100`;
    while (path !== undefined) {
      const response: { body: unknown; headers: Record<string, string | undefined> } = await this.t
        .http()
        .get(path)
        .set('X-API-Key', this.t.keys.alice)
        .expect(200);
      rows.push(...(response.body as TransactionRow[]));
      const next: string | undefined = parseLinks(response.headers.link).next;
      path = next === undefined ? undefined : next.replace(/^https?:\/\/[^/]+/, '');
    }
    return rows;
  }

  holdings(address: string): Promise<HoldingRow[]> {
    return this.get<HoldingRow[]>(`/v2/token-holdings?chain=ethereum&address=${address}&per_page=100`);
  }

  /** The address's balance of `token` (`0`: the native coin), undefined without a holding above zero. */
  async balance(address: string, token = '0'): Promise<string | undefined> {
    return (await this.holdings(address)).find((row) => row.token_address === token)?.balance;
  }
}
