import type { FollowedChainConfig } from '../../config/config';
import { nativeBackfillStart } from './chain-source';

const settings = (startBlock: bigint, nativeBackfillBlocks: bigint | 'all'): FollowedChainConfig => ({
  chain: 'ethereum',
  rpcUrls: ['http://127.0.0.1:8545'],
  confirmations: 12,
  startBlock,
  nativeBackfillBlocks,
  network: 'mainnet',
});

describe('nativeBackfillStart', () => {
  it('searches NATIVE_BACKFILL_BLOCKS blocks up to the one the address was first tracked at', () => {
    expect(nativeBackfillStart(settings(0n, 100_000n), 1_000_000n)).toBe(900_001n);
  });

  it('never before START_BLOCK, and from it with "all"', () => {
    expect(nativeBackfillStart(settings(950_000n, 100_000n), 1_000_000n)).toBe(950_000n);
    expect(nativeBackfillStart(settings(0n, 100_000n), 500n)).toBe(0n);
    expect(nativeBackfillStart(settings(7n, 'all'), 1_000_000n)).toBe(7n);
  });
});
