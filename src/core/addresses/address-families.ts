import { ChainId, sortChains } from '../chains/chain-ids';

export type AddressFamily =
  'evm' | 'bitcoin_legacy' | 'bitcoin_segwit' | 'bitcoin_cash' | 'dogecoin' | 'solana' | 'ton' | 'move';

export interface ParsedAddress {
  /** The form chaintags stores and returns; every accepted spelling of the address maps to it. */
  canonical: string;
  family: AddressFamily;
  /** Chains the address is valid on, in `CHAIN_IDS` order. */
  chains: ChainId[];
}

export type AddressParseResult = { ok: true; address: ParsedAddress } | { ok: false; reason: string };

const FAMILY_CHAINS: Readonly<Record<AddressFamily, readonly ChainId[]>> = {
  evm: ['ethereum', 'bnb', 'polygon', 'arbitrum', 'optimism', 'base'],
  // Bitcoin Cash kept Bitcoin's Base58Check P2PKH/P2SH format, so the same string names the same script on both.
  bitcoin_legacy: ['bitcoin', 'bitcoincash'],
  bitcoin_segwit: ['bitcoin'],
  bitcoin_cash: ['bitcoincash'],
  dogecoin: ['dogecoin'],
  solana: ['solana'],
  ton: ['ton'],
  move: ['sui', 'aptos'],
};

export const FAMILY_LABELS: Readonly<Record<AddressFamily, string>> = {
  evm: 'an EVM',
  bitcoin_legacy: 'a Bitcoin legacy (Base58Check)',
  bitcoin_segwit: 'a Bitcoin SegWit',
  bitcoin_cash: 'a Bitcoin Cash CashAddr',
  dogecoin: 'a Dogecoin',
  solana: 'a Solana',
  ton: 'a TON',
  move: 'a Sui/Aptos',
};

export function chainsOfFamily(family: AddressFamily): ChainId[] {
  return sortChains(FAMILY_CHAINS[family]);
}

/** One family parser's verdict on an input shaped like that family's addresses. */
export type FamilyMatch = { ok: true; family: AddressFamily; canonical: string } | { ok: false; reason: string };

/** Returns `undefined` when the input does not look like the family at all, so another family may claim it. */
export type FamilyParser = (input: string) => FamilyMatch | undefined;

export function matched(family: AddressFamily, canonical: string): FamilyMatch {
  return { ok: true, family, canonical };
}

export function rejected(reason: string): FamilyMatch {
  return { ok: false, reason };
}

/** Callers only pass ASCII here (the parser rejects anything else first), so case folding is unambiguous. */
export function isSingleCase(text: string): boolean {
  return text === text.toLowerCase() || text === text.toUpperCase();
}
