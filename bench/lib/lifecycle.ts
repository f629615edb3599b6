/** What a bench script prints, and how it stops what it started however it ends. */

/** Log lines on stderr, stamped with the time and the script's name; stdout keeps the results. */
export function benchLog(name: string): (line: string) => void {
  return (line) => process.stderr.write(`[${name} ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

/** Everything a run started (clusters, nodes, folders), stopped last in, first out. */
export class Cleanups {
  private readonly steps: (() => Promise<void> | void)[] = [];

  push(step: () => Promise<void> | void): void {
    this.steps.push(step);
  }

  /** Something just started (a server, a node), stopped with the rest unless its owner stops it first; answers it. */
  track<T extends { stop(): Promise<void> | void }>(started: T): T {
    this.push(() => started.stop());
    return started;
  }

  /** A step its owner already ran. */
  remove(step: () => Promise<void> | void): void {
    const index = this.steps.indexOf(step);
    if (index >= 0) this.steps.splice(index, 1);
  }

  async run(log: (line: string) => void): Promise<void> {
    while (this.steps.length > 0) {
      try {
        await this.steps.pop()!();
      } catch (error) {
        log(`cleanup: ${String(error)}`);
      }
    }
  }
}

/** Runs a bench's `main`; Ctrl-C or a failure still stops everything it started. */
export function runBench(main: () => Promise<void>, cleanups: Cleanups, log: (line: string) => void): void {
  process.once('SIGINT', () => {
    log('interrupted: stopping everything this run started');
    void cleanups.run(log).finally(() => process.exit(130));
  });
  main().catch(async (error: unknown) => {
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    await cleanups.run(log);
    process.exitCode = 1;
  });
}
