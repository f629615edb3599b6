import { getBase58Decoder } from '@solana/kit';
import {
  getTransferSolInstructionDataEncoder,
  getTransferSolWithSeedInstructionDataEncoder,
  SYSTEM_PROGRAM_ADDRESS,
} from '@solana-program/system';
import {
  getBurnInstructionDataEncoder,
  getTransferInstructionDataEncoder,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { BURNED, readTransaction, TOKEN_2022_PROGRAM_ADDRESS, type SolanaTransaction } from './solana-transaction';

const base58 = getBase58Decoder();
/** Instruction data as the node writes it: Base58. */
const data = (bytes: Parameters<typeof base58.decode>[0]) => base58.decode(bytes);

// Keys of the transaction below, by index.
const WALLET = 'Ew2eF4wyyZ6oW1iy5n3Fs7JQvSVb9L2kUqUuKXA6E8CX';
const OTHER = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';
const WALLET_TOKENS = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const OTHER_TOKENS = 'HN7cABqLq46Es1jh92dQQisAq662SmxELLLsHHe4YWrH';
const MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const KEYS = [WALLET, OTHER, WALLET_TOKENS, OTHER_TOKENS, MINT, SYSTEM_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS];
const AT = { slot: 7n, hash: 'BlockHash1111111111111111111111111111111111', time: '2026-01-01T00:00:00.000Z' };

function transaction(overrides: Partial<SolanaTransaction>): SolanaTransaction {
  return {
    signature: 'Sig',
    accountKeys: KEYS,
    instructions: [],
    inner: new Map(),
    failed: false,
    preBalances: KEYS.map(() => 1_000n),
    postBalances: KEYS.map(() => 1_000n),
    preTokenBalances: [
      { accountIndex: 2, mint: MINT, owner: WALLET, uiTokenAmount: { amount: '500' } },
      { accountIndex: 3, mint: MINT, owner: OTHER, uiTokenAmount: { amount: '0' } },
    ],
    postTokenBalances: [
      { accountIndex: 2, mint: MINT, owner: WALLET, uiTokenAmount: { amount: '500' } },
      { accountIndex: 3, mint: MINT, owner: OTHER, uiTokenAmount: { amount: '0' } },
    ],
    ...overrides,
  };
}

const solTransfer = (from: number, to: number, amount: bigint) => ({
  programIdIndex: 5,
  accounts: [from, to],
  data: data(getTransferSolInstructionDataEncoder().encode({ amount })),
});

describe('readTransaction', () => {
  it('records System Program transfers, top-level and inner, with their instruction positions', () => {
    const tx = transaction({
      instructions: [solTransfer(0, 1, 70n), { programIdIndex: 6, accounts: [], data: '' }],
      inner: new Map([
        [
          1,
          [
            { programIdIndex: 6, accounts: [], data: data(new Uint8Array([99])) },
            {
              programIdIndex: 5,
              accounts: [1, 0, 0],
              data: data(
                getTransferSolWithSeedInstructionDataEncoder().encode({
                  amount: 3n,
                  fromSeed: 's',
                  fromOwner: MINT as never,
                }),
              ),
            },
          ],
        ],
      ]),
      preBalances: [1_000n, 1_000n, 0n, 0n, 0n, 1n, 1n],
      postBalances: [925n, 1_000n, 0n, 0n, 0n, 1n, 1n],
    });
    const read = readTransaction(tx, AT, new Set([WALLET]));
    expect(
      read.transfers.map((row) => [row.id, row.from_address, row.to_address, row.value, row.token_address]),
    ).toEqual([
      ['solana:Sig:0', WALLET, OTHER, '70', '0'],
      ['solana:Sig:1.1', OTHER, WALLET, '3', '0'],
    ]);
    expect(read.transfers[0]).toMatchObject({
      block_number: '7',
      block_hash: AT.hash,
      block_time: AT.time,
      tx_hash: 'Sig',
    });
    expect(read.touched).toEqual([{ address: WALLET, token_address: '0' }]);
  });

  it('names the owners of the token accounts, not the accounts, and records a burn to the zero key', () => {
    const tx = transaction({
      instructions: [
        {
          programIdIndex: 6,
          accounts: [3, 2, 1],
          data: data(getTransferInstructionDataEncoder().encode({ amount: 40n })),
        },
        { programIdIndex: 6, accounts: [2, 4, 0], data: data(getBurnInstructionDataEncoder().encode({ amount: 5n })) },
      ],
      preTokenBalances: [
        { accountIndex: 2, mint: MINT, owner: WALLET, uiTokenAmount: { amount: '500' } },
        { accountIndex: 3, mint: MINT, owner: OTHER, uiTokenAmount: { amount: '40' } },
      ],
      postTokenBalances: [
        { accountIndex: 2, mint: MINT, owner: WALLET, uiTokenAmount: { amount: '535' } },
        { accountIndex: 3, mint: MINT, owner: OTHER, uiTokenAmount: { amount: '0' } },
      ],
    });
    const read = readTransaction(tx, AT, new Set([WALLET]));
    expect(
      read.transfers.map((row) => [row.id, row.from_address, row.to_address, row.value, row.token_address]),
    ).toEqual([
      ['solana:Sig:0', OTHER, WALLET, '40', MINT],
      ['solana:Sig:1', WALLET, BURNED, '5', MINT],
    ]);
    expect(read.touched).toEqual([{ address: WALLET, token_address: MINT }]);
  });

  it('decodes Token-2022 instructions with the same layouts', () => {
    const keys = [...KEYS.slice(0, 6), TOKEN_2022_PROGRAM_ADDRESS];
    const tx = transaction({
      accountKeys: keys,
      instructions: [
        {
          programIdIndex: 6,
          accounts: [2, 3, 0],
          data: data(getTransferInstructionDataEncoder().encode({ amount: 9n })),
        },
      ],
    });
    const [row] = readTransaction(tx, AT, new Set([OTHER])).transfers;
    expect(row).toMatchObject({ from_address: WALLET, to_address: OTHER, value: '9', token_address: MINT });
  });

  it('records nothing of a failed transaction, touches the payer’s balance for its fee, and ignores untracked ends', () => {
    const failed = transaction({
      failed: true,
      instructions: [solTransfer(0, 1, 70n)],
      preBalances: [1_000n, 1_000n, 0n, 0n, 0n, 1n, 1n],
      postBalances: [995n, 1_000n, 0n, 0n, 0n, 1n, 1n],
    });
    expect(readTransaction(failed, AT, new Set([WALLET]))).toEqual({
      transfers: [],
      touched: [{ address: WALLET, token_address: '0' }],
    });
    const untracked = transaction({ instructions: [solTransfer(0, 1, 70n)] });
    expect(readTransaction(untracked, AT, new Set([MINT])).transfers).toEqual([]);
  });

  it('passes over instructions that do not decode and programs it does not read', () => {
    const tx = transaction({
      instructions: [
        { programIdIndex: 5, accounts: [0], data: data(getTransferSolInstructionDataEncoder().encode({ amount: 1n })) },
        { programIdIndex: 6, accounts: [0, 1], data: '0OIl' },
        {
          programIdIndex: 4,
          accounts: [0, 1],
          data: data(getTransferSolInstructionDataEncoder().encode({ amount: 1n })),
        },
        {
          programIdIndex: 6,
          accounts: [0, 99, 1],
          data: data(getTransferInstructionDataEncoder().encode({ amount: 1n })),
        },
      ],
    });
    expect(readTransaction(tx, AT, new Set([WALLET, OTHER])).transfers).toEqual([]);
  });

  it('touches the balance of a token account the transaction closed', () => {
    const tx = transaction({ postTokenBalances: [] });
    expect(readTransaction(tx, AT, new Set([WALLET])).touched).toEqual([{ address: WALLET, token_address: MINT }]);
  });
});
