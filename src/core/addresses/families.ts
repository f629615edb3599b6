/**
 * The address families: each is one way of writing an address, recognised by one parser. A chain
 * accepts one or more families (its entry in `src/core/chains/chain-registry.ts` says which), and a
 * family may serve several chains (one EVM address is the same account on all six EVM chains).
 *
 * This file knows nothing of chains, so that the registry can name families without a cycle.
 */
export const ADDRESS_FAMILIES = [
  'evm',
  'bitcoin_legacy',
  'bitcoin_segwit',
  'bitcoin_cash',
  'dogecoin',
  'solana',
  'ton',
  'move',
] as const;

export type AddressFamily = (typeof ADDRESS_FAMILIES)[number];

export interface FamilyFacts {
  /**
   * How error messages name the family ("… address is not valid on …"). Without one, the family is
   * named after its chains ("a Sui/Aptos"), so a chain joining the family joins the name too.
   */
  label?: string;
  /** Base58Check version bytes of the family's mainnet addresses, for families written that way. */
  base58CheckVersions?: readonly number[];
}

export const FAMILY_FACTS: Readonly<Record<AddressFamily, FamilyFacts>> = {
  evm: { label: 'an EVM' },
  // Bitcoin Cash kept Bitcoin's Base58Check P2PKH/P2SH format, so the same string names the same
  // script on both chains: P2PKH "1…" (0x00) and P2SH "3…" (0x05).
  bitcoin_legacy: { label: 'a Bitcoin legacy (Base58Check)', base58CheckVersions: [0x00, 0x05] },
  bitcoin_segwit: { label: 'a Bitcoin SegWit' },
  bitcoin_cash: { label: 'a Bitcoin Cash CashAddr' },
  // P2PKH "D…" (0x1e) and P2SH "9…" or "A…" (0x16).
  dogecoin: { base58CheckVersions: [0x1e, 0x16] },
  solana: {},
  ton: {},
  move: {},
};
