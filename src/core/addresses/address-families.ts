import { CHAINS, type ChainId } from '../chains/chain-registry';
import { ADDRESS_FAMILIES, AddressFamily, FAMILY_FACTS } from './families';

export type { AddressFamily };

export interface ParsedAddress {
  /** The form chaintags stores and returns; every accepted spelling of the address maps to it. */
  canonical: string;
  family: AddressFamily;
  /** Chains the address is valid on, in `CHAIN_IDS` order. */
  chains: ChainId[];
}

export type AddressParseResult = { ok: true; address: ParsedAddress } | { ok: false; reason: string };

/** The chains whose registry entries accept the family, in registry (`CHAIN_IDS`) order. */
const familyMembers = (family: AddressFamily) => CHAINS.filter((chain) => chain.families.includes(family));

const FAMILY_CHAINS: ReadonlyMap<AddressFamily, readonly ChainId[]> = new Map(
  ADDRESS_FAMILIES.map((family) => [family, familyMembers(family).map((chain) => chain.id)]),
);

export function chainsOfFamily(family: AddressFamily): ChainId[] {
  return [...(FAMILY_CHAINS.get(family) ?? [])];
}

/** How messages name each family: "an EVM", or after its chains, "a Sui/Aptos". */
export const FAMILY_LABELS: Readonly<Record<AddressFamily, string>> = Object.fromEntries(
  ADDRESS_FAMILIES.map((family) => [family, FAMILY_FACTS[family].label ?? labelAfterChains(family)]),
) as Record<AddressFamily, string>;

function labelAfterChains(family: AddressFamily): string {
  const names = chainNamesOfFamily(family);
  return `${/^[AEIOU]/.test(names) ? 'an' : 'a'} ${names}`;
}

/** The display names of the family's chains, as messages write them: "Sui/Aptos". */
export function chainNamesOfFamily(family: AddressFamily): string {
  return familyMembers(family)
    .map((chain) => chain.name)
    .join('/');
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
