import { genesisMismatch, MAINNET_GENESIS_HASH } from './network';

const DEVNET = 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG';
const TESTNET = '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY';
const LOCAL = 'CTTestGenesis1111111111111111111111111111111';

describe('genesisMismatch', () => {
  it("accepts on mainnet mainnet-beta's genesis hash, and nothing else", () => {
    expect(genesisMismatch('mainnet', MAINNET_GENESIS_HASH)).toBeUndefined();
    expect(genesisMismatch('mainnet', DEVNET)).toBe(
      `NETWORK_SOLANA is mainnet, but the node's genesis hash (${DEVNET}) is not mainnet-beta's`,
    );
    expect(genesisMismatch('mainnet', LOCAL)).toMatch(/is not mainnet-beta's$/);
    // What is not a base58 hash is not repeated.
    expect(genesisMismatch('mainnet', '<html>')).toBe(
      "NETWORK_SOLANA is mainnet, but the node's genesis hash is not mainnet-beta's",
    );
  });

  it('accepts on localnet a node of its own genesis, and refuses mainnet-beta, devnet and testnet', () => {
    expect(genesisMismatch('localnet', LOCAL)).toBeUndefined();
    expect(genesisMismatch('localnet', MAINNET_GENESIS_HASH)).toBe(
      `NETWORK_SOLANA is localnet, but the node's genesis hash (${MAINNET_GENESIS_HASH}) is mainnet-beta's`,
    );
    expect(genesisMismatch('localnet', DEVNET)).toMatch(/is devnet's$/);
    expect(genesisMismatch('localnet', TESTNET)).toMatch(/is testnet's$/);
  });
});
