import { createPublicClient, http, TimeoutError } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { Anvil, AnvilRpcError, startAnvil } from './support/anvil';
import { RpcProxy, startRpcProxy } from './support/rpc-proxy';
import {
  balanceOf,
  bytes32TokenAbi,
  deployBytes32Token,
  deployTestToken,
  mint,
  testTokenAbi,
  transfer,
} from './support/test-token';

// The EVM follower's test harness itself: no database, no app. A real anvil, the test tokens and the
// fault-injecting JSON-RPC proxy behave as the follower's tests rely on.
describe('anvil test harness', () => {
  let anvil: Anvil;

  beforeAll(async () => {
    anvil = await startAnvil();
  });

  afterAll(async () => {
    await anvil?.stop();
  });

  it('starts anvil on a free loopback port, chain id 1, with the default dev accounts and their keys', async () => {
    expect(anvil.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(anvil.url).not.toBe('http://127.0.0.1:8545');
    expect(await anvil.publicClient.getChainId()).toBe(1);
    expect(anvil.accounts).toHaveLength(10);
    expect(anvil.accounts[0]!.address).toBe('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266');
    for (const dev of anvil.accounts) {
      expect(privateKeyToAccount(dev.privateKey).address.toLowerCase()).toBe(dev.address);
    }
  });

  it('runs another node beside it with its own chain id and accounts, and kills it', async () => {
    const other = await startAnvil({ chainId: 137, accounts: 2, balanceEther: 5 });
    try {
      expect(other.url).not.toBe(anvil.url);
      expect(await other.publicClient.getChainId()).toBe(137);
      expect(other.accounts).toHaveLength(2);
      expect(await other.publicClient.getBalance({ address: other.accounts[1]!.address })).toBe(5n * 10n ** 18n);
    } finally {
      await other.kill();
    }
    await expect(other.rpc('eth_chainId')).rejects.toThrow();
  });

  it('deploys the test token, mints and transfers it', async () => {
    const [, alice, bob] = anvil.accounts;
    const token = await deployTestToken(anvil, { name: 'Test Token', symbol: 'TST', decimals: 6 });
    expect(token).toMatch(/^0x[0-9a-f]{40}$/);
    const read = (functionName: 'name' | 'symbol' | 'decimals') =>
      anvil.publicClient.readContract({ address: token, abi: testTokenAbi, functionName });
    expect([await read('name'), await read('symbol'), await read('decimals')]).toEqual(['Test Token', 'TST', 6]);

    const minted = await mint(anvil, { token, to: alice!.address, amount: 1_000n });
    expect(minted.logs).toHaveLength(1);
    expect(minted.logs[0]!.topics[1]).toBe(`0x${'0'.repeat(64)}`);
    await transfer(anvil, { token, from: 1, to: bob!.address, amount: 300n });
    expect(await balanceOf(anvil, token, alice!.address)).toBe(700n);
    expect(await balanceOf(anvil, token, bob!.address)).toBe(300n);
    expect(await balanceOf(anvil, token, alice!.address, minted.blockNumber)).toBe(1_000n);
  });

  it('deploys the token whose name and symbol are bytes32', async () => {
    const token = await deployBytes32Token(anvil, { name: 'Maker', symbol: 'MKR', decimals: 18 });
    const symbol = await anvil.publicClient.readContract({
      address: token,
      abi: bytes32TokenAbi,
      functionName: 'symbol',
    });
    expect(symbol).toBe(`0x4d4b52${'0'.repeat(58)}`);
    await mint(anvil, { token, to: anvil.accounts[1]!.address, amount: 5n });
    await transfer(anvil, { token, from: 1, to: anvil.accounts[2]!.address, amount: 2n });
    expect(await balanceOf(anvil, token, anvil.accounts[2]!.address)).toBe(2n);
  });

  it('mines a native transfer to the token as reverted when sent with a gas limit', async () => {
    const token = await deployTestToken(anvil, { name: 'Test Token', symbol: 'TST', decimals: 18 });
    const hash = await anvil.walletClient(3).sendTransaction({ to: token, value: 1n, gas: 100_000n });
    const receipt = await anvil.publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('reverted');
    expect(await anvil.publicClient.getBalance({ address: token })).toBe(0n);
  });

  it('reorganises the top blocks: same head number, new hashes, the given transactions in the new blocks', async () => {
    await anvil.mine(3);
    const head = await anvil.head();
    const before = await Promise.all([head - 2n, head - 1n, head].map((blockNumber) => block(blockNumber)));

    const [sender, receiver] = anvil.accounts;
    await anvil.reorg(2, [{ transaction: { from: sender!.address, to: receiver!.address, value: 7n }, block: 1 }]);

    expect(await anvil.head()).toBe(head);
    const after = await Promise.all([head - 2n, head - 1n, head].map((blockNumber) => block(blockNumber)));
    expect(after[0]!.hash).toBe(before[0]!.hash);
    expect(after[1]!.hash).not.toBe(before[1]!.hash);
    expect(after[2]!.hash).not.toBe(before[2]!.hash);
    expect(after[2]!.parentHash).toBe(after[1]!.hash);
    expect(after[1]!.transactions).toEqual([]);
    expect(after[2]!.transactions).toEqual([
      expect.objectContaining({ from: sender!.address, to: receiver!.address, value: 7n }),
    ]);
  });

  it('rolls the head back', async () => {
    await anvil.mine(2);
    const head = await anvil.head();
    await anvil.rollback(2);
    expect(await anvil.head()).toBe(head - 2n);
    await expect(anvil.rpc('anvil_reorg', [1])).rejects.toThrow(AnvilRpcError);
  });

  describe('JSON-RPC proxy', () => {
    let proxy: RpcProxy;

    beforeAll(async () => {
      proxy = await startRpcProxy(anvil.url);
    });

    afterEach(() => {
      proxy.behave();
      proxy.resetCalls();
    });

    afterAll(async () => {
      await proxy?.close();
    });

    const client = (options: { retryCount?: number; timeout?: number; batch?: boolean } = {}) =>
      createPublicClient({ transport: http(proxy.url, { retryDelay: 10, ...options }) });

    it('forwards single and batched calls and records them per method', async () => {
      const batched = client({ batch: true });
      const [chainId, head] = await Promise.all([batched.getChainId(), batched.getBlockNumber({ cacheTime: 0 })]);
      expect(chainId).toBe(1);
      expect(head).toBe(await anvil.head());
      expect(proxy.requests).toBe(1);
      expect(proxy.calls().map((call) => call.method)).toEqual(['eth_chainId', 'eth_blockNumber']);
      expect(proxy.calls('eth_chainId')).toHaveLength(1);
    });

    it('answers HTTP 429 with Retry-After: 0, which viem retries until the node answers', async () => {
      proxy.misbehave({ kind: 'status429', method: 'eth_blockNumber', times: 2 });
      expect(await client({ retryCount: 3 }).getBlockNumber({ cacheTime: 0 })).toBe(await anvil.head());
      expect(proxy.calls('eth_blockNumber')).toHaveLength(3);
    });

    it('drops connections, which viem retries', async () => {
      proxy.misbehave({ kind: 'drop', times: 1 });
      expect(await client({ retryCount: 1 }).getChainId()).toBe(1);
      expect(proxy.calls('eth_chainId')).toHaveLength(2);
    });

    it('answers eth_chainId with another chain id, alone and inside a batch', async () => {
      proxy.misbehave({ kind: 'wrongChainId', chainId: 137 });
      expect(await client().getChainId()).toBe(137);

      const response = await fetch(proxy.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify([
          { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] },
          { jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] },
        ]),
      });
      const answers = (await response.json()) as { id: number; result: string }[];
      expect(answers.map((answer) => answer.id)).toEqual([1, 2]);
      expect(BigInt(answers[0]!.result)).toBe(await anvil.head());
      expect(answers[1]!.result).toBe('0x89');
    });

    it('fails eth_getLogs over too many blocks as providers do, and only those', async () => {
      await anvil.mine(10);
      const head = await anvil.head();
      const logs = client({ retryCount: 0 });
      proxy.misbehave({ kind: 'rangeTooLarge', maxBlocks: 5 });

      await expect(logs.getLogs({ fromBlock: head - 4n, toBlock: head })).resolves.toEqual([]);
      const wide = logs.getLogs({ fromBlock: 1n, toBlock: head });
      await expect(wide).rejects.toMatchObject({
        code: -32005,
        details: 'query returned more than 10000 results. Try with this block range [0x1, 0x5].',
      });
      await expect(logs.getLogs({ fromBlock: 'earliest', toBlock: 'latest' })).rejects.toMatchObject({
        details: expect.stringContaining('[0x0, 0x4]'),
      });
      const { hash } = await anvil.publicClient.getBlock({ blockNumber: head });
      await expect(logs.getLogs({ blockHash: hash })).resolves.toEqual([]);

      proxy.behave();
      proxy.misbehave({ kind: 'rangeTooLarge', maxBlocks: 5, style: 'plain' });
      await expect(logs.getLogs({ fromBlock: 1n, toBlock: head })).rejects.toMatchObject({
        code: -32000,
        details: 'block range too large',
      });
      proxy.behave();
      proxy.misbehave({ kind: 'rangeTooLarge', maxBlocks: 5, style: 'alchemy' });
      await expect(logs.getLogs({ fromBlock: 1n, toBlock: head })).rejects.toMatchObject({
        code: -32602,
        details: expect.stringContaining('this block range should work: [0x1, 0x5]'),
      });
    });

    it('delays answers past a client timeout, and stops once the rule is spent', async () => {
      proxy.misbehave({ kind: 'delay', ms: 5_000, times: 1 });
      await expect(client({ retryCount: 0, timeout: 100 }).getChainId()).rejects.toBeInstanceOf(TimeoutError);
      expect(await client({ retryCount: 0, timeout: 5_000 }).getChainId()).toBe(1);
    });

    it('answers a chosen JSON-RPC error and HTTP status, and HTTP 502 when the node is gone', async () => {
      proxy.misbehave({ kind: 'error', method: 'eth_getBalance', code: -32000, message: 'header not found' });
      await expect(client({ retryCount: 0 }).getBalance({ address: anvil.accounts[0]!.address })).rejects.toMatchObject(
        { details: 'header not found' },
      );
      proxy.behave();
      proxy.misbehave({ kind: 'status', status: 503, times: 1 });
      const unavailable = await fetch(proxy.url, {
        method: 'POST',
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      });
      expect(unavailable.status).toBe(503);

      const gone = await startAnvil();
      await gone.kill();
      proxy.upstream = gone.url;
      try {
        const response = await fetch(proxy.url, {
          method: 'POST',
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
        });
        expect(response.status).toBe(502);
      } finally {
        proxy.upstream = anvil.url;
      }
    });
  });

  function block(blockNumber: bigint) {
    return anvil.publicClient.getBlock({ blockNumber, includeTransactions: true });
  }
});
