import { tonMismatch } from './ton-network';
import type { BlockIdJson } from './toncenter-shapes';

const zeroState = (root_hash: string, file_hash: string): BlockIdJson => ({
  workchain: -1,
  shard: '0',
  seqno: 0,
  root_hash,
  file_hash,
});

const MAINNET = zeroState(
  'F6OpKZKqvqeFp6CQmFomXNMfMj2EnaUSOXN+Mh+wVWk=',
  'XplPz01CXAps5qeSWUtxcyBfdAo5zVb1N979KLSKD24=',
);
const TESTNET = zeroState(
  'gj+B8wb/AmlPk1z1AhVI484rhrUpgSr2oSFIh56VoSg=',
  'Z+IKwYS54DmmJmesw/nAD5DzWadnOCMzee+kdgSYDOg=',
);
const LOCAL = zeroState(Buffer.alloc(32, 1).toString('base64'), Buffer.alloc(32, 2).toString('base64'));

describe('tonMismatch', () => {
  it("accepts mainnet's zero state and global id −239 on mainnet, and nothing else", () => {
    expect(tonMismatch('mainnet', MAINNET, -239)).toBeUndefined();
    expect(tonMismatch('mainnet', MAINNET, undefined)).toBeUndefined();
    expect(tonMismatch('mainnet', TESTNET, -3)).toMatch(/zero state is testnet’s while NETWORK_TON is mainnet/);
    expect(tonMismatch('mainnet', LOCAL, 42)).toMatch(/zero state is not mainnet’s/);
    expect(tonMismatch('mainnet', MAINNET, 42)).toMatch(/global_id 42, not mainnet's -239/);
  });

  it('accepts on localnet a node that is neither mainnet nor testnet', () => {
    expect(tonMismatch('localnet', LOCAL, 42)).toBeUndefined();
    expect(tonMismatch('localnet', MAINNET, -239)).toMatch(/on mainnet while NETWORK_TON is localnet/);
    expect(tonMismatch('localnet', TESTNET, -3)).toMatch(/on testnet while NETWORK_TON is localnet/);
    expect(tonMismatch('localnet', LOCAL, -239)).toMatch(/on mainnet/);
  });
});
