import { NATIVE } from '../reading';
import { coinTokenRecord } from './coin-tokens';
import { chainMismatch } from './network';
import { BURNED, coinToken, readTransaction, SUI_COIN_TYPE, suiAddress, type SuiTransaction } from './sui-transaction';

const full = (digit: string) => `0x${digit.repeat(64)}`;
const ALICE = full('a');
const BOB = full('b');
const CAROL = full('c');
const USDC = `${full('d')}::usdc::USDC`;
const AT = { sequence: 9n, digest: 'CheckpointDigest1111111111111111111111111111', time: '2026-01-01T00:00:00.000Z' };
const DIGEST = 'TxDigest11111111111111111111111111111111111';
const GAS = { computationCost: 1000n, storageCost: 2000n, storageRebate: 500n };
const CHARGED = 2500n;

function tx(
  changes: [string, string, bigint][],
  overrides: { success?: boolean; payer?: string; sender?: string } = {},
): SuiTransaction {
  const sender = overrides.sender ?? ALICE;
  return {
    digest: DIGEST,
    transaction: { sender, gasPayment: { owner: overrides.payer ?? sender } },
    effects: { status: { success: overrides.success ?? true }, gasUsed: GAS },
    balanceChanges: changes.map(([address, coinType, amount]) => ({ address, coinType, amount: amount.toString() })),
  };
}

const row = (n: number, token: string, from: string, to: string, value: bigint) => ({
  id: `sui:${DIGEST}:${n}`,
  chain: 'sui',
  token_address: token,
  from_address: from,
  to_address: to,
  value: value.toString(),
  tx_hash: DIGEST,
  block_number: '9',
  block_hash: AT.digest,
  block_time: AT.time,
});

describe('readTransaction (Sui)', () => {
  it('takes the gas out of its payer’s change: a payment of SUI is one transfer of what arrived', () => {
    const read = readTransaction(
      tx([
        [ALICE, '0x2::sui::SUI', -(700n + CHARGED)],
        [BOB, SUI_COIN_TYPE, 700n],
      ]),
      AT,
      new Set([ALICE, BOB]),
    );
    expect(read.transfers).toEqual([row(0, NATIVE, ALICE, BOB, 700n)]);
    expect(read.touched).toEqual([
      { address: ALICE, token_address: NATIVE },
      { address: BOB, token_address: NATIVE },
    ]);
  });

  it('reads a coin by its type with the address in full, pays several, and numbers every pair', () => {
    const short = '0x5::coin::COIN';
    const coin = `0x${'5'.padStart(64, '0')}::coin::COIN`;
    const read = readTransaction(
      tx([
        [ALICE, SUI_COIN_TYPE, -CHARGED],
        [ALICE, short, -30n],
        [BOB, coin, 10n],
        [CAROL, short, 20n],
      ]),
      AT,
      new Set([CAROL]),
    );
    expect(read.transfers).toEqual([row(1, coin, ALICE, CAROL, 20n)]);
    expect(read.touched).toEqual([{ address: CAROL, token_address: coin }]);
  });

  it('reads a change nobody paid as a mint from 0 and one nobody received as a burn', () => {
    const read = readTransaction(
      tx([
        [ALICE, SUI_COIN_TYPE, -CHARGED],
        [BOB, USDC, 5n],
        [ALICE, USDC, -2n],
      ]),
      AT,
      new Set([ALICE, BOB]),
    );
    expect(read.transfers).toEqual(
      [row(0, USDC, NATIVE, BOB, 3n)].slice(0, 0).concat([row(0, USDC, ALICE, BOB, 2n), row(1, USDC, NATIVE, BOB, 3n)]),
    );
    const burnt = readTransaction(tx([[ALICE, SUI_COIN_TYPE, -(CHARGED + 9n)]]), AT, new Set([ALICE]));
    expect(burnt.transfers).toEqual([row(0, NATIVE, ALICE, BURNED, 9n)]);
  });

  it('charges a sponsored transaction’s gas to its payer, and touches sender and payer', () => {
    const read = readTransaction(
      tx(
        [
          [CAROL, SUI_COIN_TYPE, -CHARGED],
          [ALICE, SUI_COIN_TYPE, -40n],
          [BOB, SUI_COIN_TYPE, 40n],
        ],
        { payer: CAROL },
      ),
      AT,
      new Set([ALICE, CAROL]),
    );
    expect(read.transfers).toEqual([row(0, NATIVE, ALICE, BOB, 40n)]);
    expect(read.touched).toEqual([
      { address: ALICE, token_address: NATIVE },
      { address: CAROL, token_address: NATIVE },
    ]);
  });

  it('moves nothing in a failed transaction but touches its followed payer', () => {
    expect(readTransaction(tx([[ALICE, SUI_COIN_TYPE, -CHARGED]], { success: false }), AT, new Set([ALICE]))).toEqual({
      transfers: [],
      touched: [{ address: ALICE, token_address: NATIVE }],
    });
  });

  it('refuses what is not an address, a coin type or an amount', () => {
    expect(() => suiAddress('0x')).toThrow();
    expect(() => coinToken('0x2::sui')).toThrow();
    const bad = tx([]);
    bad.balanceChanges = [{ address: ALICE, coinType: SUI_COIN_TYPE, amount: '1.5' }];
    expect(() => readTransaction(bad, AT, new Set())).toThrow(/not a number/);
  });
});

describe('coin token records', () => {
  it('name the token by its coin type as a slug', () => {
    expect(
      coinTokenRecord({ id: 'sui', iconUrl: 'https://icon' }, USDC, { decimals: 6, name: 'USD Coin', symbol: 'USDC' }),
    ).toMatchObject({
      id: `sui-${'d'.repeat(64)}-usdc-usdc`,
      deployments: [{ chain: 'sui', address: USDC, decimals: 6 }],
    });
    expect(coinTokenRecord({ id: 'sui', iconUrl: 'https://icon' }, USDC, undefined)).toBeUndefined();
  });
});

describe('chainMismatch (Sui)', () => {
  it('takes mainnet on mainnet, and anything but mainnet and testnet on localnet', () => {
    expect(chainMismatch('mainnet', 'mainnet')).toBeUndefined();
    expect(chainMismatch('localnet', 'localnet')).toBeUndefined();
    expect(chainMismatch('localnet', 'unknown')).toBeUndefined();
    expect(chainMismatch('mainnet', 'testnet')).toBe('NETWORK_SUI is mainnet, but the node is on testnet');
    expect(chainMismatch('mainnet', undefined)).toBe('NETWORK_SUI is mainnet, but the node names no chain');
    expect(chainMismatch('localnet', 'mainnet')).toBe('NETWORK_SUI is localnet, but the node is on mainnet');
  });
});
