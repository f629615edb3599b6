/**
 * A Move address (Aptos, Sui) as a node writes it (`0xa`, `0x2`, any case) written in full, as
 * chaintags stores them: `0x` and 64 lowercase hex digits. `node` names who gave it, for the error.
 */
export function fullMoveAddress(raw: unknown, node: string): string {
  if (typeof raw !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(raw))
    throw new Error(`${node} gave an address that is not one: ${String(raw).slice(0, 80)}`);
  return `0x${raw.slice(2).toLowerCase().padStart(64, '0')}`;
}
