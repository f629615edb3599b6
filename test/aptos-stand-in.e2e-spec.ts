import { randomBytes } from 'node:crypto';
import {
  APT_COIN_TYPE,
  APT_METADATA,
  COIN_DEPOSIT,
  COIN_WITHDRAW,
  FA_DEPOSIT,
  FA_METADATA,
  FA_WITHDRAW,
  FUNGIBLE_STORE,
  OBJECT_CORE,
  type ApiErrorJson,
  type BlockJson,
  type LedgerInfoJson,
  type TransactionJson,
  type WriteSetChangeJson,
} from '../src/modules/follow/aptos/aptos-shapes';
import {
  ACCOUNT_RESOURCE,
  AptosStandIn,
  FEE_STATEMENT,
  FIRST_BLOCK_TIME,
  type AptosAsset,
} from './support/aptos-node-stand-in';

/**
 * The Aptos node stand-in (test/support/aptos-node-stand-in.ts) answers in the node API's shapes:
 * ledger info, blocks cut at the page size with the rest from /v1/transactions, transactions with
 * their events and write sets in order, balances as bare integers at a ledger version, resources,
 * and the node's error answers.
 */

const KEY = 'aptos-test-key';
/** More than 2^53: a JSON number would lose the last digits. */
const MINTED = 2n ** 53n + 20n;
const TO_CAROL = 2n ** 53n + 3n;

function randomAddress(): string {
  return `0x${randomBytes(32).toString('hex')}`;
}

describe('the Aptos node stand-in', () => {
  const alice = randomAddress();
  const bob = randomAddress();
  const carol = randomAddress();
  let aptos: AptosStandIn;
  let usd: AptosAsset;
  let coinHash: string;

  const get = (path: string, headers: Record<string, string> = { authorization: `Bearer ${KEY}` }) =>
    fetch(`${aptos.url}${path}`, { headers });
  const json = async <T>(path: string): Promise<T> => {
    const response = await get(path);
    expect(response.status).toBe(200);
    return (await response.json()) as T;
  };
  const failure = async (path: string, status: number): Promise<ApiErrorJson> => {
    const response = await get(path);
    expect(response.status).toBe(status);
    return (await response.json()) as ApiErrorJson;
  };
  const balanceText = async (owner: string, asset: string, version?: bigint): Promise<string> => {
    const at = version === undefined ? '' : `?ledger_version=${version}`;
    const response = await get(`/accounts/${owner}/balance/${encodeURIComponent(asset)}${at}`);
    expect(response.status).toBe(200);
    return response.text();
  };
  const changesAt = (transaction: TransactionJson, address: string, type: string): WriteSetChangeJson[] =>
    (transaction.changes ?? []).filter((change) => change.address === address && change.data?.type === type);

  beforeAll(async () => {
    aptos = await AptosStandIn.start({ apiKey: KEY, pageSize: 4 });
    usd = aptos.createAsset({ name: 'Test Dollar', symbol: 'TUSD', decimals: 6, iconUri: 'https://example.org/t.png' });
    // Block 1 (versions 1-5): two funds and a mint.
    aptos.fund(alice, 1_000_000_000n);
    aptos.fund(bob, 1_000n);
    aptos.mint({ sender: alice, to: alice, asset: usd.address, amount: MINTED });
    aptos.seal();
    // Block 2 (versions 6-10): a two-leg transfer, a burn and a failed transaction.
    aptos.transfer({
      sender: alice,
      legs: [
        { from: alice, to: bob, asset: APT_METADATA, amount: 5_000n },
        { from: alice, to: carol, asset: usd.address, amount: TO_CAROL },
      ],
    });
    aptos.burn({ sender: alice, from: alice, asset: usd.address, amount: 1n });
    aptos.fail({ sender: bob });
    aptos.seal();
    // Block 3 (versions 11-13): APT moved as a coin, with no ObjectCore in the write set.
    coinHash = aptos.coinTransfer({ sender: bob, from: bob, to: carol, amount: 300n, omitObjectCore: true });
    aptos.seal();
  });

  afterAll(() => aptos?.stop());

  it('answers the ledger info of the last sealed block, with the ledger headers', async () => {
    const response = await get('');
    expect(response.status).toBe(200);
    const info = (await response.json()) as LedgerInfoJson;
    expect(info).toMatchObject({
      chain_id: 4,
      epoch: '1',
      ledger_version: '13',
      oldest_ledger_version: '0',
      ledger_timestamp: (FIRST_BLOCK_TIME + 2_000_000n).toString(),
      node_role: 'full_node',
      oldest_block_height: '0',
      block_height: '3',
    });
    expect(response.headers.get('x-aptos-ledger-version')).toBe('13');
    expect(response.headers.get('x-aptos-chain-id')).toBe('4');
    expect(aptos.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  });

  it('cuts a block at the page size; /v1/transactions gives the rest, in version order', async () => {
    const block = await json<BlockJson>('/blocks/by_height/2?with_transactions=true');
    expect(block).toMatchObject({
      block_height: '2',
      first_version: '6',
      last_version: '10',
      block_timestamp: (FIRST_BLOCK_TIME + 1_000_000n).toString(),
    });
    expect(block.block_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(block.transactions).toHaveLength(4);
    // The rest of the block: from the version after the last one given, up to last_version.
    const start = Number(block.first_version) + block.transactions!.length;
    const limit = Number(block.last_version) - start + 1;
    const rest = await json<TransactionJson[]>(`/transactions?start=${start}&limit=${limit}`);
    const transactions = [...block.transactions!, ...rest];
    expect(transactions.map((tx) => tx.version)).toEqual(['6', '7', '8', '9', '10']);
    expect(transactions.map((tx) => tx.type)).toEqual([
      'block_metadata_transaction',
      'user_transaction',
      'user_transaction',
      'user_transaction',
      'state_checkpoint_transaction',
    ]);
    expect(transactions).toEqual(aptos.transactionsOf(2));
    for (const tx of transactions) {
      expect(tx.hash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(tx.timestamp).toBe(block.block_timestamp);
    }
    const [metadata, transfer, burn, failed, checkpoint] = transactions as [
      TransactionJson,
      TransactionJson,
      TransactionJson,
      TransactionJson,
      TransactionJson,
    ];
    expect(metadata.success).toBe(true);
    expect(metadata.events!.map((event) => event.type)).toEqual(['0x1::block::NewBlockEvent']);
    expect(metadata.changes!.length).toBeGreaterThan(0);
    expect(checkpoint.events).toBeUndefined();
    expect(checkpoint.changes).toEqual([]);

    const aliceApt = aptos.storeOf(alice, APT_METADATA);
    const aliceUsd = aptos.storeOf(alice, usd.address);
    expect(transfer).toMatchObject({
      success: true,
      vm_status: 'Executed successfully',
      sender: alice,
      sequence_number: '1',
      gas_used: '1',
      gas_unit_price: '100',
      payload: { type: 'entry_function_payload', function: '0x1::primary_fungible_store::transfer' },
    });
    expect(transfer.events!.map((event) => [event.type, event.data])).toEqual([
      [FA_WITHDRAW, { store: aliceApt, amount: '5000' }],
      [FA_DEPOSIT, { store: aptos.storeOf(bob, APT_METADATA), amount: '5000' }],
      [FA_WITHDRAW, { store: aliceUsd, amount: TO_CAROL.toString() }],
      [FA_DEPOSIT, { store: aptos.storeOf(carol, usd.address), amount: TO_CAROL.toString() }],
      [FEE_STATEMENT, expect.objectContaining({ total_charge_gas_units: '1' })],
    ]);
    for (const event of transfer.events!) {
      expect(event.guid).toEqual({ creation_number: '0', account_address: '0x0' });
      expect(event.sequence_number).toBe('0');
    }
    // The fee left alice's APT store with no event: the write set has its balance after both.
    expect(changesAt(transfer, aliceApt, FUNGIBLE_STORE)[0]!.data!.data).toEqual({
      metadata: { inner: '0xa' },
      balance: (1_000_000_000n - 100n - 5_000n - 100n).toString(),
      frozen: false,
    });
    expect(changesAt(transfer, aptos.storeOf(carol, usd.address), FUNGIBLE_STORE)[0]!.data!.data).toEqual({
      metadata: { inner: usd.address },
      balance: TO_CAROL.toString(),
      frozen: false,
    });
    expect(changesAt(transfer, aliceUsd, OBJECT_CORE)[0]!.data!.data).toMatchObject({ owner: alice });
    expect(changesAt(transfer, alice, ACCOUNT_RESOURCE)[0]!.data!.data).toMatchObject({ sequence_number: '2' });
    for (const change of transfer.changes!) expect(change.state_key_hash).toMatch(/^0x[0-9a-f]{64}$/);

    expect(burn.events!.map((event) => [event.type, event.data])).toEqual([
      [FA_WITHDRAW, { store: aliceUsd, amount: '1' }],
      [FEE_STATEMENT, expect.any(Object)],
    ]);
    expect(failed).toMatchObject({ success: false, sender: bob, sequence_number: '0' });
    expect(failed.vm_status).toMatch(/^Move abort/);
    expect(failed.events!.map((event) => event.type)).toEqual([FEE_STATEMENT]);
    expect(changesAt(failed, aptos.storeOf(bob, APT_METADATA), FUNGIBLE_STORE)[0]!.data!.data).toMatchObject({
      balance: (1_000n + 5_000n - 100n).toString(),
    });
  });

  it('keeps versions continuous across blocks, from the genesis transaction at version 0', async () => {
    const genesis = await json<BlockJson>('/blocks/by_height/0?with_transactions=true');
    expect(genesis).toMatchObject({ block_height: '0', first_version: '0', last_version: '0' });
    expect(genesis.transactions!.map((tx) => tx.type)).toEqual(['genesis_transaction']);
    let next = 0n;
    let time = -1n;
    for (let height = 0; height <= 3; height++) {
      const block = await json<BlockJson>(`/blocks/by_height/${height}?with_transactions=false`);
      expect(block.transactions).toBeUndefined();
      expect(BigInt(block.first_version)).toBe(next);
      expect(BigInt(block.block_timestamp)).toBeGreaterThan(time);
      next = BigInt(block.last_version) + 1n;
      time = BigInt(block.block_timestamp);
    }
    const all = await json<TransactionJson[]>('/transactions?start=0&limit=100');
    expect(all.map((tx) => tx.version)).toEqual(Array.from({ length: 14 }, (_, index) => String(index)));
    expect((await json<BlockJson>('/blocks/by_version/7')).block_height).toBe('2');
  });

  it('shows a coin transfer with the coin events and, told so, no ObjectCore writes', async () => {
    const [, coin] = aptos.transactionsOf(3) as [TransactionJson, TransactionJson];
    expect(coin.hash).toBe(coinHash);
    expect(coin.events!.map((event) => [event.type, event.data])).toEqual([
      [COIN_WITHDRAW, { account: bob, amount: '300', coin_type: APT_COIN_TYPE }],
      [COIN_DEPOSIT, { account: carol, amount: '300', coin_type: APT_COIN_TYPE }],
      [FEE_STATEMENT, expect.any(Object)],
    ]);
    expect(coin.changes!.filter((change) => change.data?.type === OBJECT_CORE)).toEqual([]);
    expect(coin.changes!.filter((change) => change.data?.type === FUNGIBLE_STORE)).toHaveLength(2);
    // The owner is still there to read.
    const store = aptos.storeOf(carol, APT_METADATA);
    const core = await json<{ type: string; data: { owner: string } }>(`/accounts/${store}/resource/${OBJECT_CORE}`);
    expect(core).toMatchObject({ type: OBJECT_CORE, data: { owner: carol, allow_ungated_transfer: false } });
  });

  it('answers balances at a ledger version as bare integers, exact beyond 2^53', async () => {
    expect(await balanceText(alice, usd.address, 5n)).toBe(MINTED.toString());
    expect(await balanceText(alice, usd.address)).toBe((MINTED - TO_CAROL - 1n).toString());
    expect(await balanceText(carol, usd.address, 5n)).toBe('0');
    expect(await balanceText(carol, usd.address, 7n)).toBe(TO_CAROL.toString());
    const shortAlice = alice.replace(/^0x0+/, '0x');
    expect(await balanceText(shortAlice, usd.address.toUpperCase().replace('0X', '0x'), 13n)).toBe(
      (MINTED - TO_CAROL - 1n).toString(),
    );
    const aliceApt = (1_000_000_000n - 100n - 5_000n - 100n - 100n).toString();
    expect(await balanceText(alice, APT_COIN_TYPE)).toBe(aliceApt);
    expect(await balanceText(alice, '0xa')).toBe(aliceApt);
    expect(await balanceText(alice, APT_METADATA)).toBe(aliceApt);
    expect(await balanceText(alice, APT_COIN_TYPE, 5n)).toBe((1_000_000_000n - 100n).toString());
    expect(await balanceText(bob, APT_COIN_TYPE, 13n)).toBe((6_000n - 100n - 300n - 100n).toString());
    expect(aptos.balance(bob, APT_METADATA)).toBe(5_500n);
    expect(await balanceText(carol, '0x1::other_coin::Other')).toBe('0');
    expect(await balanceText(randomAddress(), APT_COIN_TYPE)).toBe('0');
    const response = await get(`/accounts/${alice}/balance/0xa`);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    expect(await failure(`/accounts/${alice}/balance/0xa?ledger_version=14`, 404)).toEqual({
      message: expect.any(String),
      error_code: 'version_not_found',
      vm_error_code: null,
    });
  });

  it('answers the resources of stores and metadata at a ledger version', async () => {
    const store = aptos.storeOf(carol, usd.address);
    const type = encodeURIComponent(FUNGIBLE_STORE);
    expect(await json(`/accounts/${store}/resource/${type}?ledger_version=7`)).toEqual({
      type: FUNGIBLE_STORE,
      data: { metadata: { inner: usd.address }, balance: TO_CAROL.toString(), frozen: false },
    });
    expect(await json(`/accounts/${store}/resource/${encodeURIComponent(OBJECT_CORE)}`)).toEqual({
      type: OBJECT_CORE,
      data: {
        allow_ungated_transfer: false,
        guid_creation_num: '1125899906842625',
        owner: carol,
        transfer_events: { counter: '0', guid: { id: { addr: store, creation_num: '1125899906842624' } } },
      },
    });
    expect(await failure(`/accounts/${store}/resource/${type}?ledger_version=6`, 404)).toMatchObject({
      error_code: 'resource_not_found',
      vm_error_code: null,
    });
    expect(await json(`/accounts/${usd.address}/resource/${encodeURIComponent(FA_METADATA)}`)).toEqual({
      type: FA_METADATA,
      data: {
        name: 'Test Dollar',
        symbol: 'TUSD',
        decimals: 6,
        icon_uri: 'https://example.org/t.png',
        project_uri: '',
      },
    });
    expect(await json(`/accounts/0xa/resource/${encodeURIComponent(FA_METADATA)}`)).toMatchObject({
      data: { name: 'Aptos Coin', symbol: 'APT', decimals: 8 },
    });
    expect(await json(`/accounts/${alice}/resource/${encodeURIComponent(ACCOUNT_RESOURCE)}`)).toMatchObject({
      data: { sequence_number: '3' },
    });
    expect(
      await failure(`/accounts/${alice}/resource/${encodeURIComponent('0x1::coin::CoinInfo')}`, 404),
    ).toMatchObject({
      error_code: 'resource_not_found',
    });
  });

  it("answers the node's errors", async () => {
    expect(await failure('/blocks/by_height/4', 404)).toEqual({
      message: expect.any(String),
      error_code: 'block_not_found',
      vm_error_code: null,
    });
    expect(await failure('/transactions?start=14', 400)).toMatchObject({ error_code: 'invalid_input' });
    expect(await failure('/transactions?limit=0', 400)).toMatchObject({ error_code: 'invalid_input' });
    expect(await json<TransactionJson[]>('/transactions?start=0&limit=1000')).toHaveLength(14);
    expect(await failure('/accounts/not-an-address/balance/0xa', 400)).toMatchObject({ error_code: 'invalid_input' });
  });

  it('refuses an operation that would make a balance negative, and records nothing', () => {
    expect(() =>
      aptos.transfer({ sender: carol, legs: [{ from: carol, to: bob, asset: usd.address, amount: TO_CAROL + 1n }] }),
    ).toThrow();
    expect(() => aptos.burn({ sender: alice, from: alice, asset: usd.address, amount: MINTED })).toThrow();
    expect(aptos.balance(alice, usd.address)).toBe(MINTED - TO_CAROL - 1n);
    expect(aptos.balance(carol, usd.address)).toBe(TO_CAROL);
  });

  it('asks for the API key, fails requests when told and logs every call', async () => {
    const unauthorized = await get('', {});
    expect(unauthorized.status).toBe(401);
    expect(await unauthorized.json()).toEqual({
      message: expect.any(String),
      error_code: expect.any(String),
      vm_error_code: null,
    });
    expect((await get('', { authorization: 'Bearer wrong' })).status).toBe(401);
    const before = aptos.calls.length;
    aptos.failNext(2, 503);
    expect((await get('/blocks/by_height/1')).status).toBe(503);
    expect((await get('/blocks/by_height/1')).status).toBe(503);
    expect((await get('/blocks/by_height/1')).status).toBe(200);
    expect(aptos.calls.slice(before)).toEqual([
      { path: '/v1/blocks/by_height/1', query: {}, authorization: `Bearer ${KEY}`, status: 503 },
      { path: '/v1/blocks/by_height/1', query: {}, authorization: `Bearer ${KEY}`, status: 503 },
      { path: '/v1/blocks/by_height/1', query: {}, authorization: `Bearer ${KEY}`, status: 200 },
    ]);
  });
});
