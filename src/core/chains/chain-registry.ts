import type { AddressFamily } from '../addresses/families';

/**
 * The chain registry: everything chaintags knows about each supported chain, one entry per chain,
 * in the order `GET /v2/chains` lists them. Chain identifiers, address families, the seeded chains
 * and native coins, the docs and the test factories all derive from this list, so adding a chain
 * is one entry here (plus test vectors, and an address family if the chain brings a new one).
 */

/**
 * A block explorer, stored and served exactly as written here: `tx_url` holds the literal
 * `{{tx_id}}` and `address_url` the literal `{{address}}`, which clients replace with the value.
 */
export interface Explorer {
  readonly name: string;
  readonly url: string;
  readonly tx_url: string;
  readonly address_url: string;
}

/** A chain's native coin; chaintags records it as the token deployment with address `0`. */
export interface NativeToken {
  /** The token id: CoinGecko's id, so that the price poller can price it. */
  readonly coingeckoId: string;
  readonly name: string;
  readonly symbol: string;
  readonly decimals: number;
  readonly iconUrl: string;
}

interface ChainFacts<Id extends string> {
  readonly id: Id;
  /** Display name. */
  readonly name: string;
  readonly iconUrl: string;
  /**
   * The address families valid on the chain, the one its wallets hand out today first (test and
   * benchmark data write addresses in that family).
   */
  readonly families: readonly [AddressFamily, ...AddressFamily[]];
  readonly native: NativeToken;
  readonly explorers: readonly [Explorer, ...Explorer[]];
  /**
   * How many blocks behind the head a follower of the chain stays unless `CONFIRMATIONS_<CHAIN>`
   * says otherwise (contract §10). A follower undoes the reorganisations it meets anyway, so this
   * trades how fresh the data is against how often a written block has to be undone; the reason
   * for each value is beside it.
   */
  readonly defaultConfirmations: number;
}

/** A chain whose nodes speak the standard Ethereum JSON-RPC API: chaintags can follow it live. */
export interface EvmChainFacts<Id extends string = string> extends ChainFacts<Id> {
  /** EIP-155 chain id; a follower checks `eth_chainId` against it before writing anything. */
  readonly chainId: number;
  readonly rpc: 'evm-json-rpc';
  /** CoinGecko's asset platform id, for pricing the chain's tokens by contract address. */
  readonly coingeckoPlatform: string;
}

/**
 * A chain of the Bitcoin family whose nodes speak Bitcoin Core's JSON-RPC (bitcoind, Bitcoin Cash
 * Node, Dogecoin Core): chaintags follows it by output script (contract §13).
 */
export interface UtxoChainFacts<Id extends string = string> extends ChainFacts<Id> {
  /** -1: the chain has no EIP-155 chain id. */
  readonly chainId: -1;
  readonly rpc: 'bitcoin-json-rpc';
  readonly coingeckoPlatform?: undefined;
}

/**
 * Solana, whose nodes speak Solana's JSON-RPC: chaintags follows it at `finalized` commitment
 * (contract §16), by owner for token accounts.
 */
export interface SolanaChainFacts<Id extends string = string> extends ChainFacts<Id> {
  /** -1: the chain has no EIP-155 chain id. */
  readonly chainId: -1;
  readonly rpc: 'solana-json-rpc';
  /** CoinGecko's asset platform id, for pricing the tokens a follower discovers by their address. */
  readonly coingeckoPlatform: string;
}

/** TON, followed through a toncenter-compatible HTTP API v2 (contract §16). */
export interface TonChainFacts<Id extends string = string> extends ChainFacts<Id> {
  /** -1: the chain has no EIP-155 chain id. */
  readonly chainId: -1;
  readonly rpc: 'toncenter-http';
  /** CoinGecko's asset platform id, for pricing the tokens a follower discovers by their address. */
  readonly coingeckoPlatform: string;
}

/** Aptos, followed through its node API (REST, `/v1`): blocks are final when shown. */
export interface AptosChainFacts<Id extends string = string> extends ChainFacts<Id> {
  /** -1: the chain has no EIP-155 chain id. */
  readonly chainId: -1;
  readonly rpc: 'aptos-rest';
  /** CoinGecko's asset platform id, for pricing the tokens a follower discovers by their address. */
  readonly coingeckoPlatform: string;
}

/** Sui, followed through a full node's gRPC API (`sui.rpc.v2`): checkpoints are final when made. */
export interface SuiChainFacts<Id extends string = string> extends ChainFacts<Id> {
  /** -1: the chain has no EIP-155 chain id. */
  readonly chainId: -1;
  readonly rpc: 'sui-grpc';
  /** CoinGecko's asset platform id, for pricing the tokens a follower discovers by their address. */
  readonly coingeckoPlatform: string;
}

/** A chain without a node API chaintags can follow yet: its data arrives by import only. */
export interface OtherChainFacts<Id extends string = string> extends ChainFacts<Id> {
  /** -1: the chain has no EIP-155 chain id. */
  readonly chainId: -1;
  readonly rpc?: undefined;
  readonly coingeckoPlatform?: undefined;
}

export type ChainFactsOf<Id extends string = string> =
  | EvmChainFacts<Id>
  | UtxoChainFacts<Id>
  | SolanaChainFacts<Id>
  | TonChainFacts<Id>
  | AptosChainFacts<Id>
  | SuiChainFacts<Id>
  | OtherChainFacts<Id>;

/** How a followed chain's node is spoken to: each kind is one chain source (src/modules/follow). */
export type SourceKind = NonNullable<ChainFactsOf['rpc']>;

// Coin logos from CoinGecko's image CDN, shared by native coins and by the chains that show them.
const LOGO = {
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
} as const;

const BTC: NativeToken = { coingeckoId: 'bitcoin', name: 'Bitcoin', symbol: 'BTC', decimals: 8, iconUrl: LOGO.bitcoin };
/** ETH is the native coin of Ethereum and of the three rollups chaintags supports: one token, four chains. */
const ETH: NativeToken = {
  coingeckoId: 'ethereum',
  name: 'Ethereum',
  symbol: 'ETH',
  decimals: 18,
  iconUrl: LOGO.ethereum,
};
const BNB: NativeToken = { coingeckoId: 'binancecoin', name: 'BNB', symbol: 'BNB', decimals: 18, iconUrl: LOGO.bnb };
const SOL: NativeToken = { coingeckoId: 'solana', name: 'Solana', symbol: 'SOL', decimals: 9, iconUrl: LOGO.solana };
const DOGE: NativeToken = {
  coingeckoId: 'dogecoin',
  name: 'Dogecoin',
  symbol: 'DOGE',
  decimals: 8,
  iconUrl: LOGO.dogecoin,
};
const BCH: NativeToken = {
  coingeckoId: 'bitcoin-cash',
  name: 'Bitcoin Cash',
  symbol: 'BCH',
  decimals: 8,
  iconUrl: LOGO.bitcoinCash,
};
const TON: NativeToken = {
  coingeckoId: 'the-open-network',
  name: 'Toncoin',
  symbol: 'TON',
  decimals: 9,
  iconUrl: LOGO.toncoin,
};
const POL: NativeToken = {
  coingeckoId: 'polygon-ecosystem-token',
  name: 'POL (ex-MATIC)',
  symbol: 'POL',
  decimals: 18,
  iconUrl: LOGO.pol,
};
const SUI: NativeToken = { coingeckoId: 'sui', name: 'Sui', symbol: 'SUI', decimals: 9, iconUrl: LOGO.sui };
const APT: NativeToken = { coingeckoId: 'aptos', name: 'Aptos', symbol: 'APT', decimals: 8, iconUrl: LOGO.aptos };

/**
 * Confirmations of the chains that are not EVM: 6 blocks on the proof-of-work chains (the depth
 * Bitcoin wallets customarily wait for, kept for Bitcoin Cash and Dogecoin, longest-chain designs
 * derived from Bitcoin's); 0 on TON, Sui and Aptos, whose BFT consensus never reverts a committed
 * block or checkpoint;
 * 0 on Solana, whose follower reads only `finalized` (rooted) slots, which never roll back: the
 * node's commitment is the wait (about 32 slots, 13 s, behind the newest slot).
 *
 * Arbitrum One and OP Mainnet show their network token's logo (ARB, OP); Base, which has no token
 * of its own, shows ETH's, its native coin.
 */
const DEFINITIONS = [
  {
    id: 'bitcoin',
    name: 'Bitcoin',
    iconUrl: LOGO.bitcoin,
    families: ['bitcoin_segwit', 'bitcoin_legacy'],
    chainId: -1,
    native: BTC,
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
    defaultConfirmations: 6,
    rpc: 'bitcoin-json-rpc',
  },
  {
    id: 'ethereum',
    name: 'Ethereum',
    iconUrl: LOGO.ethereum,
    families: ['evm'],
    chainId: 1,
    native: ETH,
    explorers: [
      {
        name: 'Etherscan',
        url: 'https://etherscan.io',
        tx_url: 'https://etherscan.io/tx/{{tx_id}}',
        address_url: 'https://etherscan.io/address/{{address}}',
      },
    ],
    // The contract's example (§10): about 2.4 minutes of 12-second slots, far deeper than the
    // one-block reorganisations proof of stake sees at the head; waiting for finality (two epochs)
    // would keep followers some 13 minutes behind.
    defaultConfirmations: 12,
    rpc: 'evm-json-rpc',
    coingeckoPlatform: 'ethereum',
  },
  {
    id: 'bnb',
    name: 'BNB Smart Chain',
    iconUrl: LOGO.bnb,
    families: ['evm'],
    chainId: 56,
    native: BNB,
    explorers: [
      {
        name: 'BscScan',
        url: 'https://bscscan.com',
        tx_url: 'https://bscscan.com/tx/{{tx_id}}',
        address_url: 'https://bscscan.com/address/{{address}}',
      },
    ],
    // Fast finality (BEP-126) makes block n final by block n+2 when the validators' votes arrive
    // (BNB Chain's finality documentation); 15 leaves room for late votes and is still only a few
    // seconds of sub-2-second blocks.
    defaultConfirmations: 15,
    rpc: 'evm-json-rpc',
    coingeckoPlatform: 'binance-smart-chain',
  },
  {
    id: 'solana',
    name: 'Solana',
    iconUrl: LOGO.solana,
    families: ['solana'],
    chainId: -1,
    native: SOL,
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
    defaultConfirmations: 0,
    rpc: 'solana-json-rpc',
    coingeckoPlatform: 'solana',
  },
  {
    id: 'dogecoin',
    name: 'Dogecoin',
    iconUrl: LOGO.dogecoin,
    families: ['dogecoin'],
    chainId: -1,
    native: DOGE,
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
    defaultConfirmations: 6,
    rpc: 'bitcoin-json-rpc',
  },
  {
    id: 'bitcoincash',
    name: 'Bitcoin Cash',
    iconUrl: LOGO.bitcoinCash,
    families: ['bitcoin_cash', 'bitcoin_legacy'],
    chainId: -1,
    native: BCH,
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
    defaultConfirmations: 6,
    rpc: 'bitcoin-json-rpc',
  },
  {
    id: 'ton',
    name: 'TON',
    iconUrl: LOGO.toncoin,
    families: ['ton'],
    chainId: -1,
    native: TON,
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
    // Masterchain blocks are final when they appear (BFT), and so are the shard blocks they name.
    defaultConfirmations: 0,
    rpc: 'toncenter-http',
    coingeckoPlatform: 'the-open-network',
  },
  {
    id: 'polygon',
    name: 'Polygon',
    iconUrl: LOGO.pol,
    families: ['evm'],
    chainId: 137,
    native: POL,
    explorers: [
      {
        name: 'PolygonScan',
        url: 'https://polygonscan.com',
        tx_url: 'https://polygonscan.com/tx/{{tx_id}}',
        address_url: 'https://polygonscan.com/address/{{address}}',
      },
    ],
    // About a minute of 2-second blocks. Heimdall milestones make blocks final within seconds
    // (Polygon's finality documentation); the margin covers a late milestone, since before
    // milestones the chain's probabilistic finality saw reorganisations over a hundred blocks deep.
    defaultConfirmations: 32,
    rpc: 'evm-json-rpc',
    coingeckoPlatform: 'polygon-pos',
  },
  {
    id: 'arbitrum',
    name: 'Arbitrum One',
    iconUrl: LOGO.arbitrum,
    families: ['evm'],
    chainId: 42161,
    native: ETH,
    explorers: [
      {
        name: 'Arbiscan',
        url: 'https://arbiscan.io',
        tx_url: 'https://arbiscan.io/tx/{{tx_id}}',
        address_url: 'https://arbiscan.io/address/{{address}}',
      },
    ],
    // About a minute of quarter-second blocks. One sequencer orders the rollup's blocks, so a
    // sequenced block is only replaced if the sequencer fails before posting its batch to Ethereum;
    // waiting for L1 finality instead would keep followers more than a quarter of an hour behind.
    defaultConfirmations: 240,
    rpc: 'evm-json-rpc',
    coingeckoPlatform: 'arbitrum-one',
  },
  {
    id: 'optimism',
    name: 'OP Mainnet',
    iconUrl: LOGO.optimism,
    families: ['evm'],
    chainId: 10,
    native: ETH,
    explorers: [
      {
        name: 'Optimistic Etherscan',
        url: 'https://optimistic.etherscan.io',
        tx_url: 'https://optimistic.etherscan.io/tx/{{tx_id}}',
        address_url: 'https://optimistic.etherscan.io/address/{{address}}',
      },
    ],
    // About a minute of 2-second blocks, for the same reason as Arbitrum: a single sequencer's
    // "unsafe" blocks are only replaced when their batch fails to reach Ethereum in time.
    defaultConfirmations: 30,
    rpc: 'evm-json-rpc',
    coingeckoPlatform: 'optimistic-ethereum',
  },
  {
    id: 'base',
    name: 'Base',
    iconUrl: LOGO.ethereum,
    families: ['evm'],
    chainId: 8453,
    native: ETH,
    explorers: [
      {
        name: 'BaseScan',
        url: 'https://basescan.org',
        tx_url: 'https://basescan.org/tx/{{tx_id}}',
        address_url: 'https://basescan.org/address/{{address}}',
      },
    ],
    // An OP Stack rollup with 2-second blocks, like OP Mainnet.
    defaultConfirmations: 30,
    rpc: 'evm-json-rpc',
    coingeckoPlatform: 'base',
  },
  {
    id: 'sui',
    name: 'Sui',
    iconUrl: LOGO.sui,
    families: ['move'],
    chainId: -1,
    native: SUI,
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
    // A checkpoint is final when made: Sui's consensus (BFT) certifies it before any node serves it.
    defaultConfirmations: 0,
    rpc: 'sui-grpc',
    coingeckoPlatform: 'sui',
  },
  {
    id: 'aptos',
    name: 'Aptos',
    iconUrl: LOGO.aptos,
    families: ['move'],
    chainId: -1,
    native: APT,
    explorers: [
      {
        name: 'Aptos Explorer',
        url: 'https://explorer.aptoslabs.com/?network=mainnet',
        tx_url: 'https://explorer.aptoslabs.com/txn/{{tx_id}}?network=mainnet',
        address_url: 'https://explorer.aptoslabs.com/account/{{address}}?network=mainnet',
      },
    ],
    // Blocks are final when the node shows them: Aptos's consensus (BFT) commits a block before
    // any node serves it, and never takes one back.
    defaultConfirmations: 0,
    rpc: 'aptos-rest',
    coingeckoPlatform: 'aptos',
  },
] as const satisfies readonly ChainFactsOf[];

/** A supported chain's identifier, as the API and the database write it. */
export type ChainId = (typeof DEFINITIONS)[number]['id'];

export type Chain = ChainFactsOf<ChainId>;
export type EvmChain = EvmChainFacts<ChainId>;

/** Every supported chain, in display order. */
export const CHAINS: readonly Chain[] = DEFINITIONS;

const byId: ReadonlyMap<string, Chain> = new Map(CHAINS.map((chain) => [chain.id, chain]));

export function chainFacts(id: ChainId): Chain {
  const chain = byId.get(id);
  if (chain === undefined) throw new Error(`no chain ${String(id)} in the registry`);
  return chain;
}

export function isEvmChain(chain: Chain): chain is EvmChain {
  return chain.rpc === 'evm-json-rpc';
}

export type UtxoChain = UtxoChainFacts<ChainId>;

export function isUtxoChain(chain: Chain): chain is UtxoChain {
  return chain.rpc === 'bitcoin-json-rpc';
}

/** Whether chaintags can follow the chain from a node (it has a source kind), rather than by import only. */
export function isFollowable(chain: Chain): boolean {
  return chain.rpc !== undefined;
}

/** The chains chaintags can follow over standard Ethereum JSON-RPC, in display order. */
export const EVM_CHAINS: readonly EvmChain[] = CHAINS.filter(isEvmChain);
