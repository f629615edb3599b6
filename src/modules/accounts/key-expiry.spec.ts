import { parseExpiry } from './key-expiry';

describe('parseExpiry', () => {
  const now = new Date('2026-12-04T10:00:00.000Z');

  it('takes a UTC timestamp as given, in its one stored form', () => {
    expect(parseExpiry('2027-01-31T00:00:00Z', now)).toBe('2027-01-31T00:00:00.000Z');
    expect(parseExpiry('2025-01-01T12:30:00.5Z', now)).toBe('2025-01-01T12:30:00.500Z');
  });

  it('counts minutes, hours and days from now, and "now" itself', () => {
    expect(parseExpiry('90m', now)).toBe('2026-12-04T11:30:00.000Z');
    expect(parseExpiry('12h', now)).toBe('2026-12-04T22:00:00.000Z');
    expect(parseExpiry('30d', now)).toBe('2027-01-03T10:00:00.000Z');
    expect(parseExpiry('0h', now)).toBe('2026-12-04T10:00:00.000Z');
    expect(parseExpiry('now', now)).toBe('2026-12-04T10:00:00.000Z');
  });

  it('refuses anything else', () => {
    for (const input of [
      '',
      '30',
      'd',
      '1.5d',
      '-1d',
      '1w',
      '30 d',
      '1D',
      '1234567d',
      'tomorrow',
      '2027-01-31',
      '2027-02-30T00:00:00Z',
      '2027-01-31T00:00:00+01:00',
      'NOW',
    ]) {
      expect({ input, at: parseExpiry(input, now) }).toEqual({ input, at: undefined });
    }
  });

  it('takes up to six digits of a unit', () => {
    expect(parseExpiry('999999d', now)).toBe('4764-10-30T10:00:00.000Z');
    expect(parseExpiry('999999h', now)).toBe('2141-01-02T01:00:00.000Z');
  });
});
