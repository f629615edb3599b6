import { Address, beginCell, toNano, type Transaction } from '@ton/core';
import type { SandboxContract, TreasuryContract } from '@ton/sandbox';
import { findDrift } from '../src/modules/aggregates/aggregates.service';
import { Db } from '../src/database/db.service';
import { eventually, FollowClient, HoldingRow, SyncRow, TransactionRow } from './support/follow-client';
import { FollowerProcess, killedMidCatchUp, writerFailsOver } from './support/follower-process';
import { onChainContent, TestJetton } from './support/ton-jetton';
import { TonStandIn } from './support/toncenter-stand-in';
import { DATABASES, DatabaseKind, freshDatabase, startTestApp, TestApp } from './support/test-app';
import { expectAnnouncedOnce, hook, WebhookClient, WebhookReceiver } from './support/webhook-receiver';

/**
 * The TON follower (contract §16) against real TVM executions: `@ton/sandbox` runs the wallets and
 * chaintags' own TEP-74 Jetton (test/support/ton-jetton/), and test/support/toncenter-stand-in.ts
 * serves the transactions over toncenter's API v2 in masterchain and shard blocks. Read through the
 * API, on both databases. Every wait polls a condition.
 */

const API_KEY = 'stand-in-secret-key-7f3a';

function followEnv(ton: TonStandIn, extra: Record<string, string> = {}): Record<string, string> {
  return {
    FOLLOW_INTERVAL_MS: '100',
    RPC_URL_TON: `${ton.apiUrl}/?api_key=${API_KEY}`,
    NETWORK_TON: 'localnet',
    ...extra,
  };
}

const raw = (address: Address): string => address.toRawString();

class TonClient extends FollowClient {
  async sync(): Promise<SyncRow> {
    return (await this.get<SyncRow[]>('/v2/sync')).find((row) => row.chain === 'ton')!;
  }

  /** Waits until the follower has committed the stand-in's latest block and has no history left to read. */
  atHead(ton: TonStandIn): Promise<SyncRow> {
    return eventually('the TON follower to reach the head', async () => {
      const row = await this.sync();
      return row.status === 'synced' && row.indexed_block === String(ton.head) ? row : undefined;
    });
  }

  list(address: Address): Promise<TransactionRow[]> {
    return this.everyTransaction(`chain=ton&address=${raw(address)}`);
  }

  async holding(address: Address, token = '0'): Promise<string | undefined> {
    const rows = await this.get<HoldingRow[]>(`/v2/token-holdings?chain=ton&address=${raw(address)}&per_page=100`);
    return rows.find((row) => row.token_address === token)?.balance;
  }
}

async function tonBalance(ton: TonStandIn, address: Address): Promise<string> {
  return (await ton.blockchain.getContract(address)).balance.toString();
}

describe.each(DATABASES)('following TON through a toncenter API, on %s', (kind: DatabaseKind) => {
  let ton: TonStandIn;
  let db: { url: string; drop: () => Promise<void> };
  let t: TestApp;
  let api: TonClient;
  let alice: SandboxContract<TreasuryContract>; // tracked
  let bob: SandboxContract<TreasuryContract>; // tracked
  let carol: SandboxContract<TreasuryContract>; // not tracked; the Jetton's admin
  let jetton: TestJetton;
  let receiver: WebhookReceiver;

  const start = async (): Promise<void> => {
    t = await startTestApp({
      databaseUrl: db.url,
      env: followEnv(ton, { WEBHOOK_ALLOW_PRIVATE_URLS: 'on', WEBHOOK_RETRY_SECONDS: '1,1,1' }),
    });
    api = new TonClient(t);
  };

  const expectNoDrift = async (): Promise<void> => {
    expect(await findDrift(t.app.get(Db))).toEqual([]);
  };

  beforeAll(async () => {
    ton = await TonStandIn.start({ apiKey: API_KEY });
    alice = await ton.blockchain.treasury('alice');
    bob = await ton.blockchain.treasury('bob');
    carol = await ton.blockchain.treasury('carol');
    jetton = await TestJetton.deploy(
      ton,
      carol,
      onChainContent({ name: 'Stand-in Gram', symbol: 'SGRM', decimals: '6' }),
    );
    await jetton.mint(carol.address, 1_000_000_000n);
    ton.seal();
    [db, receiver] = await Promise.all([freshDatabase(kind), WebhookReceiver.start()]);
    await start();
    await api.tag('ton_wallets', [raw(alice.address), raw(bob.address)]);
    await api.atHead(ton);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    await db?.drop();
    await ton?.close();
  });

  it('lists ton in /v2/sync, synced at the head with no confirmations, and never shows the API key', async () => {
    const row = await api.sync();
    expect(row).toMatchObject({
      status: 'synced',
      head_block: String(ton.head),
      indexed_block: String(ton.head),
      confirmations: 0,
      error: null,
    });
    expect(JSON.stringify(await api.get<SyncRow[]>('/v2/sync'))).not.toContain(API_KEY);
    // The key travelled as a header to every call, never in a URL.
    expect(ton.calls.length).toBeGreaterThan(0);
    expect(ton.calls.every((call) => call.apiKey === API_KEY && !call.keyInUrl)).toBe(true);
  });

  it('records Toncoin in and out of a tracked wallet once each, with exact balances', async () => {
    const [received] = ton.record(await carol.send({ to: alice.address, value: toNano('5'), bounce: false }));
    ton.seal();
    const [sent] = ton.record(
      await alice.send({
        to: carol.address,
        value: toNano('2'),
        bounce: false,
        body: beginCell().storeUint(0, 32).storeStringTail('rent').endCell(),
      }),
    );
    const [between] = ton.record(await alice.send({ to: bob.address, value: toNano('1'), bounce: false }));
    ton.seal({ shardBlocks: 2 });
    await api.atHead(ton);

    const hash = (tx: { hash: () => Buffer }) => tx.hash().toString('hex');
    const rows = new Map((await api.list(alice.address)).map((row) => [row.id, row]));
    // carol's wallet sent the 5 TON: alice's side names the message by carol's transaction that sent it.
    const aliceIn = [...rows.values()].find(
      (row) => row.from_address === raw(carol.address) && row.value === '5000000000',
    );
    expect(aliceIn).toMatchObject({ token_address: '0', to_address: raw(alice.address), chain: 'ton' });
    expect(aliceIn!.id).toBe(`ton:${hash(received!)}:0`);
    expect(aliceIn!.tx_hash).toBe(hash(received!));
    expect(rows.get(`ton:${hash(sent!)}:0`)).toMatchObject({
      token_address: '0',
      from_address: raw(alice.address),
      to_address: raw(carol.address),
      value: '2000000000',
      tx_hash: hash(sent!),
    });
    // Between two tracked wallets: recorded once, by the sender's transaction.
    const toBob = (await api.list(bob.address)).filter((row) => row.value === '1000000000');
    expect(toBob.map((row) => row.id)).toEqual([`ton:${hash(between!)}:0`]);
    expect(await api.holding(alice.address)).toBe(await tonBalance(ton, alice.address));
    expect(await api.holding(bob.address)).toBe(await tonBalance(ton, bob.address));
    await expectNoDrift();
  });

  it('finds a Jetton sent with a notification through its owner, discovers the token, and follows the wallet', async () => {
    await jetton.transfer(carol, alice.address, 250_000n, { forwardTon: toNano('0.01') });
    ton.seal();
    await api.atHead(ton);
    const master = raw(jetton.master);
    const moved = (await api.list(alice.address)).filter((row) => row.token_address === master);
    expect(moved).toHaveLength(1);
    expect(moved[0]).toMatchObject({
      from_address: raw(carol.address),
      to_address: raw(alice.address),
      value: '250000',
    });
    expect(await api.holding(alice.address, master)).toBe(String(await jetton.balanceOf(alice.address)));
    expect(await api.holding(alice.address, master)).toBe('250000');

    const tokens =
      await api.get<{ id: string; name: string; symbol: string; deployments: { decimals: number }[] }[]>(
        '/v2/tokens?per_page=100',
      );
    const token = tokens.find((entry) => entry.id === `ton-${master.replace(':', '-')}`);
    expect(token).toMatchObject({ name: 'Stand-in Gram', symbol: 'SGRM' });
    expect(token!.deployments[0]).toMatchObject({ decimals: 6 });
  });

  it('finds a Jetton sent without a notification through the owner’s Jetton wallet', async () => {
    // forward_ton_amount 0: bob's wallet contract is not told.
    const transactions = await jetton.transfer(carol, bob.address, 40_000n);
    ton.seal();
    await api.atHead(ton);
    const master = raw(jetton.master);
    const moved = (await api.list(bob.address)).filter((row) => row.token_address === master);
    expect(moved).toHaveLength(1);
    expect(moved[0]).toMatchObject({ from_address: raw(carol.address), to_address: raw(bob.address), value: '40000' });
    // Found through bob's Jetton wallet (bob's own wallet had no transaction), named by carol's
    // Jetton wallet's transaction that sent the internal_transfer.
    const bobWallet = await jetton.walletOf(bob.address);
    const carolWallet = await jetton.walletOf(carol.address);
    const sending = transactions.find((tx) => (tx.inMessage?.info.dest as Address).equals(carolWallet))!;
    const index = [...sending.outMessages.values()].findIndex((out) => (out.info.dest as Address).equals(bobWallet));
    expect(moved[0]!.id).toBe(`ton:${sending.hash().toString('hex')}:${index}`);
    expect(moved[0]!.tx_hash).toBe(sending.hash().toString('hex'));
    expect(transactions.some((tx) => (tx.inMessage?.info.dest as Address).equals(bob.address))).toBe(false);
    expect(await api.holding(bob.address, master)).toBe('40000');
  });

  it('records a Jetton transfer between two tracked owners once, and not a failed one; its bounce comes back as Toncoin', async () => {
    const master = raw(jetton.master);
    await jetton.transfer(alice, bob.address, 10_000n, { forwardTon: toNano('0.02') });
    ton.seal();
    // More than alice holds: her Jetton wallet's transaction fails and bounces the Toncoin back.
    const before = new Set((await api.list(alice.address)).map((row) => row.id));
    await jetton.transfer(alice, bob.address, 9_000_000n);
    ton.seal();
    await api.atHead(ton);
    const between = (await api.list(bob.address)).filter(
      (row) => row.token_address === master && row.from_address === raw(alice.address),
    );
    expect(between.map((row) => row.value)).toEqual(['10000']);
    const ofAlice = await api.list(alice.address);
    expect(ofAlice.filter((row) => row.token_address === master && row.value === '9000000')).toEqual([]);
    // The failed order: alice's 0.1 TON to her Jetton wallet, and the bounce back (less the fees).
    const aliceWallet = raw(await jetton.walletOf(alice.address));
    const fresh = ofAlice.filter((row) => !before.has(row.id));
    const out = fresh.find((row) => row.to_address === aliceWallet && row.value === toNano('0.1').toString());
    const back = fresh.find((row) => row.from_address === aliceWallet && row.token_address === '0');
    expect(out).toBeDefined();
    expect(back).toBeDefined();
    expect(BigInt(back!.value)).toBeLessThan(toNano('0.1'));
    expect(BigInt(back!.value)).toBeGreaterThan(0n);
    expect(await api.holding(alice.address, master)).toBe(String(await jetton.balanceOf(alice.address)));
    expect(await api.holding(bob.address, master)).toBe(String(await jetton.balanceOf(bob.address)));
    expect(await api.holding(alice.address)).toBe(await tonBalance(ton, alice.address));
    await expectNoDrift();
  });

  it('shows a bounced Toncoin payment as the two messages that carried it, the balance exact', async () => {
    // The minter refuses an unknown operation: the bounceable payment comes back less the fees.
    const [order] = ton.record(
      await alice.send({
        to: jetton.master,
        value: toNano('1'),
        bounce: true,
        body: beginCell().storeUint(0x1234, 32).storeUint(0, 64).endCell(),
      }),
    );
    ton.seal();
    await api.atHead(ton);
    const rows = await api.list(alice.address);
    const hash = order!.hash().toString('hex');
    expect(rows.find((row) => row.id === `ton:${hash}:0`)).toMatchObject({
      from_address: raw(alice.address),
      to_address: raw(jetton.master),
      value: toNano('1').toString(),
    });
    const back = rows.filter((row) => row.from_address === raw(jetton.master) && row.token_address === '0');
    expect(back).toHaveLength(1);
    expect(BigInt(back[0]!.value)).toBeLessThan(toNano('1'));
    expect(BigInt(back[0]!.value)).toBeGreaterThan(toNano('0.9'));
    expect(await api.holding(alice.address)).toBe(await tonBalance(ton, alice.address));
  });

  it('records a mint as a transfer from 0 and a burn as a transfer to the master', async () => {
    const master = raw(jetton.master);
    await jetton.mint(bob.address, 1_234n);
    await jetton.burn(bob, 5_000n);
    ton.seal();
    await api.atHead(ton);
    const minted = (await api.list(bob.address)).filter(
      (row) => row.token_address === master && row.from_address === '0',
    );
    expect(minted).toMatchObject([{ to_address: raw(bob.address), value: '1234' }]);
    const burnt = (await api.list(bob.address)).filter(
      (row) => row.token_address === master && row.to_address === master,
    );
    expect(burnt.map((row) => row.value)).toEqual(['5000']);
    expect(await api.holding(bob.address, master)).toBe(String(await jetton.balanceOf(bob.address)));
    await expectNoDrift();
  });

  it('follows the basechain through a shard split and a merge, with several blocks per shard in between', async () => {
    const halves: Partial<Record<'left' | 'right', SandboxContract<TreasuryContract>>> = {};
    for (let index = 0; halves.left === undefined || halves.right === undefined; index++) {
      const wallet = await ton.blockchain.treasury(`shard-${index}`);
      halves[(wallet.address.hash[0]! & 0x80) === 0 ? 'left' : 'right'] ??= wallet;
    }
    const left = halves.left;
    const right = halves.right;
    await api.tag('shard_wallets', [raw(left.address), raw(right.address)]);
    await api.atHead(ton);
    const pay = async (to: SandboxContract<TreasuryContract>, nanotons: bigint) =>
      ton.record(await carol.send({ to: to.address, value: nanotons, bounce: false }));
    await pay(left, 1001n);
    await pay(right, 1002n);
    ton.seal({ split: true });
    await pay(left, 1003n);
    await pay(right, 1004n);
    await pay(left, 1005n);
    await pay(right, 1006n);
    ton.seal({ shardBlocks: 2 }); // each half makes two blocks; the masterchain block names the second
    await pay(left, 1007n);
    await pay(right, 1008n);
    ton.seal({ merge: true });
    await pay(left, 1009n);
    ton.seal();
    await api.atHead(ton);
    const values = async (wallet: SandboxContract<TreasuryContract>) =>
      (await api.list(wallet.address)).map((row) => row.value).sort();
    expect(await values(left)).toEqual(['1001', '1003', '1005', '1007', '1009']);
    expect(await values(right)).toEqual(['1002', '1004', '1006', '1008']);
    expect(await api.holding(left.address)).toBe(await tonBalance(ton, left.address));
    await expectNoDrift();
  });

  it('takes in an address tracked later: its balances at once and its history from the backfill', async () => {
    const dave = await ton.blockchain.treasury('dave');
    const [paid] = ton.record(await carol.send({ to: dave.address, value: toNano('3'), bounce: false }));
    await jetton.transfer(carol, dave.address, 7_000n);
    ton.seal();
    ton.record(await dave.send({ to: carol.address, value: toNano('1'), bounce: false }));
    ton.seal();
    await api.atHead(ton);
    await api.tag('tracked_later', [raw(dave.address)]);
    const rows = await eventually('the backfill', async () => {
      const found = await api.list(dave.address);
      const row = await api.sync();
      return found.length >= 3 && row.status === 'synced' ? found : undefined;
    });
    // Named by carol's transaction that sent it, though carol is not tracked.
    expect(rows.find((row) => row.tx_hash === paid!.hash().toString('hex'))).toMatchObject({
      id: `ton:${paid!.hash().toString('hex')}:0`,
      to_address: raw(dave.address),
    });
    expect(rows.filter((row) => row.token_address === '0' && row.from_address === raw(carol.address))).toHaveLength(1);
    expect(rows.filter((row) => row.token_address === '0' && row.to_address === raw(carol.address))).toHaveLength(1);
    expect(rows.filter((row) => row.token_address === raw(jetton.master))).toMatchObject([{ value: '7000' }]);
    expect(await api.holding(dave.address)).toBe(await tonBalance(ton, dave.address));
    expect(await api.holding(dave.address, raw(jetton.master))).toBe('7000');
    await expectNoDrift();
  });

  /** Tags `wallet` and waits until its backfill has read the page that holds `marker` (a payment of that many nanotons to carol). */
  const trackLater = async (wallet: SandboxContract<TreasuryContract>, tag: string, marker: bigint): Promise<void> => {
    await api.tag(tag, [raw(wallet.address)]);
    await eventually(`the backfill of ${tag}`, async () => {
      const found = await api.list(wallet.address);
      const row = await api.sync();
      return row.status === 'synced' && found.some((entry) => entry.value === marker.toString()) ? true : undefined;
    });
    await api.atHead(ton);
  };
  const payCarol = async (wallet: SandboxContract<TreasuryContract>, nanotons: bigint) =>
    ton.record(await wallet.send({ to: carol.address, value: nanotons, bounce: false }));
  const sentBy = (transactions: Transaction[], account: Address): Transaction =>
    transactions.find((tx) => (tx.inMessage?.info.dest as Address | undefined)?.equals(account) === true)!;

  it('records a payment from an address tracked later once, named by its sending transaction', async () => {
    const erin = await ton.blockchain.treasury('erin');
    const value = toNano('0.7') + 11n;
    const [sent] = ton.record(await erin.send({ to: alice.address, value, bounce: false }));
    await payCarol(erin, 1_111n);
    ton.seal();
    await api.atHead(ton);
    const payment = async (address: Address) =>
      (await api.list(address)).filter((row) => row.value === value.toString());
    expect(await payment(alice.address)).toHaveLength(1); // from alice's side
    // alice's side asked the API for erin's sending transaction.
    expect(
      ton.calls.filter(
        (call) =>
          call.method === 'tryLocateSourceTx' &&
          call.params.source === raw(erin.address) &&
          call.params.destination === raw(alice.address),
      ),
    ).toHaveLength(1);

    await trackLater(erin, 'erin_later', 1_111n);
    const ofErin = await payment(erin.address);
    const ofAlice = await payment(alice.address);
    expect(ofErin).toHaveLength(1);
    expect(ofAlice).toEqual(ofErin);
    expect(ofErin[0]).toMatchObject({
      id: `ton:${sent!.hash().toString('hex')}:0`,
      tx_hash: sent!.hash().toString('hex'),
      from_address: raw(erin.address),
      to_address: raw(alice.address),
    });
    await expectNoDrift();
  });

  it('records a payment to an address tracked later once', async () => {
    const frank = await ton.blockchain.treasury('frank');
    const value = toNano('0.3') + 13n;
    const sent = sentBy(ton.record(await alice.send({ to: frank.address, value, bounce: false })), alice.address);
    await payCarol(frank, 2_222n);
    ton.seal();
    await api.atHead(ton);
    await trackLater(frank, 'frank_later', 2_222n);
    const payment = async (address: Address) =>
      (await api.list(address)).filter((row) => row.value === value.toString());
    const ofFrank = await payment(frank.address);
    expect(ofFrank).toHaveLength(1);
    expect(await payment(alice.address)).toEqual(ofFrank);
    expect(ofFrank[0]).toMatchObject({
      id: `ton:${sent.hash().toString('hex')}:0`,
      from_address: raw(alice.address),
      to_address: raw(frank.address),
    });
    await expectNoDrift();
  });

  /** The id of a Jetton transfer: the sending wallet's transaction and the index of its internal_transfer. */
  const jettonId = (transactions: Transaction[], from: Address, to: Address): string => {
    const sending = sentBy(transactions, from);
    const index = [...sending.outMessages.values()].findIndex((out) => (out.info.dest as Address).equals(to));
    return `ton:${sending.hash().toString('hex')}:${index}`;
  };

  it('records a Jetton transfer once when its recipient was tracked first and its sender later', async () => {
    const master = raw(jetton.master);
    const gus = await ton.blockchain.treasury('gus');
    await jetton.mint(gus.address, 5_000n);
    ton.seal();
    const transactions = await jetton.transfer(gus, alice.address, 3_333n);
    await payCarol(gus, 3_333n);
    ton.seal();
    await api.atHead(ton);
    const moved = async (address: Address) =>
      (await api.list(address)).filter((row) => row.token_address === master && row.value === '3333');
    expect(await moved(alice.address)).toHaveLength(1); // from alice's Jetton wallet

    await trackLater(gus, 'gus_later', 3_333n);
    const ofGus = await moved(gus.address);
    expect(ofGus).toHaveLength(1);
    expect(await moved(alice.address)).toEqual(ofGus);
    const id = jettonId(transactions, await jetton.walletOf(gus.address), await jetton.walletOf(alice.address));
    expect(ofGus[0]).toMatchObject({ id, from_address: raw(gus.address), to_address: raw(alice.address) });
    expect(await api.holding(gus.address, master)).toBe(String(await jetton.balanceOf(gus.address)));
    await expectNoDrift();
  });

  it('records a Jetton transfer once when its sender was tracked first and its recipient later', async () => {
    const master = raw(jetton.master);
    const hank = await ton.blockchain.treasury('hank');
    const transactions = await jetton.transfer(alice, hank.address, 4_444n);
    await payCarol(hank, 4_444n);
    ton.seal();
    await api.atHead(ton);
    const moved = async (address: Address) =>
      (await api.list(address)).filter((row) => row.token_address === master && row.value === '4444');
    expect(await moved(alice.address)).toHaveLength(1); // from alice's Jetton wallet

    await trackLater(hank, 'hank_later', 4_444n);
    const ofHank = await moved(hank.address);
    expect(ofHank).toHaveLength(1);
    expect(await moved(alice.address)).toEqual(ofHank);
    const id = jettonId(transactions, await jetton.walletOf(alice.address), await jetton.walletOf(hank.address));
    expect(ofHank[0]).toMatchObject({ id, from_address: raw(alice.address), to_address: raw(hank.address) });
    expect(await api.holding(hank.address, master)).toBe('4444');
    await expectNoDrift();
  });

  it('resumes after a restart with no gap and no duplicate', async () => {
    await t.close();
    const [paid] = ton.record(await carol.send({ to: alice.address, value: toNano('0.5'), bounce: false }));
    ton.seal();
    ton.seal();
    await start();
    await api.atHead(ton);
    const rows = await api.list(alice.address);
    expect(
      rows.filter((row) => row.from_address === raw(carol.address) && row.value === toNano('0.5').toString()),
    ).toHaveLength(1);
    expect(new Set(rows.map((row) => row.id)).size).toBe(rows.length);
    expect(paid).toBeDefined();
    await expectNoDrift();
  });

  it('announces each live transfer of tagged wallets to a webhook once, as /v2/transactions shows it, and no history a backfill finds', async () => {
    const master = raw(jetton.master);
    // The later tag exists before the webhook names it; ivy joins it once the webhook listens.
    await api.tag('ton_later', [raw((await ton.blockchain.treasury('ivy_placeholder')).address)]);
    const webhooks = new WebhookClient(t, t.keys.alice);
    const { id: webhook } = await hook(webhooks, receiver, '/ton', {
      tags: ['ton_wallets', 'ton_later'],
      chains: ['ton'],
    });
    const ofTracked = async () => [...(await api.list(alice.address)), ...(await api.list(bob.address))];
    const before = new Set((await ofTracked()).map((row) => row.id));
    const ivy = await ton.blockchain.treasury('ivy');
    // Alice's Jettons of her own, so that the test does not lean on the ones earlier tests gave her.
    await jetton.mint(alice.address, 1_717n);
    const [paid] = ton.record(await alice.send({ to: bob.address, value: toNano('0.25') + 17n, bounce: false }));
    const transactions = await jetton.transfer(alice, bob.address, 1_717n, { forwardTon: toNano('0.01') });
    const [earlier] = ton.record(await carol.send({ to: ivy.address, value: toNano('2'), bounce: false }));
    ton.seal();
    await api.atHead(ton);
    await api.tag('ton_later', [raw(ivy.address)]);
    const backfilled = await eventually('the backfill of ivy', async () => {
      const found = await api.list(ivy.address);
      return found.some((row) => row.tx_hash === earlier!.hash().toString('hex')) &&
        (await api.sync()).status === 'synced'
        ? found
        : undefined;
    });
    const [live] = ton.record(await carol.send({ to: ivy.address, value: toNano('0.4') + 19n, bounce: false }));
    ton.seal();
    await api.atHead(ton);

    // Every row the live blocks recorded for the tagged wallets: the payment, the Jetton transfer
    // and the Toncoin its orders carried; for ivy, the payment after it was tagged only.
    const fresh = new Map((await ofTracked()).filter((row) => !before.has(row.id)).map((row) => [row.id, row]));
    const ofIvy = (await api.list(ivy.address)).filter((row) => !backfilled.some((old) => old.id === row.id));
    expect(ofIvy.map((row) => row.tx_hash)).toEqual([live!.hash().toString('hex')]);
    const hash = paid!.hash().toString('hex');
    expect(fresh.get(`ton:${hash}:0`)).toMatchObject({
      from_address: raw(alice.address),
      to_address: raw(bob.address),
      value: (toNano('0.25') + 17n).toString(),
    });
    const moved = [...fresh.values()].filter(
      (row) => row.token_address === master && row.from_address === raw(alice.address),
    );
    expect(moved).toMatchObject([
      {
        id: jettonId(transactions, await jetton.walletOf(alice.address), await jetton.walletOf(bob.address)),
        from_address: raw(alice.address),
        to_address: raw(bob.address),
        value: '1717',
      },
    ]);

    const expected = [
      ...[...fresh.values()].map((transaction) => ({ transaction, tags: ['ton_wallets'] })),
      ...ofIvy.map((transaction) => ({ transaction, tags: ['ton_later'] })),
    ];
    await expectAnnouncedOnce(webhooks, receiver, { id: webhook, path: '/ton' }, expected);
  });
});

describe.each(DATABASES)('a TON follower process killed mid-catch-up, on %s', (kind: DatabaseKind) => {
  let ton: TonStandIn;
  let db: { url: string; drop: () => Promise<void> };
  let t: TestApp;
  const workers: FollowerProcess[] = [];

  beforeAll(async () => {
    ton = await TonStandIn.start({ apiKey: API_KEY });
    db = await freshDatabase(kind);
    t = await startTestApp({ databaseUrl: db.url });
  });

  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.kill()));
    await t?.close();
    await db?.drop();
    await ton?.close();
  });

  it('resumes where it committed after SIGKILL: every payment once, the kept stats exact, no key in its log', async () => {
    const api = new TonClient(t);
    const payer = await ton.blockchain.treasury('payer');
    const payee = await ton.blockchain.treasury('payee');
    await api.tag('killed', [raw(payee.address)]);
    const hashes: string[] = [];
    for (let index = 0; index < 120; index++) {
      const transactions = ton.record(
        await payer.send({ to: payee.address, value: toNano('0.01') + BigInt(index), bounce: false }),
      );
      // The payment is named by the payer's transaction that sent it (the payer is not tracked).
      const sent = transactions.find((tx) => (tx.inMessage?.info.dest as Address).equals(payer.address))!;
      hashes.push(sent.hash().toString('hex'));
      ton.seal();
    }
    const { victim, survivor } = await killedMidCatchUp({
      databaseUrl: db.url,
      env: { ...followEnv(ton, { FOLLOW_INTERVAL_MS: '50', FOLLOW_LEASE_SECONDS: '2' }), LOG_LEVEL: 'debug' },
      workers,
      indexed: async () => (await api.sync()).indexed_block,
      head: () => ton.head,
      slow: (delayMs) => {
        ton.delayMs = delayMs;
      },
      delayMs: 30,
    });
    const rows = await api.list(payee.address);
    const payments = rows.filter((row) => row.from_address === raw(payer.address));
    expect(payments.map((row) => row.tx_hash).sort()).toEqual([...hashes].sort());
    expect(await findDrift(t.app.get(Db))).toEqual([]);
    expect(victim.log()).not.toContain(API_KEY);
    expect(survivor.log()).not.toContain(API_KEY);
    expect(survivor.log()).toContain('ton');
  });
});

describe('two TON follower processes on one PostgreSQL', () => {
  let ton: TonStandIn;
  let db: { url: string; drop: () => Promise<void> };
  let t: TestApp;
  const workers: FollowerProcess[] = [];

  beforeAll(async () => {
    ton = await TonStandIn.start({ apiKey: API_KEY });
    db = await freshDatabase('postgres');
    t = await startTestApp({ databaseUrl: db.url });
  });

  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.kill()));
    await t?.close();
    await db?.drop();
    await ton?.close();
  });

  it('has one writer, and the standby takes over when the writer dies; every payment recorded once', async () => {
    const api = new TonClient(t);
    const payer = await ton.blockchain.treasury('payer');
    const payee = await ton.blockchain.treasury('payee');
    await api.tag('two_workers', [raw(payee.address)]);
    ton.seal();
    const env = followEnv(ton, { FOLLOW_LEASE_SECONDS: '2' });
    let sent = 0n;
    /** A payment to the tracked payee in a block of its own; answers the payer's transaction that sent it. */
    const pay = async (): Promise<string> => {
      const transactions = ton.record(
        await payer.send({ to: payee.address, value: toNano('0.01') + sent++, bounce: false }),
      );
      ton.seal();
      const sending = transactions.find((tx) => (tx.inMessage?.info.dest as Address).equals(payer.address))!;
      return sending.hash().toString('hex');
    };
    const recorded = async (hash: string) => (await api.list(payee.address)).some((row) => row.tx_hash === hash);

    const paid = await writerFailsOver({
      databaseUrl: db.url,
      chain: 'ton',
      env,
      workers,
      pay,
      recorded,
      beforeKill: 2,
      afterKill: 2,
    });
    const rows = await api.list(payee.address);
    const payments = rows.filter((row) => row.from_address === raw(payer.address));
    expect(payments.map((row) => row.tx_hash).sort()).toEqual([...paid].sort());
    expect(new Set(rows.map((row) => row.id)).size).toBe(rows.length);
    expect(await api.holding(payee.address)).toBe(await tonBalance(ton, payee.address));
    expect(await findDrift(t.app.get(Db))).toEqual([]);
  });
});

describe.each(DATABASES)('a TON API on another network, on %s', (kind: DatabaseKind) => {
  let ton: TonStandIn;
  let db: { url: string; drop: () => Promise<void> };
  let t: TestApp;

  beforeAll(async () => {
    ton = await TonStandIn.start({ apiKey: API_KEY });
    db = await freshDatabase(kind);
    t = await startTestApp({ databaseUrl: db.url, env: followEnv(ton, { NETWORK_TON: 'mainnet' }) });
  });

  afterAll(async () => {
    await t?.close();
    await db?.drop();
    await ton?.close();
  });

  it('writes nothing for a node that is not on mainnet and says why in /v2/sync, without the URL or key', async () => {
    const api = new TonClient(t);
    const someone = await ton.blockchain.treasury('someone');
    const funder = await ton.blockchain.treasury('funder');
    await api.tag('wrong_network', [raw(someone.address)]);
    ton.record(await funder.send({ to: someone.address, value: toNano('1'), bounce: false }));
    ton.seal();
    const row = await eventually('the error', async () => {
      const found = await api.sync();
      return found.status === 'error' ? found : undefined;
    });
    expect(row.error).toMatch(/zero state is not mainnet’s while NETWORK_TON is mainnet/);
    expect(row.error).not.toContain(API_KEY);
    expect(row.error).not.toContain('127.0.0.1');
    expect(row.indexed_block).toBeNull();
    expect(await api.list(someone.address)).toEqual([]);
  });
});
