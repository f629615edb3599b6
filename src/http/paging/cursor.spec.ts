import { randomBytes } from 'node:crypto';
import { decodeCursor, encodeCursor } from './cursor';

describe('cursors', () => {
  const secret = randomBytes(32);
  const position = { time: '2024-05-01T12:00:00.000Z', id: 'tx "quoted" | ünïcode.0' };

  it('round-trips a position and is URL-safe', () => {
    const cursor = encodeCursor(position, secret);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(decodeCursor(cursor, secret)).toEqual(position);
  });

  it('refuses a cursor signed with another secret', () => {
    expect(decodeCursor(encodeCursor(position, randomBytes(32)), secret)).toBeUndefined();
  });

  it('refuses an edited payload, an edited mac and garbage', () => {
    const cursor = encodeCursor(position, secret);
    const [payload = '', mac = ''] = cursor.split('.');
    const forgedPayload = Buffer.from(JSON.stringify(['2099-01-01T00:00:00.000Z', position.id])).toString('base64url');
    const flipped = `${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`;
    const lastCharacter = 'ABCDEFGHIJKLMNOP'.indexOf(mac.at(-1) ?? '');
    // Same decoded bytes, other padding bits: a second spelling of the same mac.
    const respelled = `${mac.slice(0, -1)}${'ABCDEFGHIJKLMNOP'[(lastCharacter + 1) % 16] ?? 'A'}`;
    for (const bad of [
      `${forgedPayload}.${mac}`,
      `${payload}.${flipped}`,
      ...(lastCharacter >= 0 ? [`${payload}.${respelled}`] : []),
      `${payload}x.${mac}`,
      payload,
      '',
      '.',
      'not a cursor',
      `${cursor}.${mac}`,
      'a'.repeat(10_000),
    ]) {
      expect(decodeCursor(bad, secret)).toBeUndefined();
    }
  });

  it('refuses a cursor of another list', () => {
    const cursor = encodeCursor(position, secret, 'transactions');
    expect(decodeCursor(cursor, secret, 'tag history')).toBeUndefined();
    expect(decodeCursor(encodeCursor(position, secret, 'tag history'), secret, 'tag history')).toEqual(position);
  });
});
