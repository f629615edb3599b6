import { isAddress as isSolanaAddress } from '@solana/addresses';
import { Address as TonAddress } from '@ton/core';
import { getAddress } from 'viem';
import { CHAIN_IDS, isChainId, type ChainId } from '../core/chains/chain-ids';
import { CHAINS } from '../core/chains/chain-registry';
import { explorersJson, TOKENS, type DeploymentSeed } from './reference-data';

/** Contract §9: the EIP-155 chain id of each EVM chain; every other chain has -1. */
const CONTRACT_EVM_CHAIN_IDS: Partial<Record<ChainId, number>> = {
  ethereum: 1,
  bnb: 56,
  polygon: 137,
  arbitrum: 42161,
  optimism: 10,
  base: 8453,
};

/** Contract §9: the decimals of each chain's native token, in the table's (and the API's) order. */
const CONTRACT_NATIVE_DECIMALS: Record<ChainId, number> = {
  bitcoin: 8,
  ethereum: 18,
  bnb: 18,
  solana: 9,
  dogecoin: 8,
  bitcoincash: 8,
  ton: 9,
  polygon: 18,
  arbitrum: 18,
  optimism: 18,
  base: 18,
  sui: 9,
  aptos: 8,
};

/** Contract §5: the shipped native coins' token ids. */
const CONTRACT_NATIVE_TOKENS = [
  'bitcoin',
  'ethereum',
  'binancecoin',
  'polygon-ecosystem-token',
  'solana',
  'dogecoin',
  'bitcoin-cash',
  'the-open-network',
  'sui',
  'aptos',
];

/**
 * The EIP-55 checksummed form of every EVM contract in the seed, as the issuers and explorers
 * publish it. A lowercase seed address whose checksum does not come out as this string differs
 * from the published contract by at least one hex digit.
 */
const PUBLISHED_CHECKSUMS: Record<string, string> = {
  'tether@ethereum': '0xdAC17F958D2ee523a2206206994597C13D831ec7',
  'tether@bnb': '0x55d398326f99059fF775485246999027B3197955',
  'tether@polygon': '0xc2132D05D31c914a87C6611C10748AEb04B58e8F',
  'tether@arbitrum': '0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9',
  'tether@optimism': '0x94b008aA00579c1307B0EF2c499aD98a8ce58e58',
  'usd-coin@ethereum': '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
  'usd-coin@bnb': '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d',
  'usd-coin@polygon': '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
  'usd-coin@arbitrum': '0xaf88d065e77c8cC2239327C5EDb3A432268e5831',
  'usd-coin@optimism': '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85',
  'usd-coin@base': '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
};

/** Tether's USDT jetton master on TON, in the user-friendly form Tether publishes. */
const TON_USDT_FRIENDLY = 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs';

const isEvm = (chain: ChainId): boolean => CONTRACT_EVM_CHAIN_IDS[chain] !== undefined;

const allDeployments: { token: string; deployment: DeploymentSeed }[] = TOKENS.flatMap((token) =>
  token.deployments.map((deployment) => ({ token: token.id, deployment })),
);

const contractDeployments = allDeployments.filter(({ deployment }) => deployment.address !== '0');

/** The contract (non-native) addresses seeded on the chains `onChain` accepts. */
function contractAddressesOn(onChain: (chain: ChainId) => boolean): string[] {
  return contractDeployments
    .filter(({ deployment }) => onChain(deployment.chain))
    .map(({ deployment }) => deployment.address);
}

function deploymentOf(token: string, chain: ChainId): DeploymentSeed | undefined {
  return TOKENS.find((t) => t.id === token)?.deployments.find((d) => d.chain === chain);
}

describe('reference data: chains', () => {
  it('lists the chains in the order of contract §9', () => {
    expect(CHAINS.map((chain) => chain.id)).toEqual(Object.keys(CONTRACT_NATIVE_DECIMALS));
  });

  it('gives EVM chains their EIP-155 id (contract §9) and every other chain -1', () => {
    expect(CHAINS.map((chain) => [chain.id, chain.chainId])).toEqual(
      CHAIN_IDS.map((chain) => [chain, CONTRACT_EVM_CHAIN_IDS[chain] ?? -1]),
    );
  });

  it('gives each chain the native decimals of contract §9', () => {
    expect(CHAINS.map((chain) => [chain.id, chain.native.decimals])).toEqual(
      CHAIN_IDS.map((chain) => [chain, CONTRACT_NATIVE_DECIMALS[chain]]),
    );
  });

  it('has a name and an https icon for every chain', () => {
    for (const chain of CHAINS) {
      expect(chain.name.trim()).not.toBe('');
      expect(new URL(chain.iconUrl).protocol).toBe('https:');
    }
  });

  it('has at least one explorer per chain, each with https URLs and both placeholders', () => {
    for (const chain of CHAINS) {
      expect(chain.explorers.length).toBeGreaterThanOrEqual(1);
      for (const explorer of chain.explorers) {
        expect(explorer.name.trim()).not.toBe('');
        for (const url of [explorer.url, explorer.tx_url, explorer.address_url]) {
          expect(url.startsWith('https://')).toBe(true);
        }
        expect(explorer.tx_url).toContain('{{tx_id}}');
        expect(explorer.address_url).toContain('{{address}}');
        // The templates must stay valid URLs once a value is put in place of the placeholder,
        // and point at the explorer's own host.
        const host = new URL(explorer.url).host;
        expect(new URL(explorer.tx_url.replace('{{tx_id}}', 'abc123')).host).toBe(host);
        expect(new URL(explorer.address_url.replace('{{address}}', 'abc123')).host).toBe(host);
      }
    }
  });

  it('stores explorers as the API serves them: name, url, tx_url, address_url, nothing else', () => {
    for (const chain of CHAINS) {
      const stored = JSON.parse(explorersJson(chain.explorers)) as Record<string, unknown>[];
      expect(stored).toEqual(chain.explorers);
      for (const explorer of stored) expect(Object.keys(explorer)).toEqual(['name', 'url', 'tx_url', 'address_url']);
    }
  });
});

describe('reference data: tokens', () => {
  it('has unique token ids, sorted', () => {
    const ids = TOKENS.map((t) => t.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort());
  });

  it('has a name, a symbol and an https icon for every token', () => {
    for (const token of TOKENS) {
      expect(token.name.trim()).not.toBe('');
      expect(token.symbol).toMatch(/^[A-Z0-9]+$/);
      expect(new URL(token.icon_url).protocol).toBe('https:');
      expect(token.deployments.length).toBeGreaterThanOrEqual(1);
    }
  });

  it('only deploys on supported chains', () => {
    for (const { deployment } of allDeployments) {
      expect(isChainId(deployment.chain)).toBe(true);
    }
  });

  it('lists each token’s deployments in CHAIN_IDS order', () => {
    for (const token of TOKENS) {
      const chains = token.deployments.map((d) => d.chain);
      expect(chains).toEqual(CHAIN_IDS.filter((c) => chains.includes(c)));
    }
  });

  it('gives each (chain, address) pair to exactly one token', () => {
    const pairs = allDeployments.map(({ deployment }) => `${deployment.chain}|${deployment.address}`);
    expect(new Set(pairs).size).toBe(pairs.length);
  });

  it('has exactly one native deployment per chain, with the decimals of contract §9', () => {
    for (const chain of CHAIN_IDS) {
      const natives = allDeployments.filter(
        ({ deployment }) => deployment.chain === chain && deployment.address === '0',
      );
      expect({ chain, count: natives.length }).toEqual({ chain, count: 1 });
      expect({ chain, decimals: natives[0]?.deployment.decimals }).toEqual({
        chain,
        decimals: CONTRACT_NATIVE_DECIMALS[chain],
      });
    }
  });

  it('ships the native coins of contract §5, each one token with one name, symbol and icon', () => {
    const natives = TOKENS.filter((token) => token.deployments.some((d) => d.address === '0'));
    expect(natives.map((token) => token.id).sort()).toEqual([...CONTRACT_NATIVE_TOKENS].sort());
    for (const token of natives) {
      // A native coin is no contract: the token has no other deployment.
      expect(token.deployments.every((d) => d.address === '0')).toBe(true);
      for (const chain of CHAINS.filter((c) => c.native.coingeckoId === token.id)) {
        expect({
          chain: chain.id,
          name: chain.native.name,
          symbol: chain.native.symbol,
          icon: chain.native.iconUrl,
        }).toEqual({ chain: chain.id, name: token.name, symbol: token.symbol, icon: token.icon_url });
      }
    }
  });

  it('makes ETH the native coin of Ethereum, Arbitrum, OP Mainnet and Base', () => {
    for (const chain of ['ethereum', 'arbitrum', 'optimism', 'base'] as const) {
      expect(deploymentOf('ethereum', chain)).toEqual({ chain, address: '0', decimals: 18 });
    }
    expect(deploymentOf('polygon-ecosystem-token', 'polygon')?.address).toBe('0');
    expect(deploymentOf('binancecoin', 'bnb')?.address).toBe('0');
  });

  it('uses whole, sane decimals', () => {
    for (const { deployment } of allDeployments) {
      expect(Number.isInteger(deployment.decimals)).toBe(true);
      expect(deployment.decimals).toBeGreaterThanOrEqual(0);
      expect(deployment.decimals).toBeLessThanOrEqual(18);
    }
  });

  it('gives USDT 6 decimals on Ethereum and 18 on BNB Smart Chain', () => {
    expect(deploymentOf('tether', 'ethereum')?.decimals).toBe(6);
    expect(deploymentOf('tether', 'bnb')?.decimals).toBe(18);
    expect(deploymentOf('usd-coin', 'bnb')?.decimals).toBe(18);
  });
});

describe('reference data: address forms', () => {
  it('writes EVM contracts as lowercase 0x + 40 hex', () => {
    const addresses = contractAddressesOn(isEvm);
    expect(addresses.length).toBeGreaterThan(0);
    for (const address of addresses) expect(address).toMatch(/^0x[0-9a-f]{40}$/);
  });

  it('round-trips every EVM contract through its EIP-55 checksum, matching the published form', () => {
    const evm = contractDeployments.filter(({ deployment }) => isEvm(deployment.chain));
    for (const { token, deployment } of evm) {
      const key = `${token}@${deployment.chain}`;
      const checksummed = getAddress(deployment.address);
      expect(checksummed.toLowerCase()).toBe(deployment.address);
      expect({ key, checksummed }).toEqual({ key, checksummed: PUBLISHED_CHECKSUMS[key] });
    }
    // Every published form listed above is in the seed.
    const seeded = new Set(evm.map(({ token, deployment }) => `${token}@${deployment.chain}`));
    expect(Object.keys(PUBLISHED_CHECKSUMS).filter((key) => !seeded.has(key))).toEqual([]);
  });

  it('writes Solana mints as base58 addresses', () => {
    const addresses = contractAddressesOn((chain) => chain === 'solana');
    expect(addresses.length).toBeGreaterThan(0);
    for (const address of addresses) expect(isSolanaAddress(address)).toBe(true);
  });

  it('writes TON jettons in raw form, converted from the published user-friendly form', () => {
    const addresses = contractAddressesOn((chain) => chain === 'ton');
    expect(addresses.length).toBeGreaterThan(0);
    for (const address of addresses) expect(address).toMatch(/^0:[0-9a-f]{64}$/);
    expect(deploymentOf('tether', 'ton')?.address).toBe(TonAddress.parse(TON_USDT_FRIENDLY).toRawString());
  });

  it('writes Sui coin types with a full 64-digit lowercase address', () => {
    const addresses = contractAddressesOn((chain) => chain === 'sui');
    expect(addresses.length).toBeGreaterThan(0);
    for (const address of addresses) {
      expect(address).toMatch(/^0x[0-9a-f]{64}::[A-Za-z_][A-Za-z0-9_]*::[A-Za-z_][A-Za-z0-9_]*$/);
    }
  });

  it('writes Aptos fungible assets as 0x + 64 lowercase hex', () => {
    const addresses = contractAddressesOn((chain) => chain === 'aptos');
    expect(addresses.length).toBeGreaterThan(0);
    for (const address of addresses) expect(address).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('has no contract deployments on the UTXO chains', () => {
    const utxo: readonly ChainId[] = ['bitcoin', 'dogecoin', 'bitcoincash'];
    expect(contractAddressesOn((chain) => utxo.includes(chain))).toEqual([]);
  });
});
