import { NATIVE } from '../reading';
import {
  APT_COIN_TYPE,
  APT_METADATA,
  COIN_DEPOSIT,
  COIN_WITHDRAW,
  FA_DEPOSIT,
  FA_WITHDRAW,
  FUNGIBLE_STORE,
  OBJECT_CORE,
  type EventJson,
  type TransactionJson,
  type WriteSetChangeJson,
} from './aptos-shapes';
import { BURNED, fullAddress, readTransaction, storesMoved, writtenStores, type StoreFacts } from './aptos-transaction';

const full = (digit: string) => `0x${digit.repeat(64)}`;
const ALICE = full('a');
const BOB = full('b');
const CAROL = full('c');
const USDC = full('5');
const AT = { height: 12n, hash: full('e'), time: '2026-01-01T00:00:00.000Z' };
const HASH = full('f');

/** Store addresses: one per owner and asset, as primary stores are. */
const storeOf = (owner: string, asset: string) => `0x${owner.slice(2, 34)}${asset.slice(-32)}`;

function stores(...pairs: [string, string][]): Map<string, StoreFacts> {
  return new Map(pairs.map(([owner, asset]) => [storeOf(owner, asset), { owner, asset }]));
}

function fa(type: typeof FA_DEPOSIT | typeof FA_WITHDRAW, owner: string, asset: string, amount: bigint): EventJson {
  return {
    guid: { creation_number: '0', account_address: '0x0' },
    sequence_number: '0',
    type,
    data: { store: storeOf(owner, asset), amount: amount.toString() },
  };
}

function coin(
  type: typeof COIN_DEPOSIT | typeof COIN_WITHDRAW,
  account: string,
  amount: bigint,
  coinType = APT_COIN_TYPE,
) {
  return {
    guid: { creation_number: '0', account_address: '0x0' },
    sequence_number: '0',
    type,
    data: { account, amount: amount.toString(), coin_type: coinType },
  };
}

function tx(events: EventJson[], overrides: Partial<TransactionJson> = {}): TransactionJson {
  return {
    type: 'user_transaction',
    version: '40',
    hash: HASH,
    success: true,
    sender: ALICE,
    events,
    changes: [],
    ...overrides,
  };
}

const row = (n: number, token: string, from: string, to: string, value: bigint) => ({
  id: `aptos:${HASH}:${n}`,
  chain: 'aptos',
  token_address: token,
  from_address: from,
  to_address: to,
  value: value.toString(),
  tx_hash: HASH,
  block_number: '12',
  block_hash: AT.hash,
  block_time: AT.time,
});

describe('readTransaction (Aptos)', () => {
  const known = stores([ALICE, APT_METADATA], [BOB, APT_METADATA], [CAROL, APT_METADATA], [ALICE, USDC], [BOB, USDC]);

  it('reads a payment as one transfer, APT as the native coin, and touches both sides and the sender', () => {
    const read = readTransaction(
      tx([fa(FA_WITHDRAW, ALICE, APT_METADATA, 700n), fa(FA_DEPOSIT, BOB, APT_METADATA, 700n)]),
      AT,
      new Set([ALICE, BOB]),
      known,
    );
    expect(read.transfers).toEqual([row(0, NATIVE, ALICE, BOB, 700n)]);
    expect(read.touched).toEqual([
      { address: ALICE, token_address: NATIVE },
      { address: BOB, token_address: NATIVE },
    ]);
  });

  it('keeps only transfers touching a followed owner, with ids that do not depend on which are followed', () => {
    const events = [
      fa(FA_WITHDRAW, ALICE, USDC, 30n),
      fa(FA_DEPOSIT, BOB, USDC, 30n),
      fa(FA_WITHDRAW, BOB, APT_METADATA, 5n),
      fa(FA_DEPOSIT, CAROL, APT_METADATA, 5n),
    ];
    expect(readTransaction(tx(events, { sender: BOB }), AT, new Set([CAROL]), known).transfers).toEqual([
      row(1, NATIVE, BOB, CAROL, 5n),
    ]);
    expect(readTransaction(tx(events, { sender: BOB }), AT, new Set([ALICE]), known).transfers).toEqual([
      row(0, USDC, ALICE, BOB, 30n),
    ]);
  });

  it('splits one payer among several payees, and several payers into one payee, in event order', () => {
    const fanOut = readTransaction(
      tx([
        fa(FA_WITHDRAW, ALICE, APT_METADATA, 100n),
        fa(FA_DEPOSIT, BOB, APT_METADATA, 60n),
        fa(FA_DEPOSIT, CAROL, APT_METADATA, 40n),
      ]),
      AT,
      new Set([ALICE]),
      known,
    );
    expect(fanOut.transfers).toEqual([row(0, NATIVE, ALICE, BOB, 60n), row(1, NATIVE, ALICE, CAROL, 40n)]);

    const fanIn = readTransaction(
      tx([
        fa(FA_WITHDRAW, ALICE, APT_METADATA, 10n),
        fa(FA_WITHDRAW, BOB, APT_METADATA, 15n),
        fa(FA_DEPOSIT, CAROL, APT_METADATA, 25n),
      ]),
      AT,
      new Set([CAROL]),
      known,
    );
    expect(fanIn.transfers).toEqual([row(0, NATIVE, ALICE, CAROL, 10n), row(1, NATIVE, BOB, CAROL, 15n)]);
  });

  it('reads a deposit nobody paid as a mint from 0 and a withdrawal nobody received as a burn', () => {
    const read = readTransaction(
      tx([fa(FA_DEPOSIT, BOB, USDC, 9n), fa(FA_WITHDRAW, ALICE, APT_METADATA, 4n)]),
      AT,
      new Set([ALICE, BOB]),
      known,
    );
    expect(read.transfers).toEqual([row(0, USDC, NATIVE, BOB, 9n), row(1, NATIVE, ALICE, BURNED, 4n)]);
  });

  it('sums an owner moving between its own stores to nothing, and pays out only the net', () => {
    const read = readTransaction(
      tx([
        fa(FA_WITHDRAW, ALICE, APT_METADATA, 50n),
        fa(FA_DEPOSIT, ALICE, APT_METADATA, 20n),
        fa(FA_DEPOSIT, BOB, APT_METADATA, 30n),
      ]),
      AT,
      new Set([ALICE, BOB]),
      known,
    );
    expect(read.transfers).toEqual([row(0, NATIVE, ALICE, BOB, 30n)]);
    expect(
      readTransaction(tx([fa(FA_WITHDRAW, BOB, USDC, 3n), fa(FA_DEPOSIT, BOB, USDC, 3n)]), AT, new Set([BOB]), known),
    ).toEqual({ transfers: [], touched: [] });
  });

  it('reads APT moved by coin events by account (short addresses padded), ignores other coins and unrelated events', () => {
    const read = readTransaction(
      tx([
        coin(COIN_WITHDRAW, ALICE, 8n),
        coin(COIN_DEPOSIT, '0xB0', 8n),
        coin(COIN_WITHDRAW, ALICE, 3n, '0x1::other::Coin'),
        {
          guid: { creation_number: '0', account_address: '0x0' },
          sequence_number: '0',
          type: '0x1::transaction_fee::FeeStatement',
          data: { total_charge_gas_units: '7' },
        },
      ]),
      AT,
      new Set([ALICE]),
      known,
    );
    expect(read.transfers).toEqual([row(0, NATIVE, ALICE, `0x${'0'.repeat(62)}b0`, 8n)]);
  });

  it('moves nothing in a failed transaction but touches the APT of its followed sender', () => {
    const read = readTransaction(
      tx([fa(FA_WITHDRAW, ALICE, APT_METADATA, 700n), fa(FA_DEPOSIT, BOB, APT_METADATA, 700n)], { success: false }),
      AT,
      new Set([ALICE, BOB]),
      known,
    );
    expect(read).toEqual({ transfers: [], touched: [{ address: ALICE, token_address: NATIVE }] });
    expect(storesMoved(tx([fa(FA_DEPOSIT, BOB, USDC, 1n)], { success: false }))).toEqual([]);
  });

  it('touches the APT of the fee payer of a sponsored transaction, who pays its gas', () => {
    const sponsored = tx([], { sender: ALICE, signature: { type: 'fee_payer_signature', fee_payer_address: '0xC' } });
    const payer = fullAddress('0xc');
    expect(readTransaction(sponsored, AT, new Set([payer]), known).touched).toEqual([
      { address: payer, token_address: NATIVE },
    ]);
    expect(readTransaction(sponsored, AT, new Set([BOB]), known).touched).toEqual([]);
  });

  it('refuses a store it was not told of, and an amount that is not a u64', () => {
    expect(() => readTransaction(tx([fa(FA_DEPOSIT, CAROL, USDC, 1n)]), AT, new Set(), known)).toThrow(/is not known/);
    const bad = fa(FA_DEPOSIT, BOB, USDC, 1n);
    bad.data.amount = 1;
    expect(() => readTransaction(tx([bad]), AT, new Set(), known)).toThrow(/not a u64/);
  });
});

describe('writtenStores', () => {
  it("reads each store's owner and asset from the write set, addresses written in full", () => {
    const store = storeOf(ALICE, APT_METADATA);
    const changes: WriteSetChangeJson[] = [
      {
        type: 'write_resource',
        address: store,
        state_key_hash: HASH,
        data: { type: FUNGIBLE_STORE, data: { metadata: { inner: '0xa' }, balance: '0', frozen: false } },
      },
      {
        type: 'write_resource',
        address: store,
        state_key_hash: HASH,
        data: { type: OBJECT_CORE, data: { owner: '0xA1' } },
      },
      {
        type: 'write_resource',
        address: ALICE,
        state_key_hash: HASH,
        data: { type: '0x1::account::Account', data: {} },
      },
      { type: 'delete_resource', address: BOB, state_key_hash: HASH, resource: FUNGIBLE_STORE },
    ];
    expect(writtenStores(tx([], { changes }))).toEqual(
      new Map([[store, { owner: fullAddress('0xa1'), asset: APT_METADATA }]]),
    );
  });

  it('pads short addresses and refuses what is not one', () => {
    expect(fullAddress('0xA')).toBe(APT_METADATA);
    expect(() => fullAddress('0x')).toThrow();
    expect(() => fullAddress(`0x${'1'.repeat(65)}`)).toThrow();
    expect(() => fullAddress(7)).toThrow();
  });
});
