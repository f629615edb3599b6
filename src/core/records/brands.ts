declare const brand: unique symbol;

/**
 * A string that has passed one of chaintags' rules. Only the function that applies the rule casts a
 * plain string to it, so a value of the type needs no comment saying which form it is in.
 */
type Branded<Rule extends string> = string & { readonly [brand]: Rule };

/** An address in the one form chaintags stores and returns (contract §3; `canonicalAddressOnChain`). */
export type CanonicalAddress = Branded<'CanonicalAddress'>;

/** `0` for a chain's native coin, else a canonical contract, mint or jetton address, or a padded Move coin type. */
export type CanonicalTokenAddress = Branded<'CanonicalTokenAddress'>;

/** A timestamp in its stored form, `toISOString()` (`parseInstant`), which also orders correctly as text. */
export type Instant = Branded<'Instant'>;
