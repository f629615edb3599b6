import type { ChainId } from '../core/chains/chain-ids';

/**
 * Reference data chaintags seeds into its database: the thirteen supported chains (with their
 * block explorers) and the tokens whose deployments it recognises on them.
 *
 * Conventions every entry here follows:
 * - An explorer's `tx_url` holds the literal `{{tx_id}}` and its `address_url` the literal
 *   `{{address}}`; chaintags substitutes the value in place of the placeholder.
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

export interface ExplorerSeed {
  name: string;
  url: string;
  tx_url: string;
  address_url: string;
}

export interface ChainSeed {
  chain: ChainId;
  /** EIP-155 chain id for EVM chains; -1 for every chain that has none. */
  chainId: number;
  name: string;
  icon_url: string;
  native_decimals: number;
  explorers: ExplorerSeed[];
}

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
const NATIVE = '0';

// Coin icons (CoinGecko's image CDN), shared by the tokens and by the chains whose icon is
// their native coin's.
const ICON = {
  bitcoin: 'https://assets.coingecko.com/coins/images/1/large/bitcoin.png',
  ethereum: 'https://assets.coingecko.com/coins/images/279/large/ethereum.png',
  bnb: 'https://assets.coingecko.com/coins/images/825/large/bnb-icon2_2x.png',
  solana: 'https://assets.coingecko.com/coins/images/4128/large/solana.png',
  dogecoin: 'https://assets.coingecko.com/coins/images/5/large/dogecoin.png',
  bitcoinCash: 'https://assets.coingecko.com/coins/images/780/large/bitcoin-cash-circle.png',
  toncoin: 'https://assets.coingecko.com/coins/images/17980/large/ton_symbol.png',
  pol: 'https://assets.coingecko.com/coins/images/32440/large/pol.png',
  arbitrum: 'https://assets.coingecko.com/coins/images/16547/large/arb.jpg',
  optimism: 'https://assets.coingecko.com/coins/images/25244/large/Optimism.png',
  sui: 'https://assets.coingecko.com/coins/images/26375/large/sui-ocean-square.png',
  aptos: 'https://assets.coingecko.com/coins/images/26455/large/aptos_round.png',
  tether: 'https://assets.coingecko.com/coins/images/325/large/Tether.png',
  usdc: 'https://assets.coingecko.com/coins/images/6319/large/usdc.png',
} as const;

/**
 * The supported chains, in `CHAIN_IDS` order. Arbitrum and OP Mainnet carry their network
 * token's logo (ARB, OP); Base, which has no token of its own, carries ETH's, its native coin.
 */
export const CHAINS: readonly ChainSeed[] = [
  {
    chain: 'bitcoin',
    chainId: -1,
    name: 'Bitcoin',
    icon_url: ICON.bitcoin,
    native_decimals: 8,
    explorers: [
      {
        name: 'mempool.space',
        url: 'https://mempool.space',
        tx_url: 'https://mempool.space/tx/{{tx_id}}',
        address_url: 'https://mempool.space/address/{{address}}',
      },
      {
        name: 'Blockstream Explorer',
        url: 'https://blockstream.info',
        tx_url: 'https://blockstream.info/tx/{{tx_id}}',
        address_url: 'https://blockstream.info/address/{{address}}',
      },
    ],
  },
  {
    chain: 'ethereum',
    chainId: 1,
    name: 'Ethereum',
    icon_url: ICON.ethereum,
    native_decimals: 18,
    explorers: [
      {
        name: 'Etherscan',
        url: 'https://etherscan.io',
        tx_url: 'https://etherscan.io/tx/{{tx_id}}',
        address_url: 'https://etherscan.io/address/{{address}}',
      },
    ],
  },
  {
    chain: 'bnb',
    chainId: 56,
    name: 'BNB Smart Chain',
    icon_url: ICON.bnb,
    native_decimals: 18,
    explorers: [
      {
        name: 'BscScan',
        url: 'https://bscscan.com',
        tx_url: 'https://bscscan.com/tx/{{tx_id}}',
        address_url: 'https://bscscan.com/address/{{address}}',
      },
    ],
  },
  {
    chain: 'solana',
    chainId: -1,
    name: 'Solana',
    icon_url: ICON.solana,
    native_decimals: 9,
    explorers: [
      {
        name: 'Solscan',
        url: 'https://solscan.io',
        tx_url: 'https://solscan.io/tx/{{tx_id}}',
        address_url: 'https://solscan.io/account/{{address}}',
      },
      {
        name: 'Solana Explorer',
        url: 'https://explorer.solana.com',
        tx_url: 'https://explorer.solana.com/tx/{{tx_id}}',
        address_url: 'https://explorer.solana.com/address/{{address}}',
      },
    ],
  },
  {
    chain: 'dogecoin',
    chainId: -1,
    name: 'Dogecoin',
    icon_url: ICON.dogecoin,
    native_decimals: 8,
    explorers: [
      {
        name: 'Blockchair',
        url: 'https://blockchair.com/dogecoin',
        tx_url: 'https://blockchair.com/dogecoin/transaction/{{tx_id}}',
        address_url: 'https://blockchair.com/dogecoin/address/{{address}}',
      },
      {
        name: 'Dogechain',
        url: 'https://dogechain.info',
        tx_url: 'https://dogechain.info/tx/{{tx_id}}',
        address_url: 'https://dogechain.info/address/{{address}}',
      },
    ],
  },
  {
    chain: 'bitcoincash',
    chainId: -1,
    name: 'Bitcoin Cash',
    icon_url: ICON.bitcoinCash,
    native_decimals: 8,
    explorers: [
      {
        name: 'Blockchair',
        url: 'https://blockchair.com/bitcoin-cash',
        tx_url: 'https://blockchair.com/bitcoin-cash/transaction/{{tx_id}}',
        address_url: 'https://blockchair.com/bitcoin-cash/address/{{address}}',
      },
      {
        name: 'Bitcoin.com Explorer',
        url: 'https://explorer.bitcoin.com/bch',
        tx_url: 'https://explorer.bitcoin.com/bch/tx/{{tx_id}}',
        address_url: 'https://explorer.bitcoin.com/bch/address/{{address}}',
      },
    ],
  },
  {
    chain: 'ton',
    chainId: -1,
    name: 'TON',
    icon_url: ICON.toncoin,
    native_decimals: 9,
    explorers: [
      {
        name: 'Tonviewer',
        url: 'https://tonviewer.com',
        tx_url: 'https://tonviewer.com/transaction/{{tx_id}}',
        address_url: 'https://tonviewer.com/{{address}}',
      },
      {
        name: 'Tonscan',
        url: 'https://tonscan.org',
        tx_url: 'https://tonscan.org/tx/{{tx_id}}',
        address_url: 'https://tonscan.org/address/{{address}}',
      },
    ],
  },
  {
    chain: 'polygon',
    chainId: 137,
    name: 'Polygon',
    icon_url: ICON.pol,
    native_decimals: 18,
    explorers: [
      {
        name: 'PolygonScan',
        url: 'https://polygonscan.com',
        tx_url: 'https://polygonscan.com/tx/{{tx_id}}',
        address_url: 'https://polygonscan.com/address/{{address}}',
      },
    ],
  },
  {
    chain: 'arbitrum',
    chainId: 42161,
    name: 'Arbitrum One',
    icon_url: ICON.arbitrum,
    native_decimals: 18,
    explorers: [
      {
        name: 'Arbiscan',
        url: 'https://arbiscan.io',
        tx_url: 'https://arbiscan.io/tx/{{tx_id}}',
        address_url: 'https://arbiscan.io/address/{{address}}',
      },
    ],
  },
  {
    chain: 'optimism',
    chainId: 10,
    name: 'OP Mainnet',
    icon_url: ICON.optimism,
    native_decimals: 18,
    explorers: [
      {
        name: 'Optimistic Etherscan',
        url: 'https://optimistic.etherscan.io',
        tx_url: 'https://optimistic.etherscan.io/tx/{{tx_id}}',
        address_url: 'https://optimistic.etherscan.io/address/{{address}}',
      },
    ],
  },
  {
    chain: 'base',
    chainId: 8453,
    name: 'Base',
    icon_url: ICON.ethereum,
    native_decimals: 18,
    explorers: [
      {
        name: 'BaseScan',
        url: 'https://basescan.org',
        tx_url: 'https://basescan.org/tx/{{tx_id}}',
        address_url: 'https://basescan.org/address/{{address}}',
      },
    ],
  },
  {
    chain: 'sui',
    chainId: -1,
    name: 'Sui',
    icon_url: ICON.sui,
    native_decimals: 9,
    explorers: [
      {
        name: 'Suiscan',
        url: 'https://suiscan.xyz/mainnet',
        tx_url: 'https://suiscan.xyz/mainnet/tx/{{tx_id}}',
        address_url: 'https://suiscan.xyz/mainnet/account/{{address}}',
      },
      {
        name: 'SuiVision',
        url: 'https://suivision.xyz',
        tx_url: 'https://suivision.xyz/txblock/{{tx_id}}',
        address_url: 'https://suivision.xyz/account/{{address}}',
      },
    ],
  },
  {
    chain: 'aptos',
    chainId: -1,
    name: 'Aptos',
    icon_url: ICON.aptos,
    native_decimals: 8,
    explorers: [
      {
        name: 'Aptos Explorer',
        url: 'https://explorer.aptoslabs.com/?network=mainnet',
        tx_url: 'https://explorer.aptoslabs.com/txn/{{tx_id}}?network=mainnet',
        address_url: 'https://explorer.aptoslabs.com/account/{{address}}?network=mainnet',
      },
    ],
  },
];

/**
 * The tokens chaintags recognises, sorted by id.
 *
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
export const TOKENS: readonly TokenSeed[] = [
  {
    id: 'aptos',
    name: 'Aptos',
    symbol: 'APT',
    icon_url: ICON.aptos,
    deployments: [{ chain: 'aptos', address: NATIVE, decimals: 8 }],
  },
  {
    id: 'binancecoin',
    name: 'BNB',
    symbol: 'BNB',
    icon_url: ICON.bnb,
    deployments: [{ chain: 'bnb', address: NATIVE, decimals: 18 }],
  },
  {
    id: 'bitcoin',
    name: 'Bitcoin',
    symbol: 'BTC',
    icon_url: ICON.bitcoin,
    deployments: [{ chain: 'bitcoin', address: NATIVE, decimals: 8 }],
  },
  {
    id: 'bitcoin-cash',
    name: 'Bitcoin Cash',
    symbol: 'BCH',
    icon_url: ICON.bitcoinCash,
    deployments: [{ chain: 'bitcoincash', address: NATIVE, decimals: 8 }],
  },
  {
    id: 'dogecoin',
    name: 'Dogecoin',
    symbol: 'DOGE',
    icon_url: ICON.dogecoin,
    deployments: [{ chain: 'dogecoin', address: NATIVE, decimals: 8 }],
  },
  {
    id: 'ethereum',
    name: 'Ethereum',
    symbol: 'ETH',
    icon_url: ICON.ethereum,
    // ETH is the native coin of Ethereum and of the three rollups chaintags supports.
    deployments: [
      { chain: 'ethereum', address: NATIVE, decimals: 18 },
      { chain: 'arbitrum', address: NATIVE, decimals: 18 },
      { chain: 'optimism', address: NATIVE, decimals: 18 },
      { chain: 'base', address: NATIVE, decimals: 18 },
    ],
  },
  {
    id: 'polygon-ecosystem-token',
    name: 'POL (ex-MATIC)',
    symbol: 'POL',
    icon_url: ICON.pol,
    deployments: [{ chain: 'polygon', address: NATIVE, decimals: 18 }],
  },
  {
    id: 'solana',
    name: 'Solana',
    symbol: 'SOL',
    icon_url: ICON.solana,
    deployments: [{ chain: 'solana', address: NATIVE, decimals: 9 }],
  },
  {
    id: 'sui',
    name: 'Sui',
    symbol: 'SUI',
    icon_url: ICON.sui,
    deployments: [{ chain: 'sui', address: NATIVE, decimals: 9 }],
  },
  {
    id: 'tether',
    name: 'Tether',
    symbol: 'USDT',
    icon_url: ICON.tether,
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
    id: 'the-open-network',
    name: 'Toncoin',
    symbol: 'TON',
    icon_url: ICON.toncoin,
    deployments: [{ chain: 'ton', address: NATIVE, decimals: 9 }],
  },
  {
    id: 'usd-coin',
    name: 'USDC',
    symbol: 'USDC',
    icon_url: ICON.usdc,
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
