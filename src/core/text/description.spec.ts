import { MAX_DESCRIPTION_LENGTH, parseDescription } from './description';

describe('parseDescription', () => {
  it('keeps one line of text, and reads null or "" as none', () => {
    expect(parseDescription('Hot wallets — ✓')).toBe('Hot wallets — ✓');
    expect(parseDescription(null)).toBeNull();
    expect(parseDescription('')).toBeNull();
  });

  it('counts characters, not UTF-16 units', () => {
    expect(parseDescription('🦊'.repeat(MAX_DESCRIPTION_LENGTH))).toBe('🦊'.repeat(MAX_DESCRIPTION_LENGTH));
    expect(parseDescription('a'.repeat(MAX_DESCRIPTION_LENGTH + 1))).toBeUndefined();
  });

  it('refuses control characters and anything but a string', () => {
    for (const bad of ['a\nb', 'a\tb', 'a\u0000b', 'a\u007fb', 'a\u0085b', 5, true, [], {}]) {
      expect(parseDescription(bad)).toBeUndefined();
    }
  });
});
