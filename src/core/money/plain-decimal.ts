/**
 * The shortest decimal that reads back as the same double, written out without an exponent
 * (1e-7 → "0.0000001", 2.5e21 → "2500000000000000000000"), for a finite number of at least 0: how
 * prices are stored, whether imported as JSON numbers or read from the price source.
 */
export function plainDecimal(value: number): string {
  const [mantissa = '', exponent = '0'] = String(value).split('e');
  const [whole = '', fraction = ''] = mantissa.split('.');
  const digits = whole + fraction;
  const point = whole.length + Number(exponent);
  const padded = point <= 0 ? '0'.repeat(1 - point) + digits : digits + '0'.repeat(Math.max(0, point - digits.length));
  const split = Math.max(point, 1);
  const integer = padded.slice(0, split).replace(/^0+(?=\d)/, '');
  const decimals = padded.slice(split).replace(/0+$/, '');
  return decimals === '' ? integer : `${integer}.${decimals}`;
}
