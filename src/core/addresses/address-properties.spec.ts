import { encodeCashAddress } from '@bitauth/libauth/build/lib/address/cash-address.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { isAddress as isSolanaAddress } from '@solana/addresses';
import { base58, bech32, bech32m, createBase58check, hex } from '@scure/base';
import { Address } from '@ton/core';
import fc from 'fast-check';
import { getAddress } from 'viem';

import { CHAIN_IDS } from '../chains/chain-ids';
import { AddressFamily, ParsedAddress } from './address-families';
import { parseAddress } from './address-parser';
import { parseTokenAddress } from './token-address';

const base58check = createBase58check(sha256);

/** A valid address as some wallet or explorer might print it, and what chaintags must make of it. */
interface Sample {
  input: string;
  family: AddressFamily;
  canonical: string;
}

const bytes = (length: number) => fc.uint8Array({ minLength: length, maxLength: length });

const evmSample: fc.Arbitrary<Sample> = fc
  .tuple(bytes(20), fc.constantFrom('checksummed', 'lower', 'upper'))
  .map(([payload, spelling]) => {
    const lower = `0x${hex.encode(payload)}`;
    const input =
      spelling === 'checksummed'
        ? getAddress(lower)
        : spelling === 'lower'
          ? lower
          : `0x${lower.slice(2).toUpperCase()}`;
    return { input, family: 'evm', canonical: lower };
  });

const moveSample: fc.Arbitrary<Sample> = fc
  .mixedCase(bytes(32).map((payload) => hex.encode(payload)))
  .map((digits) => ({ input: `0x${digits}`, family: 'move', canonical: `0x${digits.toLowerCase()}` }));

const segwitProgram = fc.oneof(
  fc.tuple(fc.constant(0), fc.constantFrom(20, 32)),
  fc.tuple(fc.integer({ min: 1, max: 16 }), fc.integer({ min: 2, max: 40 })),
);

const segwitSample: fc.Arbitrary<Sample> = fc.tuple(segwitProgram, fc.boolean()).chain(([[version, length], upper]) =>
  bytes(length).map((program) => {
    const coder = version === 0 ? bech32 : bech32m;
    const canonical = coder.encode('bc', [version, ...coder.toWords(program)]);
    return { input: upper ? canonical.toUpperCase() : canonical, family: 'bitcoin_segwit' as const, canonical };
  }),
);

const base58CheckSample: fc.Arbitrary<Sample> = fc
  .tuple(fc.constantFrom(0x00, 0x05, 0x1e, 0x16), bytes(20))
  .map(([version, hash]) => {
    const address = base58check.encode(Uint8Array.from([version, ...hash]));
    const family: AddressFamily = version === 0x00 || version === 0x05 ? 'bitcoin_legacy' : 'dogecoin';
    return { input: address, family, canonical: address };
  });

const solanaSample: fc.Arbitrary<Sample> = bytes(32).map((key) => {
  const address = base58.encode(key);
  return { input: address, family: 'solana', canonical: address };
});

const cashAddrSample: fc.Arbitrary<Sample> = fc
  .tuple(fc.constantFrom('p2pkh' as const, 'p2sh' as const), bytes(20), fc.constantFrom('prefixed', 'bare', 'upper'))
  .map(([type, payload, spelling]) => {
    const canonical = encodeCashAddress({ payload, type }).address;
    const bare = canonical.slice('bitcoincash:'.length);
    const input = spelling === 'prefixed' ? canonical : spelling === 'bare' ? bare : bare.toUpperCase();
    return { input, family: 'bitcoin_cash', canonical };
  });

const tonSample: fc.Arbitrary<Sample> = fc
  .tuple(fc.constantFrom(0, -1), bytes(32), fc.constantFrom('bounceable', 'non-bounceable', 'raw'), fc.boolean())
  .map(([workchain, hash, spelling, urlSafe]) => {
    const address = new Address(workchain, Buffer.from(hash));
    const input =
      spelling === 'raw' ? address.toRawString() : address.toString({ bounceable: spelling === 'bounceable', urlSafe });
    return { input, family: 'ton', canonical: address.toRawString() };
  });

const validSample = fc.oneof(
  evmSample,
  moveSample,
  segwitSample,
  base58CheckSample,
  solanaSample,
  cashAddrSample,
  tonSample,
);

function parsed(input: string): ParsedAddress {
  const result = parseAddress(input);
  if (!result.ok) throw new Error(`expected ${input} to parse, got: ${result.reason}`);
  return result.address;
}

describe('parseAddress on arbitrary strings', () => {
  const anyString = fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.string({ unit: 'grapheme', maxLength: 60 }),
    fc.string({ unit: 'binary-ascii', minLength: 100, maxLength: 400 }),
  );

  it('never throws and always gives either an address or a reason', () => {
    fc.assert(
      fc.property(anyString, (input) => {
        const result = parseAddress(input);
        if (result.ok) {
          expect(result.address.chains.length).toBeGreaterThan(0);
        } else {
          expect(result.reason).toMatch(/\S/);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('never throws on strings made of address-like characters and prefixes', () => {
    const addressish = fc
      .tuple(
        fc.constantFrom('', '0x', 'bc1', 'BC1', 'bitcoincash:', 'q', '0:', '-1:', 'EQ', 'UQ', '1', '3', 'D'),
        fc.string({
          unit: fc.constantFrom(...'0123456789abcdefABCDEFqpzry9x8gf2tvdw0s3jn54khce6mua7l_-+/:'),
          maxLength: 90,
        }),
      )
      .map(([prefix, body]) => prefix + body);
    fc.assert(
      fc.property(addressish, (input) => {
        expect(typeof parseAddress(input).ok).toBe('boolean');
      }),
      { numRuns: 2000 },
    );
  });

  it('rejects every input longer than 128 characters', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 129, maxLength: 2000 }), (input) => {
        expect(parseAddress(input).ok).toBe(false);
      }),
    );
  });

  it('parseTokenAddress never throws either', () => {
    fc.assert(
      fc.property(fc.constantFrom(...CHAIN_IDS), fc.string({ unit: 'binary', maxLength: 300 }), (chain, input) => {
        expect(typeof parseTokenAddress(chain, input).ok).toBe('boolean');
      }),
    );
  });
});

describe('canonical forms of generated valid addresses', () => {
  it('every spelling parses to the expected family and canonical form', () => {
    fc.assert(
      fc.property(validSample, ({ input, family, canonical }) => {
        const address = parsed(input);
        expect(address.family).toBe(family);
        expect(address.canonical).toBe(canonical);
      }),
      { numRuns: 1000 },
    );
  });

  it('canonicalisation is idempotent: the canonical form parses to itself with the same chains', () => {
    fc.assert(
      fc.property(validSample, ({ input }) => {
        const first = parsed(input);
        expect(parsed(first.canonical)).toEqual(first);
      }),
      { numRuns: 1000 },
    );
  });

  it('chains always come in CHAIN_IDS order', () => {
    fc.assert(
      fc.property(validSample, ({ input }) => {
        const { chains } = parsed(input);
        expect(chains).toEqual(CHAIN_IDS.filter((chain) => chains.includes(chain)));
      }),
    );
  });

  it('agrees with @solana/addresses on random 32-byte keys', () => {
    fc.assert(
      fc.property(solanaSample, ({ input }) => {
        expect(isSolanaAddress(input)).toBe(true);
        expect(parsed(input).family).toBe('solana');
      }),
    );
  });

  it('rejects a SegWit program under the other checksum variant (BIP-350)', () => {
    fc.assert(
      fc.property(
        segwitProgram.chain(([version, length]) => bytes(length).map((program) => ({ version, program }))),
        ({ version, program }) => {
          const wrongCoder = version === 0 ? bech32m : bech32;
          const wrong = wrongCoder.encode('bc', [version, ...wrongCoder.toWords(program)]);
          expect(parseAddress(wrong).ok).toBe(false);
        },
      ),
    );
  });
});

describe('checksums catch single-character typos', () => {
  const alphabets: Partial<Record<AddressFamily, string>> = {
    bitcoin_legacy: '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz',
    dogecoin: '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz',
    bitcoin_segwit: 'qpzry9x8gf2tvdw0s3jn54khce6mua7l',
    bitcoin_cash: 'qpzry9x8gf2tvdw0s3jn54khce6mua7l',
    ton: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_',
  };
  // Lowercase bech32/CashAddr spellings and the user-friendly TON form; raw TON has no checksum.
  const checksummed = fc
    .oneof(base58CheckSample, segwitSample, cashAddrSample, tonSample)
    .filter((sample) => (sample.family === 'ton' ? !sample.input.includes(':') : sample.input === sample.canonical));

  it('a changed character in the checksummed part is never accepted as a valid address of the same family', () => {
    fc.assert(
      fc.property(checksummed, fc.nat(), fc.nat(), (sample, position, replacement) => {
        const alphabet = alphabets[sample.family] ?? '';
        // Only the data after the human-readable part (if any) is protected by the checksum.
        const start = sample.input.lastIndexOf(sample.family === 'bitcoin_segwit' ? '1' : ':') + 1;
        const index = start + (position % (sample.input.length - start));
        const newChar = alphabet[replacement % alphabet.length] ?? '';
        // TON's two base64 alphabets spell 62 and 63 as "+/" and "-_": "/" → "_" is no typo.
        const value = (char: string | undefined) => ({ '+': '-', '/': '_' })[char ?? ''] ?? char;
        fc.pre(value(newChar) !== value(sample.input[index]));
        const typo = sample.input.slice(0, index) + newChar + sample.input.slice(index + 1);
        const result = parseAddress(typo);
        expect(result.ok && result.address.family === sample.family).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });

  it('flipping the case of one letter of a checksummed EVM address is rejected', () => {
    fc.assert(
      fc.property(bytes(20), fc.nat(), (payload, position) => {
        const checksummed = getAddress(`0x${hex.encode(payload)}`);
        const letters = [...checksummed.slice(2)].flatMap((char, index) => (/[a-f]/i.test(char) ? [index + 2] : []));
        fc.pre(letters.length > 1);
        const index = letters[position % letters.length] ?? 2;
        const char = checksummed.charAt(index);
        const flipped = char === char.toLowerCase() ? char.toUpperCase() : char.toLowerCase();
        const typo = checksummed.slice(0, index) + flipped + checksummed.slice(index + 1);
        const isSingleCase = typo === `0x${typo.slice(2).toLowerCase()}` || typo === `0x${typo.slice(2).toUpperCase()}`;
        fc.pre(!isSingleCase);
        expect(parseAddress(typo)).toEqual({ ok: false, reason: 'EIP-55 checksum mismatch' });
      }),
    );
  });
});
