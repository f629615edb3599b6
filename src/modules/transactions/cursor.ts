import { createHmac, timingSafeEqual } from 'node:crypto';
import { parseInstant } from '../../core/time/instant';

/**
 * The `after` cursor of GET /v2/transactions: where the previous page ended, in the list's order
 * (block_time, then id, both descending). It is `<payload>.<mac>`, both base64url: the payload is
 * the JSON array `[block_time, id]` of the page's last row, the mac the first 128 bits of
 * HMAC-SHA256 over the payload under the server's secret. Clients treat it as opaque; the mac
 * makes it tamper-evident, so the server never runs a query from a position it did not hand out.
 */
export interface CursorPosition {
  /** `toISOString()` form. */
  blockTime: string;
  id: string;
}

const MAC_BYTES = 16;
const MAC_CONTEXT = 'chaintags transactions cursor v1\n';
const SHAPE = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{22})$/;
// A block time, an id of up to 256 characters (up to 4 UTF-8 bytes each) and JSON escaping, in base64url.
export const MAX_CURSOR_LENGTH = 4096;

export function encodeCursor(position: CursorPosition, secret: Buffer): string {
  const payload = Buffer.from(JSON.stringify([position.blockTime, position.id]), 'utf8').toString('base64url');
  return `${payload}.${mac(payload, secret).toString('base64url')}`;
}

/** The position a cursor stands for, or undefined for anything this server did not issue. */
export function decodeCursor(cursor: string, secret: Buffer): CursorPosition | undefined {
  if (cursor.length > MAX_CURSOR_LENGTH) return undefined;
  const parts = SHAPE.exec(cursor);
  if (!parts) return undefined;
  const [, payload = '', presented = ''] = parts;
  const presentedMac = Buffer.from(presented, 'base64url');
  // The last base64url character carries 4 padding bits; only the canonical spelling is accepted.
  if (presentedMac.length !== MAC_BYTES || presentedMac.toString('base64url') !== presented) return undefined;
  if (!timingSafeEqual(presentedMac, mac(payload, secret))) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value.length !== 2) return undefined;
  // The mac already proves the server wrote this; the shape checks guard against a change of format.
  const [blockTime, id] = value as unknown[];
  if (typeof blockTime !== 'string' || parseInstant(blockTime) !== blockTime) return undefined;
  if (typeof id !== 'string' || id.length === 0) return undefined;
  return { blockTime, id };
}

function mac(payload: string, secret: Buffer): Buffer {
  return createHmac('sha256', secret).update(MAC_CONTEXT).update(payload).digest().subarray(0, MAC_BYTES);
}
