import { base58 } from '@scure/base';
import type { ChainId } from '../../src/core/chains/chain-ids';

/** A seeded source of random bytes; `hex` is the same draw as `bytes`, written as lowercase hex. */
export interface RandomBytes {
  bytes(length: number): Uint8Array;
  hex(length: number): string;
}

/**
 * A made-up transaction (or block) hash in the chain's own notation, for generated data
 * (examples/generate-demo.ts, bench/dataset/transactions.ts): base58 signatures and digests on Solana and Sui,
 * bare hex on the Bitcoin family and TON, `0x` hex on the EVM chains and Aptos.
 */
export function syntheticTxHash(chain: ChainId, random: RandomBytes): string {
  switch (chain) {
    case 'solana':
      return base58.encode(random.bytes(64));
    case 'sui':
      return base58.encode(random.bytes(32));
    case 'bitcoin':
    case 'bitcoincash':
    case 'dogecoin':
    case 'ton':
      return random.hex(32);
    case 'ethereum':
    case 'bnb':
    case 'polygon':
    case 'arbitrum':
    case 'optimism':
    case 'base':
    case 'aptos':
      return `0x${random.hex(32)}`;
  }
}
