import { setFlagsFromString } from 'node:v8';

/** The V8 feature the server turns off (`--no-…`), unless node is told either way. */
const PRETENURING = 'allocation-site-pretenuring';

/**
 * Turns off V8's allocation-site pretenuring in a server process, before it takes requests, unless
 * node was started with `--allocation-site-pretenuring` or its `--no-` form (docs/operations.md,
 * "Memory").
 *
 * V8 watches what the objects made at each place in the code become: when most of them live
 * through young-generation collections, it has that place allocate straight into the old
 * generation from then on (in the bench, that decision outlived a full collection). In the bench
 * a tag load, whose requests hold their objects for half a second while their statements run,
 * turned it on for code that every request runs through, and the reads after it then put each
 * answer's objects in the old generation, to wait there for the next full collection: the address
 * route filled it by 7.7-16.3 MB a second, 1.1-1.3 without (bench/README.md, change 73). Answers
 * are short-lived; the young generation is where they belong.
 */
export function keepRequestGarbageYoung(): void {
  const flag = pretenuringFlag(process.execArgv);
  if (flag !== undefined) setFlagsFromString(flag);
}

/** The flag to set for node's arguments: none when they choose either way themselves. */
export function pretenuringFlag(execArgv: readonly string[]): string | undefined {
  const chosen = execArgv.some((argument) => argument === `--${PRETENURING}` || argument === `--no-${PRETENURING}`);
  return chosen ? undefined : `--no-${PRETENURING}`;
}
