import { setFlagsFromString } from 'node:v8';

/** The V8 feature the server turns off (`--no-…`), unless node is told either way. */
const PRETENURING = 'allocation-site-pretenuring';

/** The V8 setting of how far the old generation may grow between full collections, in percent. */
const HEAP_GROWING = 'heap-growing-percent';

/**
 * How far the server lets the old generation grow past what a full collection kept before the next
 * one: 60%, what V8 itself allows under a 1 GiB heap limit. Its own choice is up to 300% once the
 * limit is 2 GiB or more, as on a host of 8 GiB or more (docs/operations.md, "Memory").
 */
const SERVER_HEAP_GROWING_PERCENT = 60;

/**
 * Sets the V8 features a server process runs with, before it takes requests; each is left as it
 * is when node was started with a choice of its own about it (docs/operations.md, "Memory").
 *
 * Allocation-site pretenuring goes off. V8 watches what the objects made at each place in the code
 * become: when most of them live through young-generation collections, it has that place allocate
 * straight into the old generation from then on (in the bench, that decision outlived a full
 * collection). In the bench a tag load, whose requests hold their objects for half a second while
 * their statements run, turned it on for code that every request runs through, and the reads after
 * it then put each answer's objects in the old generation, to wait there for the next full
 * collection: the address route filled it by 7.7-16.3 MB a second, 1.1-1.3 without
 * (bench/README.md, change 73). Answers are short-lived; the young generation is where they belong.
 *
 * The old generation's growth between full collections is held to 60%. What a server's reads
 * still promote is garbage by the next full collection, and V8 on a large host waits until the
 * old generation has grown fourfold: the service's RSS under the bench's reads at 10M transactions
 * peaked at 291-361 MiB that way. Unlike a heap limit, the setting leaves the heap room to grow
 * when the server needs it (bench/README.md, change 75).
 */
export function tuneServerHeap(): void {
  for (const flag of serverHeapFlags(process.execArgv)) setFlagsFromString(flag);
}

/** The flags to set for node's arguments: those about which they made no choice themselves. */
export function serverHeapFlags(execArgv: readonly string[]): string[] {
  const chosen = new Set(execArgv.map(optionName));
  const flags: string[] = [];
  if (!chosen.has(PRETENURING) && !chosen.has(`no-${PRETENURING}`)) flags.push(`--no-${PRETENURING}`);
  if (!chosen.has(HEAP_GROWING)) flags.push(`--${HEAP_GROWING}=${SERVER_HEAP_GROWING_PERCENT}`);
  return flags;
}

/** `--heap_growing_percent=60` → `heap-growing-percent`: V8 takes `_` and `-` alike in its flags' names. */
function optionName(argument: string): string {
  const [name = ''] = argument.replace(/^--?/, '').split('=', 1);
  return name.replaceAll('_', '-');
}
