/**
 * A JavaScript array as PostgreSQL's text for an array (`{a,b,"c d"}`), for a value bound as one
 * array (textRows, inTexts). pg writes the same text itself, but element by element: each one
 * quoted and escaped with two regular expressions, and the whole joined by `+`, which in the
 * Bitcoin-family catch-up allocated a fifth of everything the service allocated (1.7 of 8.6 GB
 * sampled; bench/README.md, change 70). Here an element that needs no quotes (letters, digits and
 * `_.:+-`, which every address, id, amount and ISO time is) goes as it is, and the text is one
 * `join`. Answers undefined for an array holding anything but strings, numbers, bigints and
 * nulls (nested arrays, dates, buffers), which pg writes as before.
 */
export function arrayLiteral(values: readonly unknown[]): string | undefined {
  let plain = true;
  for (const value of values) {
    if (typeof value === 'string') {
      if (!BARE.test(value)) plain = false;
    } else if (typeof value === 'number' || typeof value === 'bigint') {
      continue;
    } else if (value === null || value === undefined) {
      plain = false;
    } else {
      return undefined;
    }
  }
  if (plain) return `{${values.join(',')}}`;
  return `{${(values as readonly Element[]).map(element).join(',')}}`;
}

/**
 * Text PostgreSQL reads as one element without quotes: not empty, no space, comma, brace, quote or
 * backslash, and not NULL in any case (a null element). One expression: a second one per element
 * took twice the time.
 */
const BARE = /^(?!null$)[\w.:+-]+$/i;

type Element = string | number | bigint | null | undefined;

function element(value: Element): string {
  if (value === null || value === undefined) return 'NULL';
  const text = String(value);
  if (BARE.test(text)) return text;
  return `"${text.replace(/[\\"]/g, '\\$&')}"`;
}
