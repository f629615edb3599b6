import { Address, Hex } from 'viem';
import { findDrift } from '../src/modules/aggregates/aggregates.service';
import { Db } from '../src/database/db.service';
import { Anvil, startAnvil } from './support/anvil';
import { eventually, FollowClient, randomAddress, SyncRow } from './support/follow-client';
import { deployTestToken, mint as mintToken, transfer as transferToken } from './support/test-token';
import { DATABASES, DatabaseKind, freshDatabase, newKey, startTestApp, TestApp } from './support/test-app';

/**
 * The EVM follower against a real node (anvil, chain id 1, no network), through the API, on both
 * databases (contract §10). Every wait polls a condition; none sleeps for a fixed time.
 */

const ETHER = 10n ** 18n;
const FOLLOW_FAST = { CONFIRMATIONS_ETHEREUM: '0', FOLLOW_INTERVAL_MS: '100' };

function lower(address: Address): Address {
  return address.toLowerCase() as Address;
}

async function expectNoDrift(t: TestApp): Promise<void> {
  expect(await findDrift(t.app.get(Db))).toEqual([]);
}

describe.each(DATABASES)('following an EVM chain on %s', (kind: DatabaseKind) => {
  let anvil: Anvil;
  let db: { url: string; drop: () => Promise<void> };
  let t: TestApp;
  let api: FollowClient;
  const keys = { alice: newKey(), bob: newKey() };

  const start = async (): Promise<void> => {
    t = await startTestApp({ databaseUrl: db.url, keys, env: { RPC_URL_ETHEREUM: anvil.url, ...FOLLOW_FAST } });
    api = new FollowClient(t);
  };

  beforeAll(async () => {
    anvil = await startAnvil();
    db = await freshDatabase(kind);
    await start();
  });

  afterAll(async () => {
    await t?.close();
    await db?.drop();
    await anvil?.stop();
  });

  it('reports the followed chain in /v2/sync and the others as off', async () => {
    await api.synced(anvil);
    const rows = await api.get<SyncRow[]>('/v2/sync');
    const chains = await api.get<{ chain: string }[]>('/v2/chains');
    expect(rows.map((row) => row.chain)).toEqual(chains.map((chain) => chain.chain));
    const ethereum = rows.find((row) => row.chain === 'ethereum')!;
    expect(ethereum).toMatchObject({ status: 'synced', confirmations: 0, error: null });
    expect(ethereum.head_block).toBe((await anvil.head()).toString());
    for (const row of rows.filter((r) => r.chain !== 'ethereum')) {
      expect(row).toMatchObject({ status: 'off', head_block: null, indexed_block: null, error: null });
    }
    expect(rows.find((row) => row.chain === 'bitcoin')!.confirmations).toBe(6);

    // The same figures reach the metrics endpoint.
    const metrics = (await t.http().get('/metrics').expect(200)).text;
    expect(metrics).toMatch(/^chaintags_follower_indexed_block\{chain="ethereum"\} \d+$/m);
    expect(metrics).toMatch(/^chaintags_follower_lag_blocks\{chain="ethereum"\} 0$/m);
  });

  it('records native and token transfers of tracked addresses, not reverted ones, with balances from state', async () => {
    const sender = anvil.accounts[1]!.address;
    const receiver = randomAddress();
    await api.tag('watch', [sender, receiver]);
    const token = lower(await deployTestToken(anvil, { name: 'Test Dollar', symbol: 'TUSD', decimals: 6 }));
    const mint = (await mintToken(anvil, { token, to: sender, amount: 1_000_000n })).transactionHash;
    const native = await anvil.walletClient(1).sendTransaction({ to: receiver, value: ETHER });
    const moved = (await transferToken(anvil, { token, from: 1, to: receiver, amount: 250_000n })).transactionHash;
    const reverted = await anvil.walletClient(1).sendTransaction({ to: token, value: 1n, gas: 100_000n });
    const revertedReceipt = await anvil.publicClient.waitForTransactionReceipt({ hash: reverted });
    expect(revertedReceipt.status).toBe('reverted');
    await api.synced(anvil);

    const receipts = await Promise.all(
      [mint, native, moved].map((hash) => anvil.publicClient.waitForTransactionReceipt({ hash })),
    );
    const blocks = await Promise.all(
      receipts.map((receipt) => anvil.publicClient.getBlock({ blockNumber: receipt.blockNumber })),
    );
    const onChain = (index: number) => ({
      chain: 'ethereum',
      tx_hash: receipts[index]!.transactionHash,
      block_number: receipts[index]!.blockNumber.toString(),
      block_hash: receipts[index]!.blockHash,
      block_time: new Date(Number(blocks[index]!.timestamp) * 1000).toISOString(),
    });
    const logIndex = (index: number) => receipts[index]!.logs[0]!.logIndex;
    const expected = [
      {
        ...onChain(0),
        id: `ethereum:${mint}:${logIndex(0)}`,
        token_address: token,
        from_address: '0',
        to_address: sender,
        value: '1000000',
      },
      {
        ...onChain(1),
        id: `ethereum:${native}:native`,
        token_address: '0',
        from_address: sender,
        to_address: receiver,
        value: ETHER.toString(),
      },
      {
        ...onChain(2),
        id: `ethereum:${moved}:${logIndex(2)}`,
        token_address: token,
        from_address: sender,
        to_address: receiver,
        value: '250000',
      },
    ];
    const recorded = await api.transactions(sender);
    expect([...recorded].sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      [...expected].sort((a, b) => a.id.localeCompare(b.id)),
    );
    expect(recorded.map((row) => row.tx_hash)).not.toContain(reverted);

    // Balances are read from state: the sender's native balance is what it paid in gas too.
    const senderWei = await anvil.publicClient.getBalance({ address: sender });
    expect(await api.balance(sender)).toBe(senderWei.toString());
    expect(await api.balance(receiver)).toBe(ETHER.toString());
    expect(await api.balance(sender, token)).toBe('750000');
    expect(await api.balance(receiver, token)).toBe('250000');
    const held = (await api.holdings(receiver)).find((row) => row.token_address === token)!;
    expect(held).toMatchObject({ token_name: 'Test Dollar', token_symbol: 'TUSD', token_decimals: 6 });

    // The token was discovered: listed under <chain>-<contract>, with no price.
    const tokens = await api.get<{ id: string; name: string; symbol: string }[]>('/v2/tokens?per_page=100');
    expect(tokens).toContainEqual(
      expect.objectContaining({ id: `ethereum-${token}`, name: 'Test Dollar', symbol: 'TUSD' }),
    );

    const stats = await api.get<{ stats: Record<string, number> }>('/v2/tags/watch');
    expect(stats.stats).toMatchObject({ address_count: 2, token_holding_count: 4, txn_count: 3 });
    await expectNoDrift(t);
  });

  it('reads the history of an address tracked after its activity, while following the head', async () => {
    const late = randomAddress();
    const token = lower(await deployTestToken(anvil, { name: 'Late Coin', symbol: 'LATE', decimals: 18 }));
    const minted = (await mintToken(anvil, { token, to: late, amount: 5n * ETHER })).transactionHash;
    const paid = await anvil.walletClient(2).sendTransaction({ to: late, value: 2n * ETHER });
    await anvil.publicClient.waitForTransactionReceipt({ hash: paid });
    await api.synced(anvil);
    expect(await api.transactions(late)).toEqual([]);

    await api.tag('latecomer', [late]);
    await api.synced(anvil);
    const hashes = (await api.transactions(late)).map((row) => row.tx_hash).sort();
    expect(hashes).toEqual([minted, paid].sort());
    expect(await api.balance(late)).toBe((2n * ETHER).toString());
    expect(await api.balance(late, token)).toBe((5n * ETHER).toString());
    await expectNoDrift(t);
  });

  it('undoes a reorganisation at the head: orphaned transfers go, balances are read again', async () => {
    const payer = anvil.accounts[3]!.address;
    const payee = randomAddress();
    await api.tag('reorg', [payer, payee]);
    await api.synced(anvil);
    const orphan = await anvil.walletClient(3).sendTransaction({ to: payee, value: 3n * ETHER });
    await anvil.publicClient.waitForTransactionReceipt({ hash: orphan });
    await api.synced(anvil);
    expect((await api.transactions(payee)).map((row) => row.tx_hash)).toEqual([orphan]);

    // The block holding it is replaced by one where the payer sends 5 ether instead.
    await anvil.reorg(1, [{ transaction: { from: payer, to: payee, value: 5n * ETHER }, block: 0 }]);
    const head = await anvil.publicClient.getBlock({ includeTransactions: true });
    const replacement = head.transactions[0]!;
    await eventually('the reorganisation to be undone', async () => {
      const rows = await api.transactions(payee);
      return rows.length === 1 && rows[0]!.tx_hash === replacement.hash ? rows : undefined;
    });
    const [row] = await api.transactions(payee);
    expect(row).toMatchObject({ value: (5n * ETHER).toString(), block_hash: head.hash, from_address: payer });
    await api.synced(anvil);
    expect(await api.balance(payee)).toBe((5n * ETHER).toString());
    const payerWei = await anvil.publicClient.getBalance({ address: payer });
    expect(await api.balance(payer)).toBe(payerWei.toString());
    await expectNoDrift(t);
  });

  it('resumes after a restart where it committed: no gap, no duplicate', async () => {
    const saver = randomAddress();
    await api.tag('restart', [saver]);
    await api.synced(anvil);
    await t.close();
    const sent: Hex[] = [];
    for (let i = 1; i <= 3; i++) {
      const hash = await anvil.walletClient(4).sendTransaction({ to: saver, value: BigInt(i) * ETHER });
      sent.push(hash);
    }
    await anvil.publicClient.waitForTransactionReceipt({ hash: sent[sent.length - 1]! });
    await start();
    await api.synced(anvil);
    const rows = await api.transactions(saver);
    expect(rows.map((row) => row.tx_hash).sort()).toEqual([...sent].sort());
    expect(await api.balance(saver)).toBe((6n * ETHER).toString());
    await expectNoDrift(t);
  });
});

describe.each(DATABASES)('a node on another chain, on %s', (kind: DatabaseKind) => {
  it('writes nothing for the chain and reports the mismatch in /v2/sync', async () => {
    const anvil = await startAnvil({ chainId: 5 });
    const db = await freshDatabase(kind);
    const t = await startTestApp({ databaseUrl: db.url, env: { RPC_URL_ETHEREUM: anvil.url, ...FOLLOW_FAST } });
    try {
      const api = new FollowClient(t);
      const tracked = anvil.accounts[1]!.address;
      await api.tag('wrong_chain', [tracked]);
      await anvil.walletClient(1).sendTransaction({ to: randomAddress(), value: ETHER });
      const row = await eventually('the mismatch to be reported', async () => {
        const ethereum = await api.ethereum();
        return ethereum.status === 'error' ? ethereum : undefined;
      });
      expect(row.error).toContain('chain id 5, not 1');
      expect(row.indexed_block).toBeNull();
      expect(await api.transactions(tracked)).toEqual([]);
      expect(await api.holdings(tracked)).toEqual([]);
    } finally {
      await t.close();
      await db.drop();
      await anvil.stop();
    }
  });
});

describe.each(DATABASES)('settings of a followed chain, on %s', (kind: DatabaseKind) => {
  it('records from START_BLOCK, searches native history NATIVE_BACKFILL_BLOCKS back, stays CONFIRMATIONS behind', async () => {
    const anvil = await startAnvil();
    const db = await freshDatabase(kind);
    let t: TestApp | undefined;
    try {
      const holder = randomAddress();
      const token = lower(await deployTestToken(anvil, { name: 'Window Coin', symbol: 'WIN', decimals: 0 }));
      const oldNative = await anvil.walletClient(1).sendTransaction({ to: holder, value: 7n * ETHER });
      await anvil.publicClient.waitForTransactionReceipt({ hash: oldNative });
      await mintToken(anvil, { token, to: holder, amount: 11n });
      const start = (await anvil.head()) + 1n;
      const counted = (await mintToken(anvil, { token, to: holder, amount: 13n })).transactionHash;
      await anvil.mine(5);

      t = await startTestApp({
        databaseUrl: db.url,
        env: {
          RPC_URL_ETHEREUM: anvil.url,
          FOLLOW_INTERVAL_MS: '100',
          CONFIRMATIONS_ETHEREUM: '2',
          START_BLOCK_ETHEREUM: start.toString(),
          NATIVE_BACKFILL_BLOCKS_ETHEREUM: '3',
        },
      });
      const api = new FollowClient(t);
      const behind = async () => {
        const [row, head] = await Promise.all([api.ethereum(), anvil.head()]);
        return row.status === 'synced' && row.indexed_block === (head - 2n).toString() ? row : undefined;
      };
      await eventually('the follower to stay 2 blocks behind the head', behind);
      await api.tag('windowed', [holder]);
      await eventually('the backfill', behind);

      // Token history from START_BLOCK only; native history only 3 blocks back: neither older one.
      expect((await api.transactions(holder)).map((row) => row.tx_hash)).toEqual([counted]);
      // Balances are the chain's state all the same.
      expect(await api.balance(holder, token)).toBe('24');
      expect(await api.balance(holder)).toBe((7n * ETHER).toString());

      const late = await anvil.walletClient(2).sendTransaction({ to: holder, value: ETHER });
      await anvil.publicClient.waitForTransactionReceipt({ hash: late });
      await eventually('the new head to be seen', async () =>
        (await api.ethereum()).head_block === (await anvil.head()).toString() ? true : undefined,
      );
      expect((await api.transactions(holder)).map((row) => row.tx_hash)).not.toContain(late);
      await anvil.mine(2);
      await eventually('the transfer to be confirmed', async () =>
        (await api.transactions(holder)).some((row) => row.tx_hash === late) ? true : undefined,
      );
      await expectNoDrift(t);
    } finally {
      await t?.close();
      await db.drop();
      await anvil.stop();
    }
  });

  it('stops the chain on a reorganisation deeper than the kept blocks, and changes nothing', async () => {
    const anvil = await startAnvil();
    const db = await freshDatabase(kind);
    const t = await startTestApp({ databaseUrl: db.url, env: { RPC_URL_ETHEREUM: anvil.url, ...FOLLOW_FAST } });
    try {
      const api = new FollowClient(t);
      const payee = randomAddress();
      await api.tag('deep_reorg', [payee]);
      await anvil.mine(60);
      const paid = await anvil.walletClient(1).sendTransaction({ to: payee, value: ETHER });
      await anvil.publicClient.waitForTransactionReceipt({ hash: paid });
      await anvil.mine(140);
      await api.synced(anvil);

      // 150 blocks go and 160 others come, spaced a second apart so that none is the same block again:
      // the 128 blocks the follower keeps all differ from the node's.
      await anvil.rollback(150);
      await anvil.mine(160, 1);
      const row = await eventually('the chain to stop', async () => {
        const ethereum = await api.ethereum();
        return ethereum.status === 'error' ? ethereum : undefined;
      });
      expect(row.error).toMatch(/reorganisation deeper than the 128 blocks kept/);
      expect((await api.transactions(payee)).map((r) => r.tx_hash)).toEqual([paid]);
      expect(await api.balance(payee)).toBe(ETHER.toString());
    } finally {
      await t.close();
      await db.drop();
      await anvil.stop();
    }
  });
});
