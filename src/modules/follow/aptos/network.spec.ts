import { chainIdMismatch, LOCALNET_CHAIN_ID, MAINNET_CHAIN_ID } from './network';

describe('chainIdMismatch (Aptos)', () => {
  it('takes chain id 1 on mainnet and 4 on localnet, nothing else', () => {
    expect(chainIdMismatch('mainnet', MAINNET_CHAIN_ID)).toBeUndefined();
    expect(chainIdMismatch('localnet', LOCALNET_CHAIN_ID)).toBeUndefined();
    expect(chainIdMismatch('mainnet', 2)).toBe("NETWORK_APTOS is mainnet, but the node's chain id 2 is testnet's");
    expect(chainIdMismatch('mainnet', 4)).toBe(
      "NETWORK_APTOS is mainnet, but the node's chain id 4 is a local network's",
    );
    expect(chainIdMismatch('localnet', 1)).toBe("NETWORK_APTOS is localnet, but the node's chain id 1 is mainnet's");
    expect(chainIdMismatch('localnet', 57)).toBe(
      "NETWORK_APTOS is localnet, but the node's chain id 57 is not a network chaintags follows",
    );
  });
});
