import { chainFacts, EvmChain } from '../../core/chains/chain-registry';
import { tokenFromContract } from './token-discovery';

const base = chainFacts('base') as EvmChain;
const contract = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';

describe('tokenFromContract', () => {
  it('names a discovered token <chain>-<contract>, with what the contract says and the chain icon', () => {
    const token = tokenFromContract(base, contract, { name: 'USD Coin', symbol: 'USDC', decimals: 6 });
    expect(token).toEqual({
      type: 'token',
      id: `base-${contract}`,
      name: 'USD Coin',
      symbol: 'USDC',
      icon_url: base.iconUrl,
      deployments: [{ chain: 'base', address: contract, decimals: 6 }],
    });
  });

  it('makes any name and symbol a valid record: control characters gone, cut to the limits, never empty', () => {
    const token = tokenFromContract(base, contract, {
      name: `\u0000\u0007 ${'€'.repeat(150)}${'😀'.repeat(60)}`,
      symbol: '\u0000\u0000',
      decimals: 18,
    })!;
    expect(token.name.length).toBeLessThanOrEqual(200);
    expect(token.name).toMatch(/^€+😀+$/u);
    expect(token.symbol).toBe('UNKNOWN');
    expect(token.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    const unnamed = tokenFromContract(base, contract, undefined)!;
    expect(unnamed).toMatchObject({ name: contract, symbol: 'UNKNOWN', deployments: [{ decimals: 0 }] });
  });

  it('refuses a contract whose decimals no token record can hold', () => {
    expect(tokenFromContract(base, contract, { name: 'X', symbol: 'X', decimals: 79 })).toBeUndefined();
    expect(tokenFromContract(base, contract, { name: 'X', symbol: 'X', decimals: 78 })).toBeDefined();
  });
});
