import { type Address, type Hex, toHex } from 'viem';
import { ChainReader, type ReaderOptions } from '../src/modules/follow/evm/chain-reader';
import { ChainMoved, holdingKey, type HoldingKey, type ObservedTransfer } from '../src/modules/follow/reading';
import { type Anvil, startAnvil } from './support/anvil';
import { type RpcProxy, startRpcProxy } from './support/rpc-proxy';
import { balanceOf, deployBytes32Token, deployTestToken, mint, transfer } from './support/test-token';

/**
 * The chain reader against a real anvil: what it finds in blocks, logs and state, compared with
 * what anvil says directly. No database is involved.
 */

/** PUSH1 0 PUSH1 0 REVERT: a contract whose every call reverts. */
const REVERTING_CODE = '0x60006000fd';

/** Addresses nobody holds a key for, lowercase. */
const stranger = (n: number): Address => `0x${n.toString(16).padStart(40, '0')}`;

const byKey = (a: HoldingKey, b: HoldingKey) => holdingKey(a).localeCompare(holdingKey(b));

describe('ChainReader on anvil', () => {
  let anvil: Anvil;
  let reader: ChainReader;
  let alice: Address; // dev account 1, tracked
  let dave: Address; // dev account 4, tracked, only pays gas
  let untracked: Address; // dev account 2
  const bob = stranger(0xb0b); // tracked, receives only

  beforeAll(async () => {
    anvil = await startAnvil();
    reader = new ChainReader('ethereum', [anvil.url], { retryDelay: 10 });
    alice = anvil.accounts[1]!.address;
    untracked = anvil.accounts[2]!.address;
    dave = anvil.accounts[4]!.address;
  });

  afterAll(async () => {
    await anvil?.stop();
  });

  /** Sends a transaction from an unlocked dev account without waiting for it to be mined. */
  function send(tx: { from: Address; to: Address; value?: bigint; gas?: bigint }): Promise<Hex> {
    return anvil.rpc<Hex>('eth_sendTransaction', [
      { from: tx.from, to: tx.to, value: toHex(tx.value ?? 0n), gas: toHex(tx.gas ?? 100_000n) },
    ]);
  }

  /** The hash and ISO time of block `number`, as anvil gives them. */
  async function blockData(number: bigint): Promise<{ block_hash: string; block_time: string }> {
    const block = await anvil.publicClient.getBlock({ blockNumber: number });
    return { block_hash: block.hash, block_time: new Date(Number(block.timestamp) * 1000).toISOString() };
  }

  it('answers the chain id, the head, and headers linked by their parent hashes', async () => {
    await anvil.mine(3);
    const head = await anvil.head();
    expect(await reader.chainId()).toBe(anvil.chainId);
    expect(await reader.head()).toBe(head);
    const headers = await reader.headers(head - 2n, head);
    expect(headers.map((header) => header.number)).toEqual([head - 2n, head - 1n, head]);
    expect(headers[1]!.parentHash).toBe(headers[0]!.hash);
    expect(headers[2]!.parentHash).toBe(headers[1]!.hash);
    const { block_hash, block_time } = await blockData(head);
    expect(await reader.header(head)).toEqual({ ...headers[2], hash: block_hash, time: block_time });
    expect(await reader.header(head + 1000n)).toBe(undefined);
    expect(await reader.headers(head, head + 2n)).toEqual([headers[2]]);
  });

  it('finds a successful native transfer, not a reverted one, and touches tracked gas payers', async () => {
    const token = await deployTestToken(anvil, { name: 'Revert Sink', symbol: 'SINK', decimals: 18 });
    await anvil.setAutomine(false);
    const paid = await send({ from: alice, to: bob, value: 10n ** 18n, gas: 21_000n });
    // The token has no payable function: ether sent to it reverts, from a tracked or untracked sender.
    const revertedFromTracked = await send({ from: alice, to: token, value: 5n });
    const revertedToTracked = await send({ from: untracked, to: token, value: 7n });
    const gasOnly = await send({ from: dave, to: untracked, value: 0n, gas: 21_000n });
    const elsewhere = await send({ from: untracked, to: anvil.accounts[3]!.address, value: 9n, gas: 21_000n });
    await anvil.mine();
    await anvil.setAutomine(true);
    const block = await anvil.head();
    for (const [hash, status] of [
      [paid, 'success'],
      [revertedFromTracked, 'reverted'],
      [revertedToTracked, 'reverted'],
      [gasOnly, 'success'],
      [elsewhere, 'success'],
    ] as const) {
      const receipt = await anvil.publicClient.getTransactionReceipt({ hash });
      expect({ hash, block: receipt.blockNumber, status: receipt.status }).toEqual({ hash, block, status });
    }

    const tracked = new Set<string>([alice, bob, dave, token]);
    const reading = await reader.readRange(block, block, tracked);
    expect(reading.transfers).toEqual([
      {
        id: `ethereum:${paid}:native`,
        chain: 'ethereum',
        token_address: '0',
        from_address: alice,
        to_address: bob,
        value: '1000000000000000000',
        tx_hash: paid,
        block_number: block.toString(),
        ...(await blockData(block)),
      },
    ]);
    expect([...reading.touched].sort(byKey)).toEqual(
      [
        { address: alice, token_address: '0' },
        { address: bob, token_address: '0' },
        { address: dave, token_address: '0' },
      ].sort(byKey),
    );
    expect(reading.headers).toEqual([await reader.header(block)]);

    // Read from every receipt of the block (eth_getBlockReceipts, as here: 3 of its 5 transactions
    // are candidates) or one receipt per candidate: the same.
    const perTransaction = new ChainReader('ethereum', [anvil.url], { blockReceiptsFrom: 2 });
    expect(await perTransaction.readRange(block, block, tracked)).toEqual(reading);

    // The native backfill finds the same.
    expect(await reader.nativeTransfers(block, block, tracked)).toEqual({
      transfers: reading.transfers,
      touched: reading.touched,
    });
  });

  describe.each<[string, ReaderOptions]>([
    ['two address filters', {}],
    ['one unfiltered query for a large tracked set', { addressesPerTopicList: 1 }],
    ['address filters of one address each', { addressesPerTopicList: 1, unfilteredLogsUpTo: 0 }],
    ['the logs of every receipt of the range', { blockReceiptsFrom: 0 }],
  ])('token transfers (%s)', (_strategy, options) => {
    let token: Address;
    let first: bigint;
    let expected: ObservedTransfer[];

    beforeAll(async () => {
      token = await deployTestToken(anvil, { name: 'Test USD', symbol: 'TUSD', decimals: 6 });
      const minted = await mint(anvil, { token, to: alice, amount: 1_000_000n });
      first = minted.blockNumber;
      const sent = await transfer(anvil, { token, from: 1, to: bob, amount: 250_000n });
      await transfer(anvil, { token, from: 1, to: bob, amount: 0n });
      await mint(anvil, { token, to: untracked, amount: 5n });
      await transfer(anvil, { token, from: 2, to: stranger(0xcafe), amount: 5n });
      expected = [
        {
          id: `ethereum:${minted.transactionHash}:${minted.logs[0]!.logIndex}`,
          chain: 'ethereum',
          token_address: token,
          from_address: '0',
          to_address: alice,
          value: '1000000',
          tx_hash: minted.transactionHash,
          block_number: minted.blockNumber.toString(),
          ...(await blockData(minted.blockNumber)),
        },
        {
          id: `ethereum:${sent.transactionHash}:${sent.logs[0]!.logIndex}`,
          chain: 'ethereum',
          token_address: token,
          from_address: alice,
          to_address: bob,
          value: '250000',
          tx_hash: sent.transactionHash,
          block_number: sent.blockNumber.toString(),
          ...(await blockData(sent.blockNumber)),
        },
      ];
    });

    it('readRange finds mints and transfers with a tracked end, not transfers of 0 or between others', async () => {
      const head = await anvil.head();
      const reading = await new ChainReader('ethereum', [anvil.url], options).readRange(
        first,
        head,
        new Set([alice, bob]),
      );
      expect(reading.transfers).toEqual(expected);
      expect([...reading.touched].sort(byKey)).toEqual(
        [
          { address: alice, token_address: token },
          { address: bob, token_address: token },
          { address: alice, token_address: '0' },
        ].sort(byKey),
      );
    });

    it('tokenTransfers finds the same over any range', async () => {
      const head = await anvil.head();
      const backfill = new ChainReader('ethereum', [anvil.url], options);
      const reading = await backfill.tokenTransfers(0n, head, [alice, bob]);
      expect(reading.transfers.filter((t) => t.token_address === token)).toEqual(expected);
      expect(reading.touched).toContainEqual({ address: bob, token_address: token });
      expect(reading.touched.every((key) => key.token_address !== '0')).toBe(true);
    });
  });

  it('reads balances exactly as the node holds them, at the block asked', async () => {
    const token = await deployTestToken(anvil, { name: 'Balance', symbol: 'BAL', decimals: 18 });
    const before = (await mint(anvil, { token, to: alice, amount: 10n ** 30n + 7n })).blockNumber;
    await transfer(anvil, { token, from: 1, to: bob, amount: 3n });
    const now = await anvil.head();
    const reverting = stranger(0xdead);
    await anvil.setCode(reverting, REVERTING_CODE);
    const keys: HoldingKey[] = [
      { address: alice, token_address: '0' },
      { address: bob, token_address: '0' },
      { address: stranger(0x5ea), token_address: '0' },
      { address: alice, token_address: token },
      { address: bob, token_address: token },
      { address: untracked, token_address: token },
      { address: alice, token_address: reverting },
      { address: alice, token_address: dave },
    ];
    for (const block of [before, now]) {
      const balances = await reader.balances(keys, block);
      const expected = new Map<string, string>([
        [
          holdingKey(keys[0]!),
          (await anvil.publicClient.getBalance({ address: alice, blockNumber: block })).toString(),
        ],
        [holdingKey(keys[1]!), (await anvil.publicClient.getBalance({ address: bob, blockNumber: block })).toString()],
        [holdingKey(keys[2]!), '0'],
        [holdingKey(keys[3]!), (await balanceOf(anvil, token, alice, block)).toString()],
        [holdingKey(keys[4]!), (await balanceOf(anvil, token, bob, block)).toString()],
        [holdingKey(keys[5]!), '0'],
        [holdingKey(keys[6]!), '0'],
        [holdingKey(keys[7]!), '0'],
      ]);
      expect(balances).toEqual(expected);
    }
    expect((await reader.balances([keys[3]!], now)).get(holdingKey(keys[3]!))).toBe((10n ** 30n + 4n).toString());
    expect(await reader.balances([], now)).toEqual(new Map());
  });

  it('reads token metadata given as string or bytes32, and nothing from contracts that are no tokens', async () => {
    const plain = await deployTestToken(anvil, { name: 'Test Token Ü', symbol: 'TTÜ', decimals: 6 });
    const bytes32 = await deployBytes32Token(anvil, { name: 'Maker', symbol: 'MKR', decimals: 18 });
    const reverting = stranger(0xbad);
    await anvil.setCode(reverting, REVERTING_CODE);
    const metadata = await reader.tokenMetadata([plain, bytes32, reverting, dave], await anvil.head());
    expect(metadata).toEqual(
      new Map([
        [plain, { name: 'Test Token Ü', symbol: 'TTÜ', decimals: 6 }],
        [bytes32, { name: 'Maker', symbol: 'MKR', decimals: 18 }],
        [reverting, { name: '', symbol: '', decimals: 0 }],
        [dave, { name: '', symbol: '', decimals: 0 }],
      ]),
    );
  });

  describe('through a misbehaving provider', () => {
    let proxy: RpcProxy;
    let token: Address;
    let first: bigint;
    let direct: ObservedTransfer[];

    beforeAll(async () => {
      proxy = await startRpcProxy(anvil.url);
      token = await deployTestToken(anvil, { name: 'Spread', symbol: 'SPR', decimals: 0 });
      first = (await mint(anvil, { token, to: alice, amount: 100n })).blockNumber;
      for (let i = 1n; i <= 6n; i++) {
        await anvil.mine(3);
        await transfer(anvil, { token, from: 1, to: bob, amount: i });
      }
      const reading = await reader.tokenTransfers(first, await anvil.head(), [alice, bob]);
      direct = reading.transfers.filter((t) => t.token_address === token);
      expect(direct).toHaveLength(7);
    });

    afterEach(() => {
      proxy.behave();
      proxy.resetCalls();
    });

    afterAll(async () => {
      await proxy?.close();
    });

    /** The eth_getLogs calls the proxy received: their block range, and whether they filter senders. */
    function logCalls(): { from: bigint; to: bigint; senders: boolean }[] {
      return proxy.calls('eth_getLogs').map((call) => {
        const filter = call.params[0] as { fromBlock: string; toBlock: string; topics: unknown[] };
        return { from: BigInt(filter.fromBlock), to: BigInt(filter.toBlock), senders: filter.topics[1] !== null };
      });
    }

    it.each(['infura', 'alchemy', 'plain'] as const)(
      'tokenTransfers splits a range the provider refuses (%s wording) and keeps the span it accepted',
      async (style) => {
        const head = await anvil.head();
        const backfill = new ChainReader('ethereum', [proxy.url], { retryDelay: 1 });
        proxy.misbehave({ kind: 'rangeTooLarge', maxBlocks: 5, style });
        const reading = await backfill.tokenTransfers(first, head, [alice, bob]);
        expect(reading.transfers.filter((t) => t.token_address === token)).toEqual(direct);
        const calls = logCalls();
        const accepted = calls.filter(({ from, to }) => to - from + 1n <= 5n);
        expect(accepted.length).toBeLessThan(calls.length);
        // Each of the two filters covered the range once, in consecutive accepted pieces.
        for (const senders of [true, false]) {
          const pieces = accepted.filter((call) => call.senders === senders).sort((a, b) => Number(a.from - b.from));
          expect(pieces[0]!.from).toBe(first);
          expect(pieces[pieces.length - 1]!.to).toBe(head);
          pieces.slice(1).forEach(({ from }, i) => expect(from).toBe(pieces[i]!.to + 1n));
        }

        // The next call asks for the accepted span from the start: no refusal.
        proxy.resetCalls();
        await backfill.tokenTransfers(first, head, [alice, bob]);
        expect(logCalls().every(({ from, to }) => to - from + 1n <= 5n)).toBe(true);
      },
    );

    it('readRange splits its unfiltered queries when refused', async () => {
      const head = await anvil.head();
      const forward = new ChainReader('ethereum', [proxy.url], { retryDelay: 1, addressesPerTopicList: 1 });
      proxy.misbehave({ kind: 'rangeTooLarge', maxBlocks: 4, style: 'plain' });
      const reading = await forward.readRange(first, head, new Set([alice, bob]));
      expect(reading.transfers.filter((t) => t.token_address === token)).toEqual(direct);
      expect(logCalls().some(({ from, to }) => to - from + 1n > 4n)).toBe(true);
      expect(
        proxy.calls('eth_getLogs').every((call) => (call.params[0] as { topics: unknown[] }).topics.length === 1),
      ).toBe(true);
    });

    it('propagates a refusal of a single block', async () => {
      const backfill = new ChainReader('ethereum', [proxy.url], { retryDelay: 1 });
      proxy.misbehave({ kind: 'rangeTooLarge', maxBlocks: 0, style: 'plain' });
      await expect(backfill.tokenTransfers(first, first + 3n, [alice])).rejects.toThrow(/block range too large/);
      expect(logCalls().some(({ from, to }) => from === to)).toBe(true);
    });

    it('retries a 429 after the wait its Retry-After asks for, and goes on', async () => {
      const limited = new ChainReader('ethereum', [proxy.url], { retryDelay: 1 });
      proxy.misbehave({ kind: 'status429', retryAfter: '1', method: 'eth_blockNumber', times: 1 });
      expect(await limited.head()).toBe(await anvil.head());
      const calls = proxy.calls('eth_blockNumber');
      expect(calls).toHaveLength(2);
      // With retryDelay 1 ms the retry would follow at once, were Retry-After (1 s) ignored.
      expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(1000);
    });

    it('propagates errors left after the retries, and falls back to the next URL first', async () => {
      proxy.misbehave({ kind: 'status', status: 503 });
      const alone = new ChainReader('ethereum', [proxy.url], { retryDelay: 1, retryCount: 2 });
      await expect(alone.head()).rejects.toThrow(/503/);
      expect(proxy.calls('eth_blockNumber')).toHaveLength(3);
      const backed = new ChainReader('ethereum', [proxy.url, anvil.url], { retryDelay: 1, retryCount: 0 });
      expect(await backed.head()).toBe(await anvil.head());
    });

    it('reads balances in raw batches through a drop, a 429 and internal errors, and takes a revert as 0 at once', async () => {
      const reverting = stranger(0xdeaf);
      await anvil.setCode(reverting, REVERTING_CODE);
      const head = await anvil.head();
      const keys: HoldingKey[] = [
        { address: alice, token_address: '0' },
        { address: bob, token_address: '0' },
        { address: alice, token_address: reverting },
      ];
      const direct = await reader.balances(keys, head);
      expect(direct.get(holdingKey(keys[2]!))).toBe('0');
      proxy.misbehave({ kind: 'drop', method: 'eth_getBalance', times: 1 });
      proxy.misbehave({ kind: 'status429', method: 'eth_getBalance', times: 1 });
      proxy.misbehave({ kind: 'error', code: -32603, message: 'internal error', method: 'eth_getBalance', times: 2 });
      const flaky = new ChainReader('ethereum', [proxy.url], { retryDelay: 1, retryCount: 5 });
      expect(await flaky.balances(keys, head)).toEqual(direct);
      // Whole requests again after the drop and the 429, then only the two balances the node failed.
      expect(proxy.calls('eth_getBalance')).toHaveLength(8);
      // The revert is an answer: its call went out with the three whole requests, never by itself.
      expect(proxy.calls('eth_call')).toHaveLength(3);

      // Failing on every try: the error propagates.
      proxy.behave();
      proxy.misbehave({ kind: 'error', code: -32603, message: 'internal error', method: 'eth_getBalance' });
      await expect(flaky.balances(keys, head)).rejects.toThrow(/internal error/);
    });

    it('reads per transaction and by eth_getLogs from the first refusal of eth_getBlockReceipts on', async () => {
      await anvil.setAutomine(false);
      await send({ from: alice, to: bob, value: 4n, gas: 21_000n });
      await anvil.mine();
      await anvil.setAutomine(true);
      const head = await anvil.head();
      const tracked = new Set<string>([alice, bob]);
      const whole = await new ChainReader('ethereum', [anvil.url], { blockReceiptsFrom: 0 }).readRange(
        first,
        head,
        tracked,
      );
      expect(whole.transfers.filter((t) => t.token_address === token)).toEqual(direct);
      expect(whole.transfers).toContainEqual(
        expect.objectContaining({ token_address: '0', to_address: bob, value: '4' }),
      );
      proxy.misbehave({
        kind: 'error',
        code: -32601,
        message: 'the method eth_getBlockReceipts does not exist/is not available',
        method: 'eth_getBlockReceipts',
      });
      const refused = new ChainReader('ethereum', [proxy.url], { retryDelay: 1, blockReceiptsFrom: 0 });
      expect(await refused.readRange(first, head, tracked)).toEqual(whole);
      expect(proxy.calls('eth_getBlockReceipts').length).toBeGreaterThan(0);
      expect(proxy.calls('eth_getTransactionReceipt').length).toBeGreaterThan(0);
      expect(proxy.calls('eth_getLogs').length).toBeGreaterThan(0);

      // Not asked again.
      proxy.resetCalls();
      expect(await refused.readRange(first, head, tracked)).toEqual(whole);
      expect(proxy.calls('eth_getBlockReceipts')).toEqual([]);
    });

    it('a failure of eth_getBlockReceipts that is not a refusal propagates', async () => {
      proxy.misbehave({ kind: 'error', code: -32000, message: 'header not found', method: 'eth_getBlockReceipts' });
      const reader = new ChainReader('ethereum', [proxy.url], { retryDelay: 1, blockReceiptsFrom: 0 });
      await expect(reader.readRange(first, first + 2n, new Set([alice, bob]))).rejects.toThrow(/header not found/);
    });

    describe('a chain that moves during the reading', () => {
      /** A second node with another chain at the same heights, where alice receives tokens. */
      let other: Anvil;

      beforeAll(async () => {
        other = await startAnvil();
        const otherToken = await deployTestToken(other, { name: 'Other', symbol: 'OTH', decimals: 0 });
        for (let i = 0; i < 3; i++) await mint(other, { token: otherToken, to: alice, amount: 1n });
        // Blocks at every height the first node has, so headers there can be compared.
        await other.mine(Number(await anvil.head()) + 50);
      });

      afterAll(async () => {
        await other?.stop();
      });

      /** A reader whose calls of `method` fail on the first node and are answered by the other. */
      function splitReader(method: string, times?: number, options: ReaderOptions = {}): ChainReader {
        proxy.misbehave({ kind: 'error', code: -32000, message: 'backend unavailable', method, times });
        return new ChainReader('ethereum', [proxy.url, other.url], { retryDelay: 1, ...options });
      }

      it('throws ChainMoved when a block is not the child of the one before it', async () => {
        const reading = splitReader('eth_getBlockByNumber', 1).readRange(1n, 3n, new Set([alice]));
        await expect(reading).rejects.toThrow(ChainMoved);
        await expect(reading).rejects.toMatchObject({ block: 2n });
      });

      it('throws ChainMoved when a log comes from another block than the one read at its height', async () => {
        const reading = splitReader('eth_getLogs').readRange(1n, 4n, new Set([alice]));
        await expect(reading).rejects.toThrow(ChainMoved);
        await expect(reading).rejects.toThrow(/log of block/);
      });

      it('throws ChainMoved when a backfill log is not in the block at its height', async () => {
        const reading = splitReader('eth_getBlockByNumber').tokenTransfers(first, await anvil.head(), [alice]);
        await expect(reading).rejects.toThrow(ChainMoved);
        await expect(reading).rejects.toThrow(/log of block/);
      });

      it('throws ChainMoved when a receipt is not found in the block read', async () => {
        await anvil.setAutomine(false);
        await send({ from: alice, to: bob, value: 1n, gas: 21_000n });
        await anvil.mine();
        await anvil.setAutomine(true);
        const head = await anvil.head();
        const reading = splitReader('eth_getTransactionReceipt', undefined, { blockReceiptsFrom: 2 }).readRange(
          head,
          head,
          new Set([bob]),
        );
        await expect(reading).rejects.toThrow(ChainMoved);
        await expect(reading).rejects.toThrow(/no longer in block/);

        // The same read from the block's receipts, which the other node answers for its own block.
        const whole = splitReader('eth_getBlockReceipts').readRange(head, head, new Set([bob]));
        await expect(whole).rejects.toThrow(ChainMoved);
        await expect(whole).rejects.toThrow(/receipts of block|receipt of block/);
      });

      it('throws ChainMoved after anvil_reorg replaced the range while its logs and receipts were asked for', async () => {
        await anvil.setAutomine(false);
        await send({ from: alice, to: bob, value: 2n, gas: 21_000n });
        await anvil.mine();
        await anvil.setAutomine(true);
        const head = await anvil.head();
        // Hold the request that asks for the receipt until the block is replaced.
        // Receipts (raw batches) and logs (viem) leave in separate requests: both are held.
        proxy.misbehave({ kind: 'delay', ms: 3_000, method: 'eth_getTransactionReceipt', times: 1 });
        proxy.misbehave({ kind: 'delay', ms: 3_000, method: 'eth_getLogs', times: 1 });
        const forward = new ChainReader('ethereum', [proxy.url], { retryDelay: 1, blockReceiptsFrom: 2 });
        const reading = forward.readRange(head, head, new Set([bob]));
        await proxy.until(
          () => proxy.calls('eth_getTransactionReceipt').length > 0 && proxy.calls('eth_getLogs').length > 0,
        );
        await anvil.reorg(1);
        await expect(reading).rejects.toThrow(ChainMoved);
        expect((await anvil.publicClient.getBlock({ blockNumber: head })).transactions).toEqual([]);
      });

      it('throws ChainMoved after anvil_reorg replaced the range while its block receipts were asked for', async () => {
        await anvil.setAutomine(false);
        await send({ from: alice, to: bob, value: 3n, gas: 21_000n });
        await anvil.mine();
        await anvil.setAutomine(true);
        const head = await anvil.head();
        proxy.misbehave({ kind: 'delay', ms: 3_000, method: 'eth_getBlockReceipts', times: 1 });
        const forward = new ChainReader('ethereum', [proxy.url], { retryDelay: 1, blockReceiptsFrom: 0 });
        const reading = forward.readRange(head, head, new Set([bob]));
        await proxy.until(() => proxy.calls('eth_getBlockReceipts').length > 0);
        await anvil.reorg(1);
        await expect(reading).rejects.toThrow(ChainMoved);
        expect((await anvil.publicClient.getBlock({ blockNumber: head })).transactions).toEqual([]);
      });
    });
  });
});
