import { CHAINS, type ChainId, type Explorer } from '../core/chains/chain-registry';

/**
 * Reference data chaintags seeds into its database on every start: the supported chains and the
 * tokens whose deployments it recognises on them. The chains and their native coins come from the
 * chain registry (`src/core/chains/chain-registry.ts`); the multi-chain stablecoins are listed here.
 *
 * Conventions every token follows:
 * - A chain's native coin is a deployment with `address: '0'`; every chain has exactly one.
 * - Every other `address` is in chaintags' canonical form for its chain:
 *   EVM chains: `0x` + 40 lowercase hex digits;
 *   Solana: the base58 mint address, as issued;
 *   TON: the raw form `0:` + 64 lowercase hex digits (not the user-friendly `EQ…` form);
 *   Sui: the full coin type, its address lowercase and padded to 64 hex digits, then
 *     `::module::Name` unchanged;
 *   Aptos: the fungible-asset metadata address, `0x` + 64 lowercase hex digits.
 * - A (chain, address) pair belongs to exactly one token.
 */

export interface DeploymentSeed {
  chain: ChainId;
  /** `'0'` for the chain's native coin, else the canonical contract / mint / coin-type form. */
  address: string;
  decimals: number;
}

export interface TokenSeed {
  /** CoinGecko-style slug. */
  id: string;
  name: string;
  symbol: string;
  icon_url: string;
  deployments: DeploymentSeed[];
}

/** The address chaintags records for a chain's native coin. */
export const NATIVE = '0';

/**
 * The explorers column as seeding and imports both write it: a JSON array of objects with the
 * keys in this order, so that equal lists are equal text.
 */
export function explorersJson(explorers: readonly Explorer[]): string {
  return JSON.stringify(explorers.map(({ name, url, tx_url, address_url }) => ({ name, url, tx_url, address_url })));
}

/**
 * One token per native coin, deployed with address `0` on every chain that has it (ETH on
 * Ethereum and the rollups), in registry order.
 */
function nativeTokens(): TokenSeed[] {
  const tokens = new Map<string, TokenSeed>();
  for (const chain of CHAINS) {
    const { coingeckoId, name, symbol, iconUrl, decimals } = chain.native;
    const token = tokens.get(coingeckoId) ?? { id: coingeckoId, name, symbol, icon_url: iconUrl, deployments: [] };
    token.deployments.push({ chain: chain.id, address: NATIVE, decimals });
    tokens.set(coingeckoId, token);
  }
  return [...tokens.values()];
}

const STABLECOIN_ICON = {
  tether: 'https://assets.coingecko.com/coins/images/325/large/Tether.png',
  usdc: 'https://assets.coingecko.com/coins/images/6319/large/usdc.png',
} as const;

/**
 * Stablecoins list only the issuer's own deployments (Tether's USDT, Circle's USDC, and on BNB
 * Smart Chain the Binance-Peg issuance CoinGecko lists under these ids), each address checked
 * against public sources. Left out on purpose:
 * - USDT on Base (`0xfde4…9bb2`): a third-party bridged token through Base's permissionless
 *   bridge, not issued or endorsed by Tether.
 * - USDT on Sui: no Tether issuance; the Sui Bridge token (`suiUSDT`) is a separate asset.
 * - USDT on Bitcoin (Omni Layer) and Bitcoin Cash (SLP): discontinued by Tether, and neither is
 *   addressed by a contract address on the chain itself.
 * - USDC on TON, Dogecoin, Bitcoin and Bitcoin Cash: Circle issues none.
 * - Bridged USDC variants (USDC.e on Polygon, Arbitrum and OP Mainnet) are separate tokens, not
 *   Circle's native USDC.
 */
const STABLECOINS: readonly TokenSeed[] = [
  {
    id: 'tether',
    name: 'Tether',
    symbol: 'USDT',
    icon_url: STABLECOIN_ICON.tether,
    deployments: [
      { chain: 'ethereum', address: '0xdac17f958d2ee523a2206206994597c13d831ec7', decimals: 6 },
      // BEP-20 USDT on BNB Smart Chain uses 18 decimals, unlike the other chains.
      { chain: 'bnb', address: '0x55d398326f99059ff775485246999027b3197955', decimals: 18 },
      { chain: 'solana', address: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB', decimals: 6 },
      // Jetton master; user-friendly form EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs.
      {
        chain: 'ton',
        address: '0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe',
        decimals: 6,
      },
      { chain: 'polygon', address: '0xc2132d05d31c914a87c6611c10748aeb04b58e8f', decimals: 6 },
      { chain: 'arbitrum', address: '0xfd086bc7cd5c481dcc9c85ebe478a1c0b69fcbb9', decimals: 6 },
      { chain: 'optimism', address: '0x94b008aa00579c1307b0ef2c499ad98a8ce58e58', decimals: 6 },
      // Native USDt fungible asset; the address is its metadata object.
      {
        chain: 'aptos',
        address: '0x357b0b74bc833e95a115ad22604854d6b0fca151cecd94111770e5d6ffc9dc2b',
        decimals: 6,
      },
    ],
  },
  {
    id: 'usd-coin',
    name: 'USDC',
    symbol: 'USDC',
    icon_url: STABLECOIN_ICON.usdc,
    deployments: [
      { chain: 'ethereum', address: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', decimals: 6 },
      // Binance-Peg USDC, 18 decimals.
      { chain: 'bnb', address: '0x8ac76a51cc950d9822d68b83fe1ad97b32cd580d', decimals: 18 },
      { chain: 'solana', address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', decimals: 6 },
      // Circle's native USDC on each of the EVM networks below (not the bridged USDC.e).
      { chain: 'polygon', address: '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359', decimals: 6 },
      { chain: 'arbitrum', address: '0xaf88d065e77c8cc2239327c5edb3a432268e5831', decimals: 6 },
      { chain: 'optimism', address: '0x0b2c639c533813f4aa9d7837caf62653d097ff85', decimals: 6 },
      { chain: 'base', address: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', decimals: 6 },
      {
        chain: 'sui',
        address: '0xdba34672e30cb065b1f93e3ab55318768fd6fef66c15942c9f7cb846e2f900e7::usdc::USDC',
        decimals: 6,
      },
      // Fungible-asset metadata address.
      {
        chain: 'aptos',
        address: '0xbae207659db88bea0cbead6da0ed00aac12edcdda169e591cd41c94180b46f3b',
        decimals: 6,
      },
    ],
  },
];

/** The tokens chaintags recognises, sorted by id: every native coin and the stablecoins. */
export const TOKENS: readonly TokenSeed[] = [...nativeTokens(), ...STABLECOINS].sort((a, b) =>
  a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
);
