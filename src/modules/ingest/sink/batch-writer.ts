/**
 * Writes one batch while the next is read and checked, so that parsing and the database work at
 * the same time rather than in turns (bench/README.md, change 10). Batches still reach the
 * database one at a time and in order: a batch is only submitted once the one before it is
 * written, and a failed write fails the next submit() or finished().
 */
export class BatchWriter<Batch> {
  private previous: Promise<void> = Promise.resolve();

  constructor(private readonly write: (batch: Batch) => Promise<void>) {}

  async submit(batch: Batch): Promise<void> {
    await this.previous;
    const writing = this.write(batch);
    // Observed here so that a failure while the next batch is being read is not an unhandled
    // rejection; it still rejects `previous`, which the next call awaits.
    writing.catch(() => undefined);
    this.previous = writing;
  }

  /** Resolves when the last write is done, and rejects if it failed. */
  finished(): Promise<void> {
    return this.previous;
  }

  /** Resolves when the last write is done, whether or not it failed. */
  settled(): Promise<void> {
    return this.previous.then(
      () => undefined,
      () => undefined,
    );
  }
}
