import { BatchWriter } from './batch-writer';

function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

describe('BatchWriter', () => {
  it('returns from submit() while the batch is written, and writes batches one at a time, in order', async () => {
    const events: string[] = [];
    const writes = [deferred(), deferred()];
    const writer = new BatchWriter<number>((batch) => {
      events.push(`start ${batch}`);
      return writes[batch]!.promise.then(() => void events.push(`end ${batch}`));
    });
    await writer.submit(0);
    events.push('reading the next batch');
    const second = writer.submit(1);
    await Promise.resolve();
    expect(events).toEqual(['start 0', 'reading the next batch']);
    writes[0]!.resolve();
    await second;
    expect(events).toEqual(['start 0', 'reading the next batch', 'end 0', 'start 1']);
    writes[1]!.resolve();
    await writer.finished();
    expect(events.at(-1)).toBe('end 1');
  });

  it('fails the next submit() with the error of a write that failed in the background', async () => {
    const failing = deferred();
    const write = jest.fn((batch: number) => (batch === 0 ? failing.promise : Promise.resolve()));
    const writer = new BatchWriter<number>(write);
    await writer.submit(0);
    failing.reject(new Error('deadlock detected'));
    await expect(writer.submit(1)).rejects.toThrow('deadlock detected');
    expect(write).toHaveBeenCalledTimes(1);
  });

  it('fails finished() when the last write failed', async () => {
    const writer = new BatchWriter<number>(() => Promise.reject(new Error('disk full')));
    await writer.submit(0);
    await expect(writer.finished()).rejects.toThrow('disk full');
  });

  it('settles without failing once the last write is over', async () => {
    const failing = deferred();
    const writer = new BatchWriter<number>(() => failing.promise);
    await writer.submit(0);
    let settled = false;
    const settling = writer.settled().then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    failing.reject(new Error('connection lost'));
    await settling;
    expect(settled).toBe(true);
  });
});
