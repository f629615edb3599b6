import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../core/errors';
import { parseInstant } from '../../core/time/instant';

/**
 * The `after` cursor of a keyset-paged list sorted newest first (GET /v2/transactions, GET
 * /v2/tags/:tag/history): where the previous page ended, in the list's order (a time, then an id,
 * both descending). It is `<payload>.<mac>`, both base64url: the payload is the JSON array
 * `[time, id]` of the page's last row, the mac the first 128 bits of HMAC-SHA256 over the list's
 * name and the payload under the server's secret. Clients treat it as opaque; the mac makes it
 * tamper-evident, so the server never runs a query from a position it did not hand out, and a
 * cursor of one list is no cursor of another.
 */
export interface CursorPosition {
  /** `toISOString()` form. */
  time: string;
  id: string;
}

const MAC_BYTES = 16;
const SHAPE = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{22})$/;
// A time, an id of up to 256 characters (up to 4 UTF-8 bytes each) and JSON escaping, in base64url.
export const MAX_CURSOR_LENGTH = 4096;
const SECRET_BYTES = 32;

/** The lists with cursors; each name goes into the mac. */
export type CursorList = 'transactions' | 'tag history';

export function encodeCursor(position: CursorPosition, secret: Buffer, list: CursorList = 'transactions'): string {
  const payload = Buffer.from(JSON.stringify([position.time, position.id]), 'utf8').toString('base64url');
  return `${payload}.${mac(payload, secret, list).toString('base64url')}`;
}

/** The position a cursor stands for, or undefined for anything this server did not issue for this list. */
export function decodeCursor(
  cursor: string,
  secret: Buffer,
  list: CursorList = 'transactions',
): CursorPosition | undefined {
  if (cursor.length > MAX_CURSOR_LENGTH) return undefined;
  const parts = SHAPE.exec(cursor);
  if (!parts) return undefined;
  const [, payload = '', presented = ''] = parts;
  const presentedMac = Buffer.from(presented, 'base64url');
  // The last base64url character carries 4 padding bits; only the canonical spelling is accepted.
  if (presentedMac.length !== MAC_BYTES || presentedMac.toString('base64url') !== presented) return undefined;
  if (!timingSafeEqual(presentedMac, mac(payload, secret, list))) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value.length !== 2) return undefined;
  // The mac already proves the server wrote this; the shape checks guard against a change of format.
  const [time, id] = value as unknown[];
  if (typeof time !== 'string' || parseInstant(time) !== time) return undefined;
  if (typeof id !== 'string' || id.length === 0) return undefined;
  return { time, id };
}

function mac(payload: string, secret: Buffer, list: CursorList): Buffer {
  return createHmac('sha256', secret)
    .update(`chaintags ${list} cursor v1\n`)
    .update(payload)
    .digest()
    .subarray(0, MAC_BYTES);
}

/**
 * Cursors of one list under the server's secret, which `store` keeps in the database on first use
 * (given a fresh random candidate, it answers the value that won, hex) and which is then read once
 * per process; a failed read is tried again by the next request.
 */
export class CursorCodec {
  private secret: Promise<Buffer> | undefined;

  constructor(
    private readonly list: CursorList,
    private readonly store: (candidateHex: string) => Promise<string>,
  ) {}

  async encode(position: CursorPosition): Promise<string> {
    return encodeCursor(position, await this.key(), this.list);
  }

  /** The position, or 400 INVALID_QUERY for a cursor this server did not hand out for this list. */
  async decode(cursor: string): Promise<CursorPosition> {
    const position = decodeCursor(cursor, await this.key(), this.list);
    if (position === undefined) {
      throw new ApiError('INVALID_QUERY', 'after is not a cursor this server handed out; follow the Link header.', [
        { parameter: 'after', message: 'invalid cursor' },
      ]);
    }
    return position;
  }

  private key(): Promise<Buffer> {
    this.secret ??= this.store(randomBytes(SECRET_BYTES).toString('hex')).then(
      (hex) => Buffer.from(hex, 'hex'),
      (error: unknown) => {
        this.secret = undefined;
        throw error;
      },
    );
    return this.secret;
  }
}
