import { pretenuringFlag } from './app.heap';

describe('pretenuringFlag', () => {
  it('turns allocation-site pretenuring off when node was given no choice about it', () => {
    expect(pretenuringFlag([])).toBe('--no-allocation-site-pretenuring');
    expect(pretenuringFlag(['--max-old-space-size=1024', '--enable-source-maps'])).toBe(
      '--no-allocation-site-pretenuring',
    );
  });

  it("leaves node's own choice alone, either way", () => {
    expect(pretenuringFlag(['--allocation-site-pretenuring'])).toBeUndefined();
    expect(pretenuringFlag(['--max-old-space-size=1024', '--no-allocation-site-pretenuring'])).toBeUndefined();
  });
});
