import { randomBytes } from 'node:crypto';
import { getAddress } from 'viem';
import { chainsOfFamily } from '../../src/core/addresses/address-families';

/** A fresh EVM address, mixed-case checksummed (valid EIP-55) and its canonical lowercase form. */
export function evmAddress(): { checksummed: string; canonical: string } {
  const checksummed = getAddress(`0x${randomBytes(20).toString('hex')}`);
  return { checksummed, canonical: checksummed.toLowerCase() };
}

/**
 * A fresh EVM address, checksummed, and the same with the case of one letter flipped so that its
 * checksum is wrong. The letter is one whose case another letter shares, so the spelling stays
 * mixed-case: an all-lowercase or all-uppercase spelling carries no checksum and is valid.
 */
export function evmAddressWithBadChecksum(): { good: string; badChecksum: string } {
  for (;;) {
    const good = evmAddress().checksummed;
    const letters = [...good.slice(2)].flatMap((char, index) => (/[a-f]/i.test(char) ? [index + 2] : []));
    const isUpper = (index: number) => good[index] === good[index]!.toUpperCase();
    const index = letters.find((at) => letters.some((other) => other !== at && isUpper(other) === isUpper(at)));
    if (index === undefined) continue;
    const letter = good[index]!;
    const flipped = isUpper(index) ? letter.toLowerCase() : letter.toUpperCase();
    return { good, badChecksum: good.slice(0, index) + flipped + good.slice(index + 1) };
  }
}

export function evmAddresses(count: number): string[] {
  return Array.from({ length: count }, () => evmAddress().canonical);
}

/** Distinct valid tag names: `prefix_0001`, `prefix_0002`, … */
export function tagNames(count: number, prefix = 'tag'): string[] {
  return Array.from({ length: count }, (_unused, index) => `${prefix}_${String(index + 1).padStart(4, '0')}`);
}

/**
 * One published example of each address family (spec and well-known mainnet addresses), with the
 * chains the registry gives its family.
 */
export const FAMILY_EXAMPLES = {
  bitcoinLegacy: {
    input: '1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu',
    canonical: '1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu',
    chains: chainsOfFamily('bitcoin_legacy'),
  },
  bitcoinSegwit: {
    input: 'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4',
    canonical: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
    chains: chainsOfFamily('bitcoin_segwit'),
  },
  bitcoinCash: {
    input: 'qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a',
    canonical: 'bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a',
    chains: chainsOfFamily('bitcoin_cash'),
  },
  solana: {
    input: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    canonical: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    chains: chainsOfFamily('solana'),
  },
  ton: {
    input: 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs',
    canonical: '0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe',
    chains: chainsOfFamily('ton'),
  },
  move: {
    input: '0xDBA34672E30CB065B1F93E3AB55318768FD6FEF66C15942C9F7CB846E2F900E7',
    canonical: '0xdba34672e30cb065b1f93e3ab55318768fd6fef66c15942c9f7cb846e2f900e7',
    chains: chainsOfFamily('move'),
  },
} as const;
