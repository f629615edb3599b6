import { createHash } from 'node:crypto';
import { Cell, Dictionary, type Slice } from '@ton/core';

/** TEP-64: decimals when the content names none. */
export const DEFAULT_JETTON_DECIMALS = 9;

export interface JettonMetadata {
  name: string | undefined;
  symbol: string | undefined;
  decimals: number;
}

/**
 * The name, symbol and decimals of a Jetton master's TEP-64 content (`get_jetton_data`'s fourth
 * value). On-chain content (layout byte 0x00) is a dictionary of sha256(key) → value cells, each a
 * snake (0x00 prefix) or chunked (0x01 prefix) string. Off-chain content (0x01, a URI) is not
 * fetched: chaintags makes no requests to arbitrary URLs, so such a token gets the defaults (no
 * name or symbol, 9 decimals) until an import names it. Semi-chain content (on-chain keys plus a
 * `uri`) gives what its keys say.
 */
export function jettonMetadata(content: Cell): JettonMetadata {
  const empty: JettonMetadata = { name: undefined, symbol: undefined, decimals: DEFAULT_JETTON_DECIMALS };
  try {
    const slice = content.beginParse();
    if (slice.remainingBits < 8 || slice.loadUint(8) !== 0) return empty;
    const dict = slice.loadDict(Dictionary.Keys.BigUint(256), Dictionary.Values.Cell());
    const text = (key: string): string | undefined => {
      const value = dict.get(keyOf(key));
      return value === undefined ? undefined : contentString(value);
    };
    const decimalsText = text('decimals');
    const decimals =
      decimalsText !== undefined && /^\d{1,3}$/.test(decimalsText.trim())
        ? Number(decimalsText.trim())
        : DEFAULT_JETTON_DECIMALS;
    return { name: text('name'), symbol: text('symbol'), decimals };
  } catch {
    return empty;
  }
}

function keyOf(key: string): bigint {
  return BigInt(`0x${createHash('sha256').update(key).digest('hex')}`);
}

function contentString(cell: Cell): string | undefined {
  const slice = cell.beginParse();
  if (slice.remainingBits < 8) return undefined;
  const prefix = slice.loadUint(8);
  if (prefix === 0) return new TextDecoder().decode(snakeBytes(slice));
  if (prefix === 1) {
    const chunks = slice.loadDict(Dictionary.Keys.Uint(32), Dictionary.Values.Cell());
    const parts = [...chunks.keys()].sort((a, b) => a - b).map((index) => snakeBytes(chunks.get(index)!.beginParse()));
    return new TextDecoder().decode(Buffer.concat(parts));
  }
  return undefined;
}

function snakeBytes(start: Slice): Buffer {
  const parts: Buffer[] = [];
  let slice: Slice | undefined = start;
  for (let depth = 0; slice !== undefined && depth < 256; depth++) {
    parts.push(slice.loadBuffer(Math.floor(slice.remainingBits / 8)));
    slice = slice.remainingRefs > 0 ? slice.loadRef().beginParse() : undefined;
  }
  return Buffer.concat(parts);
}
