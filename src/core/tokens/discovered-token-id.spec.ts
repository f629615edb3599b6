import { discoveredTokenId } from './discovered-token-id';

const TOKEN_ID = /^[a-z0-9]+(-[a-z0-9]+)*$/;

describe('discoveredTokenId', () => {
  it('is <chain>-<address>, spelled as a token id may be', () => {
    const evm = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
    expect(discoveredTokenId('ethereum', evm)).toBe(`ethereum-${evm}`);
    expect(discoveredTokenId('base', evm)).toBe(`base-${evm}`);
    expect(discoveredTokenId('solana', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toBe(
      'solana-epjfwdd5aufqssqem2qn1xzybapc8g4weggkzwytdt1v',
    );
    expect(discoveredTokenId('ton', `0:${'ab'.repeat(32)}`)).toBe(`ton-0-${'ab'.repeat(32)}`);
    expect(discoveredTokenId('aptos', `0x${'c'.repeat(64)}`)).toBe(`aptos-0x${'c'.repeat(64)}`);
    expect(discoveredTokenId('sui', `0x${'d'.repeat(64)}::usdc::USDC`)).toBe(`sui-${'d'.repeat(64)}-usdc-usdc`);
  });

  it('hashes a coin type too long for a token id', () => {
    const long = `0x${'e'.repeat(64)}::a_very_long_module_name::A_Very_Long_Coin_Name_Indeed`;
    const id = discoveredTokenId('sui', long);
    expect(id).toMatch(new RegExp(`^sui-${'e'.repeat(64)}-[0-9a-f]{16}$`));
    expect(id.length).toBeLessThanOrEqual(100);
    expect(discoveredTokenId('sui', `${long}s`)).not.toBe(id);
    expect([id, discoveredTokenId('sui', `0x${'d'.repeat(64)}::usdc::USDC`)].every((one) => TOKEN_ID.test(one))).toBe(
      true,
    );
  });
});
