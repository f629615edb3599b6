import type { BlockHeader } from '../reading';
import type { RpcBlockFull, RpcLogEntry, RpcTx } from './rpc-shapes';
import {
  addressTopic,
  readTransferLog,
  scanNative,
  settledTransfer,
  tokenTransfer,
  toHeader,
  topicAddress,
  TRANSFER_TOPIC,
} from './transfers';

const alice = '0x' + 'a1'.repeat(20);
const bob = '0x' + 'b2'.repeat(20);
const carol = '0x' + 'c3'.repeat(20);
const token = '0x' + 'dd'.repeat(20);
const zero = '0x' + '00'.repeat(20);
const word = (value: bigint) => '0x' + value.toString(16).padStart(64, '0');

const header: BlockHeader = {
  number: 1234n,
  hash: '0x' + '12'.repeat(32),
  parentHash: '0x' + '11'.repeat(32),
  time: '2024-01-01T00:00:00.000Z',
};

function log(overrides: Partial<RpcLogEntry> = {}): RpcLogEntry {
  return {
    address: token.toUpperCase().replace('0X', '0x'),
    topics: [TRANSFER_TOPIC, addressTopic(alice), addressTopic(bob)],
    data: word(5n),
    blockNumber: '0x4d2',
    blockHash: header.hash,
    transactionHash: '0x' + 'AB'.repeat(32),
    logIndex: '0x1f',
    ...overrides,
  };
}

function tx(overrides: Partial<RpcTx> = {}): RpcTx {
  return { hash: '0x' + 'ee'.repeat(32), from: alice, to: bob, value: '0x10', ...overrides };
}

describe('topics', () => {
  it('pads an address to a topic and reads it back', () => {
    expect(addressTopic(alice)).toBe('0x000000000000000000000000' + 'a1'.repeat(20));
    expect(topicAddress(addressTopic(alice))).toBe(alice);
    expect(topicAddress(addressTopic(alice).toUpperCase().replace('0X', '0x'))).toBe(alice);
  });

  it('refuses a word that is not a padded address', () => {
    expect(topicAddress('0x01' + '00'.repeat(11) + 'a1'.repeat(20))).toBe(undefined);
    expect(topicAddress('0x1234')).toBe(undefined);
  });
});

describe('toHeader', () => {
  it('lowercases hashes and turns the timestamp into an ISO time', () => {
    expect(toHeader({ number: '0x10', hash: '0xABCD', parentHash: '0xEF01', timestamp: '0x65920080' })).toEqual({
      number: 16n,
      hash: '0xabcd',
      parentHash: '0xef01',
      time: '2024-01-01T00:00:00.000Z',
    });
  });
});

describe('ERC-20 Transfer logs', () => {
  it('reads a transfer into its record: lowercase, decimal log index, the block data of the header', () => {
    const entry = log();
    const transfer = readTransferLog(entry)!;
    expect(transfer).toEqual({ token, from: alice, to: bob, value: 5n });
    expect(tokenTransfer('ethereum', entry, transfer, header)).toEqual({
      id: `ethereum:0x${'ab'.repeat(32)}:31`,
      chain: 'ethereum',
      token_address: token,
      from_address: alice,
      to_address: bob,
      value: '5',
      tx_hash: '0x' + 'ab'.repeat(32),
      block_number: '1234',
      block_hash: header.hash,
      block_time: header.time,
    });
  });

  it('gives a mint the sender 0 and keeps a burn to the zero address', () => {
    const mint = log({ topics: [TRANSFER_TOPIC, addressTopic(zero), addressTopic(bob)] });
    expect(tokenTransfer('base', mint, readTransferLog(mint)!, header).from_address).toBe('0');
    const burn = log({ topics: [TRANSFER_TOPIC, addressTopic(alice), addressTopic(zero)] });
    expect(tokenTransfer('base', burn, readTransferLog(burn)!, header).to_address).toBe(zero);
  });

  it('reads a value of 78 digits exactly', () => {
    const max = 2n ** 256n - 1n;
    expect(readTransferLog(log({ data: word(max) }))!.value).toBe(max);
  });

  it.each([
    [
      'an ERC-721 transfer (token id indexed)',
      { topics: [TRANSFER_TOPIC, addressTopic(alice), addressTopic(bob), word(7n)] },
    ],
    ['a transfer of 0', { data: word(0n) }],
    ['data longer than a word', { data: word(5n) + '00'.repeat(32) }],
    ['data shorter than a word', { data: '0x05' }],
    ['no data', { data: '0x' }],
    ['another event', { topics: [word(1n), addressTopic(alice), addressTopic(bob)] }],
    ['a topic that is not an address', { topics: [TRANSFER_TOPIC, word(2n ** 200n), addressTopic(bob)] }],
    ['two topics', { topics: [TRANSFER_TOPIC, addressTopic(alice)] }],
  ])('ignores %s', (_case, overrides) => {
    expect(readTransferLog(log(overrides as Partial<RpcLogEntry>))).toBe(undefined);
  });
});

describe('native transfers', () => {
  const block = (transactions: RpcTx[], extra: Partial<RpcBlockFull> = {}): RpcBlockFull => ({
    number: '0x4d2',
    hash: header.hash,
    parentHash: header.parentHash,
    timestamp: '0x0',
    miner: carol,
    transactions,
    ...extra,
  });

  it('picks transactions with value and a tracked end, and every tracked sender for gas', () => {
    const toTracked = tx({ hash: '0x01', from: carol, to: alice.toUpperCase().replace('0X', '0x') });
    const fromTracked = tx({ hash: '0x02', from: alice, to: carol });
    const untracked = tx({ hash: '0x03', from: carol, to: bob });
    const noValue = tx({ hash: '0x04', from: alice, to: carol, value: '0x0' });
    const scan = scanNative(block([toTracked, fromTracked, untracked, noValue]), header, new Set([alice]));
    expect(scan.candidates.map((candidate) => candidate.tx.hash)).toEqual(['0x01', '0x02']);
    expect(scan.balanceChanged).toEqual([alice, alice]);
  });

  it('takes value-carrying contract creations as candidates, and the fee recipient and withdrawals as changed', () => {
    const creation = tx({ hash: '0x05', from: carol, to: null });
    const scan = scanNative(
      block([creation], { miner: bob, withdrawals: [{ address: alice }, { address: carol }] }),
      header,
      new Set([alice, bob]),
    );
    expect(scan.candidates.map((candidate) => candidate.tx.hash)).toEqual(['0x05']);
    expect(scan.balanceChanged).toEqual([bob, alice]);
  });

  it('records a successful transfer, none for a reverted one', () => {
    const tracked = new Set([bob]);
    const candidate = { tx: tx({ value: '0xde0b6b3a7640000' }), header };
    const receipt = { transactionHash: candidate.tx.hash, blockHash: header.hash };
    expect(settledTransfer('polygon', candidate, { ...receipt, status: '0x1' }, tracked)).toEqual({
      id: `polygon:${candidate.tx.hash}:native`,
      chain: 'polygon',
      token_address: '0',
      from_address: alice,
      to_address: bob,
      value: '1000000000000000000',
      tx_hash: candidate.tx.hash,
      block_number: '1234',
      block_hash: header.hash,
      block_time: header.time,
    });
    expect(settledTransfer('polygon', candidate, { ...receipt, status: '0x0' }, tracked)).toBe(undefined);
    // Before Byzantium receipts carry no status.
    expect(settledTransfer('polygon', candidate, receipt, tracked)?.value).toBe('1000000000000000000');
  });

  it('sends a contract creation to the created contract, if either end is tracked', () => {
    const candidate = { tx: tx({ from: carol, to: null }), header };
    const receipt = { transactionHash: candidate.tx.hash, blockHash: header.hash, status: '0x1', contractAddress: bob };
    expect(settledTransfer('ethereum', candidate, receipt, new Set([bob]))?.to_address).toBe(bob);
    expect(settledTransfer('ethereum', candidate, receipt, new Set([alice]))).toBe(undefined);
  });
});
