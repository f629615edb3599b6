import { brokenLinks, headingAnchors } from './doc-links';

describe('Markdown links', () => {
  const files: Record<string, string> = {
    'docs/a.md': [
      '# Page A',
      '## Live chain data',
      '### The Bitcoin family',
      '## Errors',
      '## Errors',
      'See [below](#the-bitcoin-family), [B](b.md#tags), [the README](../README.md#quick-start).',
      'Broken: [gone](missing.md), [nowhere](#no-such-heading), [B](b.md#nope), [web](https://example.com/x).',
      '`[not a link](nothing.md)` and',
      '```',
      '[inside code](nothing.md)',
      '```',
    ].join('\n'),
    'docs/b.md': '# B\n## Tags\n',
    'README.md': '# chaintags\n## Quick start\n',
  };
  const read = (path: string) => files[path];

  it('names GitHub anchors, numbering repeated headings', () => {
    expect([...headingAnchors(files['docs/a.md']!)]).toEqual([
      'page-a',
      'live-chain-data',
      'the-bitcoin-family',
      'errors',
      'errors-1',
    ]);
    expect(headingAnchors('## `GET /v2/sync` (API key needed)').has('get-v2sync-api-key-needed')).toBe(true);
  });

  it('finds links to missing files and anchors, and only those', () => {
    expect(brokenLinks('docs/a.md', read).map((link) => [link.line, link.target, link.reason])).toEqual([
      [7, 'missing.md', 'no such file'],
      [7, '#no-such-heading', 'no heading with the anchor #no-such-heading'],
      [7, 'b.md#nope', 'no heading with the anchor #nope'],
    ]);
  });
});
