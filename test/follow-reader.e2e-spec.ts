import { type Address, type Hex, toHex } from 'viem';
import { ChainReader, type ReaderOptions } from '../src/modules/follow/rpc/chain-reader';
import { holdingKey, type HoldingKey, type ObservedTransfer } from '../src/modules/follow/rpc/reading';
import { type Anvil, startAnvil } from './support/anvil';
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
});
