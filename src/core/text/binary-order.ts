/**
 * Binary (code unit) order, the order both databases use for the address, chain and token columns
 * (binary collations): every writer that locks rows by such a key sorts them with this, so that
 * two writers sharing rows queue rather than deadlock. The one definition of that order.
 */
export function binaryOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
