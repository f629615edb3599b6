import { serverHeapFlags } from './app.heap';

describe('serverHeapFlags', () => {
  it('turns allocation-site pretenuring off and holds the heap growing to 60% when node was given no choice', () => {
    expect(serverHeapFlags([])).toEqual(['--no-allocation-site-pretenuring', '--heap-growing-percent=60']);
    expect(serverHeapFlags(['--max-old-space-size=1024', '--enable-source-maps'])).toEqual([
      '--no-allocation-site-pretenuring',
      '--heap-growing-percent=60',
    ]);
  });

  it("leaves node's own choice alone, either way, one setting at a time", () => {
    expect(serverHeapFlags(['--allocation-site-pretenuring'])).toEqual(['--heap-growing-percent=60']);
    expect(serverHeapFlags(['--max-old-space-size=1024', '--no-allocation-site-pretenuring'])).toEqual([
      '--heap-growing-percent=60',
    ]);
    expect(serverHeapFlags(['--heap-growing-percent=0'])).toEqual(['--no-allocation-site-pretenuring']);
    expect(serverHeapFlags(['--allocation-site-pretenuring', '--heap-growing-percent=100'])).toEqual([]);
  });

  it("knows V8's spellings of a flag's name with underscores", () => {
    expect(serverHeapFlags(['--heap_growing_percent=30', '--no_allocation_site_pretenuring'])).toEqual([]);
  });
});
