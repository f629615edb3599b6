import { CHAIN_IDS, ChainId } from '../chains/chain-ids';
import { parseTokenAddress, TokenAddressParseResult } from './token-address';

function canonicalToken(chain: ChainId, input: string): string {
  const result = parseTokenAddress(chain, input);
  if (!result.ok) throw new Error(`expected ${input} to be a token on ${chain}, got: ${result.reason}`);
  return result.canonical;
}

function reasonFor(result: TokenAddressParseResult): string {
  if (result.ok) throw new Error(`expected a rejection, got ${result.canonical}`);
  return result.reason;
}

const SUI_FRAMEWORK = `0x${'0'.repeat(63)}2`;
const APTOS_FRAMEWORK = `0x${'0'.repeat(63)}1`;

describe('parseTokenAddress', () => {
  it.each(CHAIN_IDS)('treats "0" as the native coin on %s', (chain) => {
    expect(canonicalToken(chain, '0')).toBe('0');
  });

  it('canonicalises contract addresses of the chain', () => {
    expect(canonicalToken('ethereum', '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48')).toBe(
      '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
    );
    expect(canonicalToken('solana', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toBe(
      'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    );
    expect(canonicalToken('ton', 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs')).toBe(
      '0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe',
    );
    expect(canonicalToken('sui', SUI_FRAMEWORK.toUpperCase().replace('0X', '0x'))).toBe(SUI_FRAMEWORK);
  });

  it('rejects an address of another chain, with the reason', () => {
    expect(reasonFor(parseTokenAddress('solana', '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'))).toBe(
      'an EVM address is not valid on solana',
    );
    expect(reasonFor(parseTokenAddress('ethereum', '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB4B'))).toBe(
      'EIP-55 checksum mismatch',
    );
  });

  it('pads and lowercases the address of a Sui coin type, keeping module and name as given', () => {
    expect(canonicalToken('sui', '0x2::sui::SUI')).toBe(`${SUI_FRAMEWORK}::sui::SUI`);
    expect(canonicalToken('sui', `${SUI_FRAMEWORK}::sui::SUI`)).toBe(`${SUI_FRAMEWORK}::sui::SUI`);
    expect(
      canonicalToken('sui', '0xDBA34672E30CB065B1F93E3AB55318768FD6FEF66C15942C9F7CB846E2F900E7::usdc::USDC'),
    ).toBe('0xdba34672e30cb065b1f93e3ab55318768fd6fef66c15942c9f7cb846e2f900e7::usdc::USDC');
  });

  it('accepts Aptos coin types the same way', () => {
    expect(canonicalToken('aptos', '0x1::aptos_coin::AptosCoin')).toBe(`${APTOS_FRAMEWORK}::aptos_coin::AptosCoin`);
    expect(canonicalToken('aptos', '0x01::_Mod_1::_Coin')).toBe(`${APTOS_FRAMEWORK}::_Mod_1::_Coin`);
  });

  it.each([
    '0x::sui::SUI',
    `0x${'0'.repeat(65)}::sui::SUI`,
    '0x2::1sui::SUI',
    '0x2::sui::SUI-',
    '0x2::sui',
    '0x2::sui::SUI::extra',
    '0x2::coin::Coin<0x2::sui::SUI>',
    '0xg::sui::SUI',
    '0x2::sui::SUI ',
    ' 0x2::sui::SUI',
    '0x2::sui::ŠUI',
  ])('rejects the malformed coin type %j', (input) => {
    expect(reasonFor(parseTokenAddress('sui', input))).toBe('coin type must look like 0x<address>::<module>::<Name>');
  });

  it('bounds coin type length', () => {
    const long = `0x2::sui::${'A'.repeat(300)}`;
    expect(reasonFor(parseTokenAddress('sui', long))).toBe('coin type is longer than 256 characters');
  });

  it('accepts coin types only on Sui and Aptos', () => {
    expect(parseTokenAddress('ethereum', '0x2::sui::SUI').ok).toBe(false);
    expect(parseTokenAddress('solana', '0x2::sui::SUI').ok).toBe(false);
  });

  it('rejects an unknown chain from untyped callers', () => {
    expect(reasonFor(parseTokenAddress('litecoin' as ChainId, '0'))).toBe('unsupported chain');
  });

  it('rejects the empty string and other non-tokens', () => {
    expect(reasonFor(parseTokenAddress('ethereum', ''))).toBe('address is empty');
    expect(parseTokenAddress('bitcoin', '00').ok).toBe(false);
  });
});
