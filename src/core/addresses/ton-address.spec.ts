import { Address } from '@ton/core';
import fc from 'fast-check';
import { parseTonAddress, tonFriendlyAddress } from './ton-address';

describe('tonFriendlyAddress', () => {
  it('writes a raw address bounceable and base64url, as @ton/core does, and parses back to it', () => {
    fc.assert(
      fc.property(fc.constantFrom('0', '-1'), fc.stringMatching(/^[0-9a-f]{64}$/), (workchain, hash) => {
        const raw = `${workchain}:${hash}`;
        const friendly = tonFriendlyAddress(raw);
        expect(friendly).toBe(Address.parseRaw(raw).toString({ urlSafe: true, bounceable: true }));
        expect(parseTonAddress(friendly)).toEqual(parseTonAddress(raw));
      }),
    );
  });

  it('refuses what is not a canonical raw address', () => {
    expect(() => tonFriendlyAddress('1:' + 'a'.repeat(64))).toThrow(/not a raw TON address/);
    expect(() => tonFriendlyAddress('0:' + 'a'.repeat(63))).toThrow(/not a raw TON address/);
  });
});
