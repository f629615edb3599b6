import { randomBytes } from 'node:crypto';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import {
  DEFAULT_GAS,
  GAS_BUDGET,
  GAS_PRICE,
  GENESIS_TIME_MS,
  GrpcCode,
  SERVER_NAME,
  SUI_TYPE,
  SYSTEM_ADDRESS,
  SuiStandIn,
  type BalanceChange,
  type Checkpoint,
} from './support/sui-node-stand-in';

/**
 * The Sui node stand-in (test/support/sui-node-stand-in.ts) answers the real `SuiGrpcClient` over
 * gRPC-web: service info, checkpoints with their transactions and balance changes net of gas, the
 * read mask at every depth, balances and their pages, coin metadata, and the node's errors as
 * `RpcError`s with the right code.
 */

const FUNDED_ALICE = 10n ** 12n;
const FUNDED_BOB = 10n ** 9n;
const MINTED_USD = 1_000_000n;
const MINTED_EUR = 5_000n;
/** Net gas of an operation with `DEFAULT_GAS`: computation + storage - rebate. */
const NET_GAS = 2500n;
/** The sponsored transfer's gas, paid by bob. */
const SPONSORED_GAS = {
  computationCost: 3000n,
  storageCost: 1000n,
  storageRebate: 1500n,
  nonRefundableStorageFee: 15n,
};
const SPONSORED_NET = 2500n;

/** Every path a follower reads. */
const FOLLOWER_MASK = [
  'sequence_number',
  'digest',
  'summary.timestamp',
  'summary.previous_digest',
  'transactions.digest',
  'transactions.transaction.sender',
  'transactions.transaction.gas_payment',
  'transactions.effects.status',
  'transactions.effects.gas_used',
  'transactions.balance_changes',
];

function randomAddress(): string {
  return `0x${randomBytes(32).toString('hex')}`;
}

function change(address: string, coinType: string, amount: bigint): BalanceChange {
  return { address, coinType, amount: amount.toString() };
}

function bySequence(sequenceNumber: bigint | number) {
  return { oneofKind: 'sequenceNumber' as const, sequenceNumber: BigInt(sequenceNumber) };
}

function seconds(sequence: number): bigint {
  return BigInt(GENESIS_TIME_MS / 1000 + sequence);
}

describe('the Sui node stand-in', () => {
  const alice = randomAddress();
  const bob = randomAddress();
  const carol = randomAddress();
  const dave = randomAddress();
  let sui: SuiStandIn;
  let client: SuiGrpcClient;
  let usd: string;
  let eur: string;
  const digests: Record<string, string> = {};

  const checkpoint = async (sequence: number, paths?: string[]): Promise<Checkpoint> => {
    const { checkpoint: found } = await client.ledgerService.getCheckpoint({
      checkpointId: bySequence(sequence),
      readMask: paths === undefined ? undefined : { paths },
    }).response;
    expect(found).toBeDefined();
    return found!;
  };

  beforeAll(async () => {
    sui = await SuiStandIn.start();
    client = new SuiGrpcClient({ network: 'localnet', baseUrl: sui.url });
    usd = sui.createCoin({
      name: 'Test Dollar',
      symbol: 'TUSD',
      decimals: 6,
      description: 'A dollar for tests',
      iconUrl: 'https://example.org/tusd.png',
    });
    eur = sui.createCoin({ name: 'Test Euro', symbol: 'TEUR', decimals: 2 });
    // Checkpoint 1: two funds and two mints (4 transactions).
    digests.fundAlice = sui.fund(alice, FUNDED_ALICE);
    digests.fundBob = sui.fund(bob, FUNDED_BOB);
    sui.mint({ sender: alice, to: alice, coinType: usd, amount: MINTED_USD });
    sui.mint({ sender: alice, to: alice, coinType: eur, amount: MINTED_EUR });
    sui.seal();
    // Checkpoint 2: a transfer, a two-leg sponsored transfer, a mint, a burn and a failure.
    digests.transfer = sui.transfer({
      sender: alice,
      legs: [{ from: alice, to: bob, coinType: SUI_TYPE, amount: 1000 }],
    });
    digests.twoLegs = sui.transfer({
      sender: alice,
      gasOwner: bob,
      gas: SPONSORED_GAS,
      legs: [
        { from: alice, to: carol, coinType: usd, amount: 500n },
        { from: alice, to: bob, coinType: '0x2::sui::SUI', amount: 200n },
      ],
    });
    digests.mint = sui.mint({ sender: alice, to: carol, coinType: usd, amount: 700n });
    digests.burn = sui.burn({ sender: alice, from: alice, coinType: usd, amount: 100n });
    digests.fail = sui.fail({ sender: bob });
    sui.seal();
    // Checkpoints 3 and 4: empty.
    sui.sealEmpty(2);
  });

  afterAll(async () => {
    await sui.stop();
  });

  it('answers GetServiceInfo with the chain, its height and the x-sui headers', async () => {
    const call = client.ledgerService.getServiceInfo({});
    const info = await call.response;
    const genesis = await checkpoint(0);
    expect(info).toEqual({
      chainId: genesis.digest,
      chain: 'localnet',
      epoch: 0n,
      checkpointHeight: 4n,
      timestamp: { seconds: seconds(4), nanos: 0 },
      lowestAvailableCheckpoint: 0n,
      lowestAvailableCheckpointObjects: 0n,
      server: SERVER_NAME,
    });
    expect(sui.chainId).toBe(genesis.digest);
    expect(sui.checkpoint()).toBe(4);
    const headers = await call.headers;
    expect(headers).toMatchObject({
      'x-sui-chain-id': genesis.digest,
      'x-sui-chain': 'localnet',
      'x-sui-checkpoint-height': '4',
      'x-sui-lowest-available-checkpoint': '0',
      'x-sui-timestamp-ms': String(GENESIS_TIME_MS + 4000),
    });
  });

  it('serves a checkpoint with its transfers, mint, burn and failure, balance changes net of gas', async () => {
    const found = await checkpoint(2, FOLLOWER_MASK);
    const previous = await checkpoint(1, ['digest', 'summary']);
    expect(found.sequenceNumber).toBe(2n);
    expect(found.digest).toMatch(/^[1-9A-HJ-NP-Za-km-z]{43,44}$/);
    expect(found.summary).toEqual({
      previousDigest: previous.digest,
      timestamp: { seconds: seconds(2), nanos: 0 },
      commitments: [],
    });
    expect(previous.summary).toMatchObject({ sequenceNumber: 1n, epoch: 0n, totalNetworkTransactions: 4n });
    const transactions = found.transactions;
    expect(transactions.map((transaction) => transaction.digest)).toEqual([
      digests.transfer,
      digests.twoLegs,
      digests.mint,
      digests.burn,
      digests.fail,
    ]);
    const [transfer, twoLegs, mint, burn, fail] = transactions;
    const payment = (owner: string) => ({ owner, objects: [], price: GAS_PRICE, budget: GAS_BUDGET });
    expect(transfer!.transaction).toEqual({ sender: alice, gasPayment: payment(alice) });
    expect(transfer!.effects).toEqual({
      status: { success: true },
      gasUsed: DEFAULT_GAS,
      dependencies: [],
      changedObjects: [],
      unchangedConsensusObjects: [],
      unchangedLoadedRuntimeObjects: [],
    });
    expect(transfer!.balanceChanges).toEqual([change(alice, SUI_TYPE, -1000n - NET_GAS), change(bob, SUI_TYPE, 1000n)]);
    // Sponsored: bob pays the gas, which nets against the 200 MIST he receives.
    expect(twoLegs!.transaction).toEqual({ sender: alice, gasPayment: payment(bob) });
    expect(twoLegs!.effects!.gasUsed).toEqual(SPONSORED_GAS);
    expect(twoLegs!.balanceChanges).toEqual([
      change(alice, usd, -500n),
      change(carol, usd, 500n),
      change(alice, SUI_TYPE, -200n),
      change(bob, SUI_TYPE, 200n - SPONSORED_NET),
    ]);
    expect(mint!.balanceChanges).toEqual([change(carol, usd, 700n), change(alice, SUI_TYPE, -NET_GAS)]);
    expect(burn!.balanceChanges).toEqual([change(alice, usd, -100n), change(alice, SUI_TYPE, -NET_GAS)]);
    expect(fail!.transaction!.sender).toBe(bob);
    expect(fail!.effects!.status).toMatchObject({
      success: false,
      error: { description: expect.stringContaining('MoveAbort'), errorDetails: { oneofKind: 'abort' } },
    });
    expect(fail!.balanceChanges).toEqual([change(bob, SUI_TYPE, -NET_GAS)]);
    // The same transactions as the stand-in keeps them.
    expect(sui.transactionsOf(2).map((transaction) => transaction.balanceChanges)).toEqual(
      transactions.map((transaction) => transaction.balanceChanges),
    );
  });

  it('serves fund transactions from the system address with no gas, and every field under a whole path', async () => {
    const found = await checkpoint(1, ['transactions', 'summary']);
    const [fundAlice] = found.transactions;
    expect(fundAlice).toMatchObject({
      digest: digests.fundAlice,
      checkpoint: 1n,
      timestamp: { seconds: seconds(1), nanos: 0 },
      transaction: { digest: digests.fundAlice, sender: SYSTEM_ADDRESS, gasPayment: { owner: SYSTEM_ADDRESS } },
      effects: {
        transactionDigest: digests.fundAlice,
        status: { success: true },
        gasUsed: { computationCost: 0n, storageCost: 0n, storageRebate: 0n, nonRefundableStorageFee: 0n },
      },
      balanceChanges: [change(alice, SUI_TYPE, FUNDED_ALICE)],
    });
    expect(found.summary).toMatchObject({
      sequenceNumber: 1n,
      epoch: 0n,
      totalNetworkTransactions: 4n,
      timestamp: { seconds: seconds(1), nanos: 0 },
      epochRollingGasCostSummary: { computationCost: 2000n, storageCost: 4000n, storageRebate: 1000n },
    });
    const genesis = await checkpoint(0, ['summary', 'transactions']);
    expect(genesis.summary!.previousDigest).toBeUndefined();
    expect(genesis.summary!.totalNetworkTransactions).toBe(0n);
    expect(genesis.transactions).toEqual([]);
  });

  it('honours the read mask at every depth, with the node default when there is none', async () => {
    const bare = await checkpoint(2);
    expect(bare.sequenceNumber).toBe(2n);
    expect(bare.digest).toBeDefined();
    expect(bare.summary).toBeUndefined();
    expect(bare.transactions).toEqual([]);

    const summaryOnly = await checkpoint(2, ['summary.timestamp']);
    expect(summaryOnly.sequenceNumber).toBeUndefined();
    expect(summaryOnly.digest).toBeUndefined();
    expect(summaryOnly.summary).toEqual({ timestamp: { seconds: seconds(2), nanos: 0 }, commitments: [] });

    const narrow = await checkpoint(2, ['transactions.digest', 'transactions.effects.status']);
    expect(narrow.transactions).toHaveLength(5);
    for (const transaction of narrow.transactions) {
      expect(transaction.digest).toBeDefined();
      expect(transaction.transaction).toBeUndefined();
      expect(transaction.checkpoint).toBeUndefined();
      expect(transaction.timestamp).toBeUndefined();
      expect(transaction.balanceChanges).toEqual([]);
      expect(transaction.effects!.status).toBeDefined();
      expect(transaction.effects!.gasUsed).toBeUndefined();
      expect(transaction.effects!.transactionDigest).toBeUndefined();
    }

    const senders = await checkpoint(2, ['transactions.transaction.sender', 'transactions.balance_changes']);
    expect(senders.transactions[0]).toEqual({
      transaction: { sender: alice },
      signatures: [],
      balanceChanges: [change(alice, SUI_TYPE, -1000n - NET_GAS), change(bob, SUI_TYPE, 1000n)],
    });

    await expect(
      client.ledgerService.getCheckpoint({
        checkpointId: bySequence(2),
        readMask: { paths: ['summary.no_such_field'] },
      }).response,
    ).rejects.toMatchObject({
      name: 'RpcError',
      code: 'INVALID_ARGUMENT',
      message: 'invalid read_mask path: summary.no_such_field',
    });
  });

  it('finds a checkpoint by digest, and the latest when no id is given', async () => {
    const second = await checkpoint(2, ['digest']);
    const byDigest = await client.ledgerService.getCheckpoint({
      checkpointId: { oneofKind: 'digest', digest: second.digest! },
      readMask: { paths: ['sequence_number'] },
    }).response;
    expect(byDigest.checkpoint).toEqual({ sequenceNumber: 2n, transactions: [] });
    const latest = await client.ledgerService.getCheckpoint({ checkpointId: { oneofKind: undefined } }).response;
    expect(latest.checkpoint!.sequenceNumber).toBe(4n);
  });

  it('answers NOT_FOUND for a checkpoint it does not have, as an RpcError', async () => {
    const future = client.ledgerService.getCheckpoint({ checkpointId: bySequence(99) }).response;
    await expect(future).rejects.toMatchObject({
      name: 'RpcError',
      code: 'NOT_FOUND',
      message: 'Checkpoint 99 not found',
    });
    const error = await future.catch((thrown: unknown) => thrown);
    expect((error as Error).constructor.name).toBe('RpcError');
    const unknownDigest = '11111111111111111111111111111111';
    await expect(
      client.ledgerService.getCheckpoint({ checkpointId: { oneofKind: 'digest', digest: unknownDigest } }).response,
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      client.ledgerService.getCheckpoint({ checkpointId: { oneofKind: 'digest', digest: 'not-a-digest' } }).response,
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('answers balances of the latest checkpoint, with coin types in full', async () => {
    const expected = new Map([
      [alice, FUNDED_ALICE - 2n * NET_GAS - (1000n + NET_GAS) - 200n - 2n * NET_GAS],
      [bob, FUNDED_BOB + 1000n + 200n - SPONSORED_NET - NET_GAS],
    ]);
    for (const [owner, balance] of expected) {
      const { balance: answer } = await client.stateService.getBalance({ owner, coinType: '0x2::sui::SUI' }).response;
      expect(answer).toEqual({ coinType: SUI_TYPE, balance });
      expect(sui.balance(owner, SUI_TYPE)).toBe(balance);
      expect(sui.sealedBalance(owner, '0x2::sui::SUI')).toBe(balance);
    }
    const carolUsd = await client.stateService.getBalance({ owner: carol, coinType: usd }).response;
    expect(carolUsd.balance).toEqual({ coinType: usd, balance: 1200n });
    expect(sui.sealedBalance(alice, usd, 1)).toBe(MINTED_USD);
    expect(sui.sealedBalance(alice, usd)).toBe(MINTED_USD - 600n);
    const nothing = await client.stateService.getBalance({ owner: dave, coinType: SUI_TYPE }).response;
    expect(nothing.balance).toEqual({ coinType: SUI_TYPE, balance: 0n });
    await expect(
      client.stateService.getBalance({ owner: 'not-an-address', coinType: SUI_TYPE }).response,
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('lists the non-zero balances sorted by coin type, in pages', async () => {
    const all = [
      { coinType: SUI_TYPE, balance: sui.sealedBalance(alice, SUI_TYPE) },
      { coinType: usd, balance: MINTED_USD - 600n },
      { coinType: eur, balance: MINTED_EUR },
    ].sort((a, b) => (a.coinType < b.coinType ? -1 : 1));
    const whole = await client.stateService.listBalances({ owner: alice }).response;
    expect(whole.balances).toEqual(all);
    expect(whole.nextPageToken).toBeUndefined();

    const first = await client.stateService.listBalances({ owner: alice, pageSize: 2 }).response;
    expect(first.balances).toEqual(all.slice(0, 2));
    expect(first.nextPageToken).toBeDefined();
    const second = await client.stateService.listBalances({ owner: alice, pageSize: 2, pageToken: first.nextPageToken })
      .response;
    expect(second.balances).toEqual(all.slice(2));
    expect(second.nextPageToken).toBeUndefined();

    const empty = await client.stateService.listBalances({ owner: dave }).response;
    expect(empty.balances).toEqual([]);
    await expect(
      client.stateService.listBalances({ owner: bob, pageToken: first.nextPageToken }).response,
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: 'page token owner does not match request owner' });
  });

  it("answers GetCoinInfo with SUI's metadata and the created coins', NOT_FOUND for others", async () => {
    const native = await client.stateService.getCoinInfo({ coinType: '0x2::sui::SUI' }).response;
    expect(native.coinType).toBe(SUI_TYPE);
    expect(native.metadata).toMatchObject({ decimals: 9, name: 'Sui', symbol: 'SUI' });
    const dollar = await client.stateService.getCoinInfo({ coinType: usd }).response;
    expect(usd).toMatch(/^0x[0-9a-f]{64}::tusd::TUSD$/);
    expect(dollar.metadata).toMatchObject({
      decimals: 6,
      name: 'Test Dollar',
      symbol: 'TUSD',
      description: 'A dollar for tests',
      iconUrl: 'https://example.org/tusd.png',
    });
    expect(dollar.treasury!.totalSupply).toBe(MINTED_USD + 700n - 100n);
    const unknown = `${randomAddress()}::nope::NOPE`;
    await expect(client.stateService.getCoinInfo({ coinType: unknown }).response).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: `Coin type ${unknown} not found`,
    });
  });

  it('fails the next requests as told, and answers UNIMPLEMENTED for what it does not serve', async () => {
    sui.failNext(1);
    await expect(client.ledgerService.getServiceInfo({}).response).rejects.toMatchObject({
      name: 'RpcError',
      code: 'UNAVAILABLE',
    });
    sui.failNext(1, 503);
    await expect(client.stateService.getBalance({ owner: alice, coinType: SUI_TYPE }).response).rejects.toMatchObject({
      code: 'UNAVAILABLE',
    });
    expect(sui.calls.at(-1)).toMatchObject({ method: 'GetBalance', code: undefined, httpStatus: 503 });
    sui.failNext(1, GrpcCode.INTERNAL, 'trailer');
    await expect(client.ledgerService.getServiceInfo({}).response).rejects.toMatchObject({ code: 'INTERNAL' });
    await expect(client.ledgerService.getServiceInfo({}).response).resolves.toMatchObject({ checkpointHeight: 4n });
    await expect(client.ledgerService.getEpoch({}).response).rejects.toMatchObject({ code: 'UNIMPLEMENTED' });
  });

  it('logs every call with its decoded request', async () => {
    const before = sui.calls.length;
    sui.delayMs = 50;
    const started = Date.now();
    await client.ledgerService.getCheckpoint({ checkpointId: bySequence(3), readMask: { paths: ['digest'] } }).response;
    sui.delayMs = 0;
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(sui.calls.slice(before)).toEqual([
      {
        service: 'sui.rpc.v2.LedgerService',
        method: 'GetCheckpoint',
        request: expect.objectContaining({ checkpointId: bySequence(3), readMask: { paths: ['digest'] } }),
        code: GrpcCode.OK,
        httpStatus: 200,
      },
    ]);
  });

  it('speaks binary gRPC-web too: a data frame and a trailer frame, or a trailers-only error', async () => {
    const method = client.ledgerService.methods.find((each) => each.name === 'GetCheckpoint')!;
    const post = (sequence: number) => {
      const message = method.I.toBinary({ checkpointId: bySequence(sequence) });
      const body = Buffer.alloc(5 + message.length);
      body.writeUInt32BE(message.length, 1);
      body.set(message, 5);
      return fetch(`${sui.url}/sui.rpc.v2.LedgerService/GetCheckpoint`, {
        method: 'POST',
        headers: { 'content-type': 'application/grpc-web+proto', 'x-grpc-web': '1' },
        body,
      });
    };
    const ok = await post(1);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('application/grpc-web+proto');
    const bytes = Buffer.from(await ok.arrayBuffer());
    expect(bytes[0]).toBe(0x00);
    const length = bytes.readUInt32BE(1);
    const decoded = method.O.fromBinary(bytes.subarray(5, 5 + length)) as { checkpoint: Checkpoint };
    expect(decoded.checkpoint.sequenceNumber).toBe(1n);
    const trailer = bytes.subarray(5 + length);
    expect(trailer[0]).toBe(0x80);
    expect(trailer.subarray(5).toString('latin1')).toBe('grpc-status:0\r\n');

    const missing = await post(99);
    expect(missing.status).toBe(200);
    expect(missing.headers.get('grpc-status')).toBe(String(GrpcCode.NOT_FOUND));
    expect(missing.headers.get('grpc-message')).toBe('Checkpoint 99 not found');
    expect((await missing.arrayBuffer()).byteLength).toBe(0);
  });
});

describe('the Sui node stand-in, changing its ledger', () => {
  let sui: SuiStandIn;
  let client: SuiGrpcClient;

  afterEach(async () => {
    await sui.stop();
  });

  it('answers the sealed state only, and refuses an operation that would overdraw, recording nothing', async () => {
    sui = await SuiStandIn.start();
    client = new SuiGrpcClient({ network: 'localnet', baseUrl: sui.url });
    const alice = randomAddress();
    const bob = randomAddress();
    sui.fund(alice, 10_000n);
    sui.seal();
    sui.transfer({ sender: alice, legs: [{ from: alice, to: bob, coinType: SUI_TYPE, amount: 50n }] });
    expect(sui.balance(alice, SUI_TYPE)).toBe(10_000n - 50n - NET_GAS);
    expect(sui.sealedBalance(alice, SUI_TYPE)).toBe(10_000n);
    const sealed = await client.stateService.getBalance({ owner: alice, coinType: SUI_TYPE }).response;
    expect(sealed.balance!.balance).toBe(10_000n);

    expect(() =>
      sui.transfer({ sender: alice, legs: [{ from: alice, to: bob, coinType: SUI_TYPE, amount: 10_000n }] }),
    ).toThrow(/has 7450 of/);
    expect(() => sui.fail({ sender: bob })).toThrow(/has 50 of/);
    expect(() => sui.mint({ sender: alice, to: alice, coinType: SUI_TYPE, amount: 1n })).toThrow(/fixed/);
    expect(sui.pendingCount()).toBe(1);
    expect(sui.balance(alice, SUI_TYPE)).toBe(10_000n - 50n - NET_GAS);

    expect(sui.seal()).toBe(2);
    expect(sui.transactionsOf(2)).toHaveLength(1);
    const after = await client.stateService.getBalance({ owner: bob, coinType: SUI_TYPE }).response;
    expect(after.balance!.balance).toBe(50n);
  });

  it('prunes old checkpoints: NOT_FOUND below the lowest available one, which GetServiceInfo reports', async () => {
    sui = await SuiStandIn.start();
    client = new SuiGrpcClient({ network: 'localnet', baseUrl: sui.url });
    sui.sealEmpty(5);
    sui.prune(3);
    await expect(client.ledgerService.getCheckpoint({ checkpointId: bySequence(2) }).response).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'Checkpoint 2 not found',
    });
    const third = await client.ledgerService.getCheckpoint({ checkpointId: bySequence(3) }).response;
    expect(third.checkpoint!.sequenceNumber).toBe(3n);
    const info = await client.ledgerService.getServiceInfo({}).response;
    expect(info).toMatchObject({
      checkpointHeight: 5n,
      lowestAvailableCheckpoint: 3n,
      lowestAvailableCheckpointObjects: 3n,
    });
  });

  it('names the chain it is told, with the chain id it is told', async () => {
    const chainId = '4btiuiMPvEENsttpZC7CZ53DruC3MAgfznDbASZ7DR6S';
    sui = await SuiStandIn.start({ chain: 'mainnet', chainId });
    client = new SuiGrpcClient({ network: 'mainnet', baseUrl: sui.url });
    const call = client.ledgerService.getServiceInfo({});
    expect(await call.response).toMatchObject({ chain: 'mainnet', chainId });
    expect(await call.headers).toMatchObject({ 'x-sui-chain': 'mainnet', 'x-sui-chain-id': chainId });
    const genesis = await client.ledgerService.getCheckpoint({ checkpointId: bySequence(0) }).response;
    expect(genesis.checkpoint!.digest).toBe(chainId);
  });
});
